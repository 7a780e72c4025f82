package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// loginForm is what a browser's login form posts.
type loginForm struct {
	app.In
	User     string   `form:"user" validate:"required,max=16"`
	Token    string   `form:"token" validate:"required"`
	Remember bool     `form:"remember"`
	Tries    int      `form:"tries" default:"1" validate:"min=1,max=5"`
	Scopes   []string `form:"scope"`
	Next     string   `query:"next"`
}

// formPrefs is a group of form values, as a query group is.
type formPrefs struct {
	Theme string `form:"theme" default:"light" validate:"enum=light|dark"`
	Size  int
}

type prefsIn struct {
	app.In
	Prefs formPrefs `form:""`
}

func formServer(t *testing.T, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	require.NoError(t, app.Post(s, "/login", func(_ context.Context, in loginForm) (string, error) {
		return fmt.Sprintf("user=%s token=%s remember=%t tries=%d scopes=%v next=%s",
			in.User, in.Token, in.Remember, in.Tries, in.Scopes, in.Next), nil
	}))
	require.NoError(t, app.Post(s, "/prefs", func(_ context.Context, in prefsIn) (string, error) {
		return fmt.Sprintf("theme=%s size=%d", in.Prefs.Theme, in.Prefs.Size), nil
	}))
	require.NoError(t, s.Ready())
	return s
}

// send sends a request with body and content type ct (none when
// empty) through s.
func send(t *testing.T, s *app.Server, method, target, ct string, body io.Reader) (*apptest.Response, string) {
	t.Helper()
	var header []string
	if ct != "" {
		header = []string{"Content-Type", ct}
	}
	res := apptest.Do(t, s, method, target, body, header...)
	return res, res.Body
}

// formCase is a request with a form body and the answer it gets.
type formCase struct {
	name, target, ct, body string
	status                 int
	want                   string // a substring of the reply
}

// postForms posts each case's body to s and checks the answer.
func postForms(t *testing.T, s *app.Server, tests []formCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, body := send(t, s, "POST", tt.target, tt.ct, strings.NewReader(tt.body))
			assert.Equal(t, tt.status, res.StatusCode, body)
			assert.Contains(t, body, tt.want)
		})
	}
}

func TestFormURLEncoded(t *testing.T) {
	t.Parallel()
	s := formServer(t, app.WithMaxBodyBytes(256))
	const form = "application/x-www-form-urlencoded"
	tests := []formCase{
		{"values", "/login?next=/home", form, "user=ann&token=s3cr%C3%A9t&remember=true&tries=2&scope=a&scope=b",
			200, `user=ann token=s3crét remember=true tries=2 scopes=[a b] next=/home`},
		{"media type parameters", "/login", form + "; charset=UTF-8", "user=ann&token=t",
			200, `user=ann token=t remember=false tries=1 scopes=[] next=`},
		{"media type case", "/login", "Application/X-WWW-Form-URLEncoded", "user=ann&token=t", 200, `user=ann`},
		{"missing values", "/login", form, "user=ann", 400, `"path":"body/token"`},
		{"no body at all", "/login", "", "", 400, `"path":"body/user"`},
		{"a value that does not convert", "/login", form, "user=ann&token=t&tries=many", 400, `"path":"body/tries"`},
		{"a rule", "/login", form, "user=ann&token=t&tries=9", 400, `"path":"body/tries"`},
		{"malformed", "/login", form, "user=%zz&token=t", 400, `"code":"ERR_BAD_FORM"`},
		{"text is not a form", "/login", "text/plain", `user=ann&token=t`, 415, `Unsupported Media Type`},
		{"no media type", "/login", "", `user=ann&token=t`, 415, `Unsupported Media Type: none`},
		{"too large", "/login", form, "user=ann&token=" + strings.Repeat("t", 300), 413, `Request body is too large`},
		{"group", "/prefs", form, "theme=dark&Size=3", 200, `theme=dark size=3`},
		{"group default", "/prefs", form, "", 200, `theme=light size=0`},
		{"group rule", "/prefs", form, "theme=pink", 400, `"path":"body/theme"`},
	}
	postForms(t, s, tests)
}

