package app_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
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

type numbersIn struct {
	app.In
	At     float64 `path:"at"`
	Ratio  float64 `query:"ratio"`
	Count  int     `query:"count"`
	Size   uint8   `query:"size"`
	Scale  float32 `header:"X-Scale"`
	Weight float64 `cookie:"w"`
}

type numbersOut struct {
	At, Ratio float64
	Count     int
	Size      uint8
	Scale     float32
	Weight    float64
}

// TestNumbersAreWrittenAsInJSON: a number in a path, query, header or
// cookie value is read as JSON writes numbers. strconv also reads NaN,
// infinities, hex floats, underscores, a plus sign and leading zeros;
// they are 400s, where NaN and the infinities used to reach the handler
// (and answer 500, as JSON cannot encode them).
func TestNumbersAreWrittenAsInJSON(t *testing.T) {
	t.Parallel()
	s := app.New()
	app.Get(s, "/n/:at", func(_ context.Context, in numbersIn) (numbersOut, error) {
		return numbersOut{in.At, in.Ratio, in.Count, in.Size, in.Scale, in.Weight}, nil
	})
	get := func(target string, header ...string) (int, string) {
		res := apptest.Do(t, s, "GET", target, nil, header...)
		if res.StatusCode != 200 {
			var eb httpx.ErrorBody
			res.JSON(t, &eb)
			return res.StatusCode, eb.Message
		}
		return res.StatusCode, res.Body
	}
	for _, bad := range []string{"NaN", "nan", "Inf", "-Inf", "%2BInf", "Infinity", "0x1p4", "0x10", "1_0", "%2B1", "01", "-01",
		".5", "1.", "1e", "1e%2B", "-", "", "%201", "1%20"} {
		status, msg := get("/n/0?ratio=" + bad)
		assert.Equal(t, 400, status, "ratio=%s", bad)
		assert.Equal(t, "querystring/ratio must be number", msg, "ratio=%s", bad)
	}
	for _, bad := range []string{"0x10", "1_0", "%2B5", "05", "1.0", "1e2", "NaN", "9223372036854775808"} {
		status, msg := get("/n/0?count=" + bad)
		assert.Equal(t, 400, status, "count=%s", bad)
		assert.Equal(t, "querystring/count must be integer", msg, "count=%s", bad)
	}
	for _, bad := range []string{"-0", "-1", "%2B5", "0x1", "256", "1_0"} {
		status, msg := get("/n/0?size=" + bad)
		assert.Equal(t, 400, status, "size=%s", bad)
		assert.Equal(t, "querystring/size must be a non-negative integer", msg, "size=%s", bad)
	}
	status, msg := get("/n/NaN")
	assert.Equal(t, 400, status)
	assert.Equal(t, "params/at must be number", msg)
	status, msg = get("/n/0", "X-Scale", "Inf")
	assert.Equal(t, 400, status)
	assert.Equal(t, "headers/X-Scale must be number", msg)
	status, msg = get("/n/0", "Cookie", "w=-Inf")
	assert.Equal(t, 400, status)
	assert.Equal(t, "cookies/w must be number", msg)

	status, body := get("/n/-0.5?ratio=1e3&count=-12&size=255", "X-Scale", "2.5E-1", "Cookie", "w=0")
	assert.Equal(t, 200, status, body)
	assert.Equal(t, `{"At":-0.5,"Ratio":1000,"Count":-12,"Size":255,"Scale":0.25,"Weight":0}`, body)
}
