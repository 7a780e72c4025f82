package app_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// cookieServer reads and sets cookies: GET /whoami answers the session
// cookie's value (401 without one) and the names of every cookie sent;
// GET /login sets the session and theme cookies; GET /set/{case} sets a
// cookie net/http would refuse or clean.
func cookieServer(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.Get("/whoami", func(req *httpx.Request) (string, error) {
		c, err := req.Cookie("session")
		if errors.Is(err, http.ErrNoCookie) {
			return "", httpx.NewError(http.StatusUnauthorized, "", "no session")
		}
		if err != nil {
			return "", err
		}
		names := []string{c.Value}
		for _, c := range req.Cookies() {
			names = append(names, c.Name)
		}
		return strings.Join(names, " "), nil
	}))
	require.NoError(t, s.Get("/login", func(rep *httpx.Reply) error {
		return rep.
			SetCookie(&http.Cookie{Name: "session", Value: "s3cr3t", Path: "/", MaxAge: 3600,
				HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode}).
			SetCookie(&http.Cookie{Name: "theme", Value: "dark"}).
			Code(http.StatusCreated).
			Send(map[string]bool{"ok": true})
	}))
	require.NoError(t, s.Get("/set/:case", func(req *httpx.Request, rep *httpx.Reply) error {
		c, ok := oddCookies[req.Param("case")]
		if !ok {
			return httpx.NewError(http.StatusNotFound, "", "no such case")
		}
		return rep.SetCookie(c).Send("set")
	}))
	return s
}

// oddCookies are cookies net/http's SetCookie refuses or cleans, by the
// name GET /set/:case knows them by.
var oddCookies = map[string]*http.Cookie{
	"nil":          nil,
	"bad-name":     {Name: "a b", Value: "x"},
	"empty-name":   {Name: "", Value: "x"},
	"bad-value":    {Name: "v", Value: "a\"b;c\\d\r\ne"},
	"bad-domain":   {Name: "d", Value: "x", Domain: "ex ample.com"},
	"spaced-value": {Name: "q", Value: "a b,c"},
}

// cookieAnswer is what the cookie tests read from a response.
type cookieAnswer struct {
	status    int
	body      string
	setCookie []string
}

// cookieTransports answer a request through Inject and over a socket.
func cookieTransports(t *testing.T, s *app.Server) map[string]func(method, target string, header ...string) cookieAnswer {
	t.Helper()
	addr := serve(t, s)
	read := func(res *http.Response) cookieAnswer {
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return cookieAnswer{res.StatusCode, string(b), res.Header.Values("Set-Cookie")}
	}
	build := func(req *http.Request, header []string) *http.Request {
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Add(header[i], header[i+1])
		}
		return req
	}
	return map[string]func(string, string, ...string) cookieAnswer{
		"inject": func(method, target string, header ...string) cookieAnswer {
			res, err := s.Inject(build(httptest.NewRequest(method, target, nil), header))
			require.NoError(t, err)
			return read(res)
		},
		"socket": func(method, target string, header ...string) cookieAnswer {
			req, err := http.NewRequest(method, "http://"+addr+target, nil)
			require.NoError(t, err)
			res, err := http.DefaultClient.Do(build(req, header))
			require.NoError(t, err)
			return read(res)
		},
	}
}

func TestRequestCookies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		status int
		body   string
	}{
		{"session and another", []string{"Cookie", "session=abc; theme=dark"}, 200, "abc session theme"},
		{"two Cookie lines", []string{"Cookie", "theme=dark", "Cookie", "session=abc"}, 200, "abc theme session"},
		{"quoted value", []string{"Cookie", `session="a b"`}, 200, "a b session"},
		{"no cookie", nil, 401, `{"statusCode":401,"error":"Unauthorized","message":"no session"}`},
		{"another cookie only", []string{"Cookie", "theme=dark"}, 401, `{"statusCode":401,"error":"Unauthorized","message":"no session"}`},
		{"malformed pairs are skipped", []string{"Cookie", "=x; ;;session=abc; bad name=1"}, 200, "abc session"},
		{"a value with a bad byte is no cookie", []string{"Cookie", "session=a\\b"}, 401, `{"statusCode":401,"error":"Unauthorized","message":"no session"}`},
		{"over net/http's 3,000 cookies none is read", []string{"Cookie", "session=abc" + strings.Repeat(";a=1", 3000)}, 401, `{"statusCode":401,"error":"Unauthorized","message":"no session"}`},
		{"3,000 cookies are read", []string{"Cookie", "session=abc" + strings.Repeat(";a=1", 2999)}, 200, "abc session" + strings.Repeat(" a", 2999)},
	}
	s := cookieServer(t)
	for transport, do := range cookieTransports(t, s) {
		for _, tt := range tests {
			t.Run(transport+"/"+tt.name, func(t *testing.T) {
				got := do(http.MethodGet, "/whoami", tt.header...)
				assert.Equal(t, tt.status, got.status)
				assert.Equal(t, tt.body, got.body)
			})
		}
	}
}

func TestReplySetCookie(t *testing.T) {
	t.Parallel()
	s := cookieServer(t)
	for transport, do := range cookieTransports(t, s) {
		t.Run(transport, func(t *testing.T) {
			got := do(http.MethodGet, "/login")
			assert.Equal(t, http.StatusCreated, got.status, "SetCookie chains with Code and Send")
			assert.Equal(t, `{"ok":true}`, got.body)
			assert.Equal(t, []string{
				"session=s3cr3t; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax",
				"theme=dark",
			}, got.setCookie, "one Set-Cookie line per cookie, in call order")
		})
	}
}

// TestReplySetCookieInvalid: a cookie net/http's SetCookie would not send
// is not sent; bytes it would drop are dropped. The request is answered
// either way.
func TestReplySetCookieInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want []string
	}{
		{"nil", nil},
		{"bad-name", nil},
		{"empty-name", nil},
		{"bad-value", []string{"v=abcde"}},
		{"bad-domain", []string{"d=x"}},
		{"spaced-value", []string{`q="a b,c"`}},
	}
	s := cookieServer(t)
	for transport, do := range cookieTransports(t, s) {
		for _, tt := range tests {
			t.Run(transport+"/"+tt.name, func(t *testing.T) {
				got := do(http.MethodGet, "/set/"+tt.name)
				assert.Equal(t, http.StatusOK, got.status)
				assert.Equal(t, "set", got.body)
				assert.Equal(t, tt.want, got.setCookie)
				// net/http's own serialization is the reference.
				rec := httptest.NewRecorder()
				http.SetCookie(rec, oddCookies[tt.name])
				assert.Equal(t, rec.Header().Values("Set-Cookie"), got.setCookie, "as net/http's SetCookie")
			})
		}
	}
}