// TestFormAsJSON: a route reading a form takes the same values as a JSON
// object, decoded, defaulted and validated as the form's are, so one
// route serves a browser's form and a program's JSON; what a form
// cannot hold, and what a JSON body may not be, is a 400.
func TestFormAsJSON(t *testing.T) {
	t.Parallel()
	s := formServer(t, app.WithMaxBodyBytes(256))
	const js = "application/json"
	tests := []formCase{
		{"values", "/login?next=/home", js, `{"user":"ann","token":"s3cr\u00e9t","remember":true,"tries":2,"scope":["a","b"]}`,
			200, `user=ann token=s3crét remember=true tries=2 scopes=[a b] next=/home`},
		{"defaults", "/login", js + "; charset=utf-8", `{"user":"ann","token":"t"}`, 200, `user=ann token=t remember=false tries=1 scopes=[] next=`},
		{"values written as strings", "/login", js, `{"user":"ann","token":"t","remember":"true","tries":"3"}`, 200, `remember=true tries=3`},
		{"null is no value", "/login", js, `{"user":"ann","token":"t","tries":null,"scope":[null,"a"]}`, 200, `tries=1 scopes=[a]`},
		{"one scope", "/login", js, `{"user":"ann","token":"t","scope":"a"}`, 200, `scopes=[a]`},
		{"members no field reads", "/login", js, `{"user":"ann","token":"t","meta":{"x":[1]}}`, 200, `user=ann`},
		{"missing values", "/login", js, `{"user":"ann"}`, 400, `"validation":[{"path":"body/token","rule":"required","message":"is required"}]`},
		{"a value that does not convert", "/login", js, `{"user":"ann","token":"t","tries":"many"}`, 400, `"path":"body/tries"`},
		{"a fraction for an integer", "/login", js, `{"user":"ann","token":"t","tries":1.5}`, 400, `"path":"body/tries"`},
		{"a rule", "/login", js, `{"user":"ann","token":"t","tries":9}`, 400, `"path":"body/tries"`},
		{"an object", "/login", js, `{"user":{"name":"ann"},"token":{}}`, 400,
			`"validation":[{"path":"body/token","rule":"type","message":"must be a string, a number, a boolean, or an array of them"},` +
				`{"path":"body/user","rule":"type","message":"must be a string, a number, a boolean, or an array of them"}]`},
		{"an array of arrays", "/login", js, `{"user":"ann","token":"t","scope":[["a"]]}`, 400, `"path":"body/scope","rule":"type"`},
		{"not an object", "/login", js, `["ann"]`, 400, `"path":"body","rule":"type"`},
		{"null", "/login", js, `null`, 400, `"path":"body","rule":"type","message":"must be object"`},
		{"empty", "/login", js, ``, 400, `"code":"FST_ERR_CTP_EMPTY_JSON_BODY"`},
		{"bad syntax", "/login", js, `{"user":`, 400, `"code":"FST_ERR_CTP_INVALID_JSON_BODY"`},
		{"a key twice", "/login", js, `{"user":"ann","token":"t","user":"bob"}`, 400, `"code":"FST_ERR_CTP_INVALID_JSON_BODY"`},
		{"too deep", "/login", js, `{"scope":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, 400, `"code":"FST_ERR_CTP_INVALID_JSON_BODY"`},
		{"too large", "/login", js, `{"user":"ann","token":"` + strings.Repeat("t", 300) + `"}`, 413, `Request body is too large`},
		{"another JSON type", "/login", "application/vnd.api+json", `{"user":"ann","token":"t"}`, 415, `Unsupported Media Type: application/vnd.api+json`},
		{"group", "/prefs", js, `{"theme":"dark","Size":3}`, 200, `theme=dark size=3`},
		{"group rule", "/prefs", js, `{"theme":"pink"}`, 400, `"path":"body/theme"`},
	}
	postForms(t, s, tests)
}

// TestFormWithFileTakesNoJSON: JSON cannot carry a file, so a route with
// a file field takes multipart bodies only.
func TestFormWithFileTakesNoJSON(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Post(s, "/up", func(_ context.Context, in struct {
		app.In
		Title string    `form:"title"`
		File  *app.File `form:"file"`
	}) (string, error) {
		return in.Title, nil
	}))
	res := apptest.Do(t, s, "POST", "/up", strings.NewReader(`{"title":"x"}`), "Content-Type", "application/json")
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, res.Body, "Unsupported Media Type: application/json")
}

func TestFormTooLargeIsRefusedWithoutReadingIt(t *testing.T) {
	t.Parallel()
	s := formServer(t, app.WithMaxBodyBytes(1<<10))
	srv, read := countingServer(t, s)

	const size = 10 << 20
	for _, announced := range []bool{true, false} {
		before := read.Load()
		var body io.Reader = io.LimitReader(zeros{}, size)
		if !announced {
			body = chunked{body}
		}
		req, err := http.NewRequest("POST", srv.URL+"/login", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if res, err := srv.Client().Do(req); err == nil { // the server may close before the client finished sending
			res.Body.Close()
			assert.Equal(t, 413, res.StatusCode)
			assert.True(t, res.Close)
		}
		assert.Less(t, read.Load()-before, int64(1<<20), "announced=%t: the server read %d of %d bytes", announced, read.Load()-before, size)
	}
}

func TestFormAuthHookRunsBeforeTheBodyIsRead(t *testing.T) {
	t.Parallel()
	s := app.New()
	var handled atomic.Bool
	s.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
		if req.Header("Authorization") != "Bearer ok" {
			return httpx.NewError(401, "", "denied")
		}
		return nil
	})
	require.NoError(t, app.Post(s, "/login", func(_ context.Context, in loginForm) (string, error) {
		handled.Store(true)
		return in.User, nil
	}))
	require.NoError(t, s.Ready())
	body := &countingReader{r: strings.NewReader("user=ann&token=t")}
	res, reply := send(t, s, "POST", "/login", "application/x-www-form-urlencoded", body)
	assert.Equal(t, 401, res.StatusCode, reply)
	assert.Zero(t, body.n.Load(), "the body was read before the hook refused the request")
	assert.False(t, handled.Load())
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func TestFormAndBodyFieldsFailReady(t *testing.T) {
	t.Parallel()
	type both struct {
		app.In
		User string         `form:"user"`
		Body map[string]any `body:""`
	}
	s := app.New()
	require.NoError(t, app.Post(s, "/both", func(_ context.Context, in both) (string, error) { return in.User, nil }))
	err := s.Ready()
	require.Error(t, err)
	assert.ErrorIs(t, err, app.ErrInvalidInput)
	assert.Contains(t, err.Error(), "form fields and the route also decodes a body")

	type mixedGroup struct {
		app.In
		Prefs struct {
			Theme string `query:"theme"`
		} `form:""`
	}
	s = app.New()
	require.NoError(t, app.Post(s, "/mixed", func(_ context.Context, in mixedGroup) (string, error) { return "", nil }))
	err = s.Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "group of form values, so it cannot be tagged query")
}

func TestFormValidationShape(t *testing.T) {
	t.Parallel()
	s := formServer(t)
	res, body := send(t, s, "POST", "/login", "application/x-www-form-urlencoded", strings.NewReader("token=t"))
	require.Equal(t, 400, res.StatusCode)
	var got struct {
		StatusCode int    `json:"statusCode"`
		Code       string `json:"code"`
		Validation []struct {
			Path string `json:"path"`
		} `json:"validation"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	assert.Equal(t, 400, got.StatusCode)
	require.Len(t, got.Validation, 1, body)
	assert.Equal(t, "body/user", got.Validation[0].Path)
}
