package app_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

type limitQuery struct {
	Limit int `query:"limit"`
}

// queryApp reads the query typed (/typed) and through the accessor
// (/untyped); both answer the limit they saw.
func queryApp(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.Get("/typed", func(q app.Query[limitQuery]) (string, error) {
		return "limit=" + strconv.Itoa(q.Value.Limit), nil
	}))
	require.NoError(t, s.Get("/untyped", func(req *httpx.Request) (string, error) {
		return "limit=" + req.Query("limit"), nil
	}))
	require.NoError(t, s.Ready())
	return s
}

// A query net/url cannot read whole is never decoded into defaults: over
// 10,000 parameters (where net/url returns no value at all) it is a 400 on
// any path; typed input refuses a malformed escape or a semicolon
// separator; the untyped accessor keeps net/http's leniency, skipping the
// malformed pair.
func TestQueryParsing(t *testing.T) {
	t.Parallel()
	s := queryApp(t)
	atLimit := "limit=5" + strings.Repeat("&x=1", 9999)    // 10,000 parameters
	overLimit := "limit=5" + strings.Repeat("&x=1", 10000) // 10,001
	emptyPairs := "limit=5" + strings.Repeat("&", 10000)   // net/url counts empty pairs too
	const (
		tooMany   = `{"statusCode":400,"code":"ERR_BAD_QUERYSTRING","error":"Bad Request","message":"querystring has more than 10000 parameters"}`
		semicolon = `{"statusCode":400,"code":"ERR_BAD_QUERYSTRING","error":"Bad Request","message":"querystring is malformed: invalid semicolon separator in query"}`
		badEscape = `{"statusCode":400,"code":"ERR_BAD_QUERYSTRING","error":"Bad Request","message":"querystring is malformed: invalid URL escape \"%zz\""}`
	)
	checkGets(t, s, []getCase{
		{"typed, at the limit", "/typed?" + atLimit, 200, "limit=5"},
		{"untyped, at the limit", "/untyped?" + atLimit, 200, "limit=5"},
		{"typed, over the limit", "/typed?" + overLimit, 400, tooMany},
		{"untyped, over the limit", "/untyped?" + overLimit, 400, tooMany},
		{"empty pairs count", "/untyped?" + emptyPairs, 400, tooMany},
		{"unknown path, over the limit", "/nowhere?" + overLimit, 400, tooMany},
		{"typed, semicolon", "/typed?limit=5;x=1", 400, semicolon},
		{"typed, bad escape in another key", "/typed?limit=5&x=%zz", 400, badEscape},
		{"typed, bad escape in its key", "/typed?limit=%zz", 400, badEscape},
		{"typed, well formed", "/typed?limit=7&x=%41", 200, "limit=7"},
		{"untyped, semicolon skips the pair", "/untyped?limit=5;x=1", 200, "limit="},
		{"untyped, bad escape skips the pair", "/untyped?limit=5&x=%zz", 200, "limit=5"},
	})
}

// QueryErr tells a handler using the accessor that pairs were skipped.
func TestQueryErr(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Get("/", func(req *httpx.Request) (string, error) {
		if err := req.QueryErr(); err != nil {
			return "", httpx.NewError(http.StatusBadRequest, "", err.Error())
		}
		return req.Query("a"), nil
	}))
	status, body, _ := do(t, s, "GET", "/?a=1")
	assert.Equal(t, 200, status)
	assert.Equal(t, "1", body)
	status, body, _ = do(t, s, "GET", "/?a=1&b=%z")
	assert.Equal(t, 400, status)
	assert.Contains(t, body, `invalid URL escape \"%z\"`)
}
