package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/redistest"
)

const (
	formType    = "application/x-www-form-urlencoded"
	loginFailed = `{"statusCode":401,"code":"TODO_LOGIN_FAILED","error":"Unauthorized","message":"unknown user or wrong token"}`
	ended       = `{"statusCode":401,"code":"TODO_SESSION_ENDED","error":"Unauthorized","message":"the session has ended: log in again"}`
	csrfRefused = `{"statusCode":403,"code":"FST_CSRF_CROSS_ORIGIN","error":"Forbidden","message":"cross-origin request refused"}`
)

// sessionCookieOf is the todo_session cookie a's Set-Cookie sets, and
// the header line itself; it fails the test if there is not exactly one.
func sessionCookieOf(t *testing.T, a answer) (*http.Cookie, string) {
	t.Helper()
	lines := a.header.Values("Set-Cookie")
	require.Len(t, lines, 1, "one Set-Cookie")
	c, err := http.ParseSetCookie(lines[0])
	require.NoError(t, err)
	require.Equal(t, sessionCookie, c.Name)
	return c, lines[0]
}

// logIn posts alice's credentials as a form and returns the cookie
// header that carries her session.
func logIn(t *testing.T, s *service, user, token string) string {
	t.Helper()
	a := s.exchange(t, "POST", "/session", "user="+user+"&token="+token, "Content-Type", formType)
	require.Equal(t, 204, a.status, a.body)
	c, _ := sessionCookieOf(t, a)
	return sessionCookie + "=" + c.Value
}

// TestLogIn: POST /session, as a form or as JSON, answers 204 and sets
// the session cookie: HttpOnly, SameSite=Lax, Path=/, a value that is
// not the token; a wrong token, or an unknown user, is 401 in Burrow's
// error body with no cookie.
func TestLogIn(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	for _, tc := range []struct{ name, ctype, body string }{
		{"form", formType, "user=alice&token=tokenA"},
		{"form with a charset", formType + "; charset=utf-8", "token=tokenA&user=alice"},
		{"JSON", jsonType, `{"user":"alice","token":"tokenA"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := s.exchange(t, "POST", "/session", tc.body, "Content-Type", tc.ctype)
			require.Equal(t, 204, a.status, a.body)
			assert.Empty(t, a.body)
			c, line := sessionCookieOf(t, a)
			assert.True(t, strings.HasPrefix(line, sessionCookie+"="+c.Value+"; "), line)
			attrs := strings.Split(line, "; ")[1:]
			assert.Contains(t, attrs, "Path=/")
			assert.Contains(t, attrs, "HttpOnly")
			assert.Contains(t, attrs, "SameSite=Lax")
			assert.NotContains(t, line, "Max-Age", "a browser-session cookie")
			assert.GreaterOrEqual(t, len(c.Value), 40)
			assert.NotContains(t, c.Value, "tokenA")
			assert.NotContains(t, c.Value, "alice")

			list := s.exchange(t, "GET", "/todos", "", "Cookie", sessionCookie+"="+c.Value)
			assert.Equal(t, 200, list.status, list.body)
		})
	}
	tests := []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"wrong token", formType, "user=alice&token=tokenB", 401, loginFailed},
		{"unknown user", formType, "user=carol&token=tokenA", 401, loginFailed},
		{"wrong token as JSON", jsonType, `{"user":"bob","token":"tokenA"}`, 401, loginFailed},
		{"a token's prefix", formType, "user=alice&token=token", 401, loginFailed},
		{"no token", formType, "user=alice", 400, invalid("body/token", "required", "is required")},
		{"no user", jsonType, `{"token":"tokenA"}`, 400, invalid("body/user", "required", "is required")},
		{"no body", "", "", 400, `{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/user is required, body/token is required",` +
			`"validation":[{"path":"body/user","rule":"required","message":"is required"},{"path":"body/token","rule":"required","message":"is required"}]}`},
		{"an empty JSON body", jsonType, "", 400, `{"statusCode":400,"code":"FST_ERR_CTP_EMPTY_JSON_BODY","error":"Bad Request","message":"Body cannot be empty when content-type is set to 'application/json'"}`},
		{"a bad form", formType, "user=%zz", 400, `{"statusCode":400,"code":"ERR_BAD_FORM","error":"Bad Request","message":"form body is malformed: invalid URL escape \"%zz\""}`},
		{"a token as a JSON object", jsonType, `{"user":"alice","token":{"value":"tokenA"}}`, 400, invalid("body/token", "type", "must be a string, a number, a boolean, or an array of them")},
		{"text", "text/plain", "alice tokenA", 415, `{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: text/plain"}`},
		{"too large", formType, "user=alice&token=" + strings.Repeat("x", maxLoginBody), 413, tooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var header []string
			if tc.ctype != "" {
				header = []string{"Content-Type", tc.ctype}
			}
			a := s.exchange(t, "POST", "/session", tc.body, header...)
			assert.Equal(t, tc.status, a.status)
			assert.Equal(t, tc.want, a.body)
			assert.Empty(t, a.header.Values("Set-Cookie"), "no cookie")
		})
	}
}

// TestSessionCookieAuthenticates: every todo route takes the session
// cookie instead of the bearer token, and sees the session's user's
// todos only.
func TestSessionCookieAuthenticates(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	a := logIn(t, s, "alice", "tokenA")
	b := logIn(t, s, "bob", "tokenB")
	require.NotEqual(t, a, b)
	steps := []struct {
		name, method, path, cookie, body string
		status                           int
		want                             string
	}{
		{"create", "POST", "/todos", a, `{"title":"Milk"}`, 201, `{"id":1,"title":"Milk","done":false}`},
		{"batch", "POST", "/todos/batch", a, `[{"title":"Eggs"}]`, 201, `[{"id":2,"title":"Eggs","done":false}]`},
		{"bob's", "POST", "/todos", b, `{"title":"Milk"}`, 201, `{"id":3,"title":"Milk","done":false}`},
		{"get", "GET", "/todos/1", a, "", 200, `{"id":1,"title":"Milk","done":false}`},
		{"tick", "PATCH", "/todos/1", a, `{"done":true}`, 200, `{"id":1,"title":"Milk","done":true}`},
		{"not bob's to tick", "PATCH", "/todos/1", b, `{"done":false}`, 404, notFound},
		{"delete", "DELETE", "/todos/2", a, "", 204, ""},
		{"list", "GET", "/todos?limit=100", a, "", 200, `[{"id":1,"title":"Milk","done":true}]`},
		{"bob's list", "GET", "/todos", b, "", 200, `[{"id":3,"title":"Milk","done":false}]`},
	}
	for _, st := range steps {
		header := []string{"Cookie", st.cookie}
		if st.body != "" {
			header = append(header, "Content-Type", jsonType)
		}
		got := s.exchange(t, st.method, st.path, st.body, header...)
		assert.Equal(t, st.status, got.status, st.name)
		assert.Equal(t, st.want, got.body, st.name)
	}
	// With both, the authorization header decides: bob's token, alice's
	// cookie, bob's list.
	got := s.exchange(t, "GET", "/todos", "", "Cookie", a, "Authorization", bob)
	assert.Equal(t, `[{"id":3,"title":"Milk","done":false}]`, got.body)
	got = s.exchange(t, "GET", "/todos", "", "Cookie", a, "Authorization", "Bearer nope")
	assert.Equal(t, 401, got.status)
	assert.Equal(t, invalidAuth, got.body)
}

// TestSessionRefused: a cookie whose value was changed, or that names a
// session that ended (log-out, a new log-in), is 401.
func TestSessionRefused(t *testing.T) {
	t.Parallel()
	s := startUsers(t, "-rate-limit-ip", "1000") // more guesses than an address's default budget
	cookie := logIn(t, s, "alice", "tokenA")
	value := strings.TrimPrefix(cookie, sessionCookie+"=")
	for i := range value {
		for _, d := range []byte{1, 2} {
			changed := []byte(value)
			changed[i] ^= d
			a := s.exchange(t, "GET", "/todos", "", "Cookie", sessionCookie+"="+string(changed))
			require.Equal(t, 401, a.status, "byte %d changed", i)
			assert.Equal(t, ended, a.body)
			assert.Equal(t, "Bearer", a.header.Get("Www-Authenticate"))
		}
	}
	for _, v := range []string{value[:len(value)-1], value + "A", strings.Repeat("A", 5000)} {
		a := s.exchange(t, "GET", "/todos", "", "Cookie", sessionCookie+"="+v)
		assert.Equal(t, 401, a.status)
	}
	require.Equal(t, 200, s.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "the cookie still works")

	// A log-in from a browser that holds a session gives a new one: the
	// token held before (perhaps planted) is worth nothing after.
	again := s.exchange(t, "POST", "/session", "user=alice&token=tokenA", "Content-Type", formType, "Cookie", cookie)
	require.Equal(t, 204, again.status)
	c, _ := sessionCookieOf(t, again)
	assert.NotEqual(t, value, c.Value)
	assert.Equal(t, 401, s.exchange(t, "GET", "/todos", "", "Cookie", cookie).status)
	assert.Equal(t, 200, s.exchange(t, "GET", "/todos", "", "Cookie", sessionCookie+"="+c.Value).status)
}

// TestLogOut: DELETE /session answers 204, clears the cookie, and the
// old value is refused afterwards.
func TestLogOut(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	cookie := logIn(t, s, "alice", "tokenA")
	other := logIn(t, s, "alice", "tokenA") // another browser
	a := s.exchange(t, "DELETE", "/session", "", "Cookie", cookie)
	require.Equal(t, 204, a.status, a.body)
	c, line := sessionCookieOf(t, a)
	assert.Empty(t, c.Value)
	assert.Contains(t, strings.Split(line, "; "), "Max-Age=0")
	assert.Contains(t, strings.Split(line, "; "), "Path=/")

	for _, method := range []string{"GET", "POST", "DELETE"} {
		path := "/todos"
		if method == "DELETE" {
			path = "/todos/1"
		}
		got := s.exchange(t, method, path, `{"title":"x"}`, "Cookie", cookie, "Content-Type", jsonType)
		assert.Equal(t, 401, got.status, method)
		assert.Equal(t, ended, got.body, method)
	}
	assert.Equal(t, 200, s.exchange(t, "GET", "/todos", "", "Cookie", other).status, "the other browser's session lives on")

	// Logging out again, or without a session, is no error.
	assert.Equal(t, 204, s.exchange(t, "DELETE", "/session", "", "Cookie", cookie).status)
	none := s.exchange(t, "DELETE", "/session", "")
	assert.Equal(t, 204, none.status)
	assert.Empty(t, none.header.Values("Set-Cookie"))
}

// TestNewTokenEndsSessions: a user given another token (a restart with
// another -users, the sessions kept in Redis) must log in again.
func TestNewTokenEndsSessions(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	first := start(t, env(), zap.NewNop(), "-users", users, "-redis", redis.URL(0))
	cookie := logIn(t, first, "alice", "tokenA")
	kept := logIn(t, first, "bob", "tokenB")
	first.stop()
	second := start(t, env(), zap.NewNop(), "-users", "alice:newA,bob:tokenB", "-redis", redis.URL(0))
	assert.Equal(t, 401, second.exchange(t, "GET", "/todos", "", "Cookie", cookie).status)
	assert.Equal(t, 200, second.exchange(t, "GET", "/todos", "", "Cookie", kept).status, "bob's token did not change")
}

// TestSessionsInRedis: with -redis, instances share the sessions: a
// log-in on one is valid on the other, and so is a log-out.
func TestSessionsInRedis(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	a := start(t, env(), zap.NewNop(), "-users", users, "-redis", redis.URL(3))
	b := start(t, env(), zap.NewNop(), "-users", users, "-redis", redis.URL(3))
	memory := start(t, env(), zap.NewNop(), "-users", users)

	cookie := logIn(t, a, "alice", "tokenA")
	assert.Equal(t, 200, b.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "the other instance knows it")
	assert.Equal(t, 401, memory.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "a server without Redis does not")
	require.Equal(t, 204, b.exchange(t, "DELETE", "/session", "", "Cookie", cookie).status)
	assert.Equal(t, 401, a.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "logged out everywhere")

	// Redis gone: no session can be read, and the request fails rather
	// than passing or treating the user as logged out.
	cookie = logIn(t, a, "alice", "tokenA")
	redis.Kill(t)
	got := a.exchange(t, "GET", "/todos", "", "Cookie", cookie)
	assert.Equal(t, 500, got.status)
	assert.Equal(t, 200, a.exchange(t, "GET", "/todos", "", "Authorization", alice).status, "a token needs no Redis")
}

// TestRedisUnreachable: a -redis that does not answer stops the start.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	url := redis.URL(0)
	redis.Kill(t)
	err := run(t.Context(), []string{"-port", "0", "-users", users, "-redis", url}, env(), zap.NewNop(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connecting to Redis at "+redis.Addr)
}

// TestCSRFExemptsBearerOnly: a browser adds cached Basic credentials
// (or another scheme's) by itself, so only a Bearer token exempts a
// request from the CSRF check: behind a Basic-auth gate, a cross-site
// form cannot log the visitor into another account.
func TestCSRFExemptsBearerOnly(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	cookie := logIn(t, s, "alice", "tokenA")
	crossSite := []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}
	for _, auth := range []string{"Basic Z2F0ZTpzZWNyZXQ=", `Digest username="gate"`, "Negotiate YII=", "Token tokenB", "BearerX tokenB", ""} {
		t.Run("log-in with "+auth, func(t *testing.T) {
			a := s.exchange(t, "POST", "/session", "user=bob&token=tokenB",
				append([]string{"Content-Type", formType, "Authorization", auth, "Cookie", cookie}, crossSite...)...)
			assert.Equal(t, 403, a.status)
			assert.Equal(t, csrfRefused, a.body)
			assert.Empty(t, a.header.Values("Set-Cookie"), "no session for the attacker's account")
		})
	}
	for i, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		a := s.exchange(t, "POST", "/todos", fmt.Sprintf(`{"title":"cross-site %d"}`, i),
			append([]string{"Content-Type", jsonType, "Authorization", scheme + " tokenA"}, crossSite...)...)
		assert.Equal(t, 201, a.status, "%s: %s", scheme, a.body)
	}
}

// TestCSRF: a request a cookie authenticates — or could: the log-in and
// log-out — is refused when another site sent it: Sec-Fetch-Site
// cross-site or same-site, or, without it, an Origin other than the
// request's host. A same-origin request, a typed address, or a client
// that sends neither header passes; so does any request with a bearer
// token, and any GET or HEAD.
func TestCSRF(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	host := strings.TrimPrefix(s.base, "http://")
	cookie := logIn(t, s, "alice", "tokenA")
	require.Equal(t, 201, s.do(t, "POST", "/todos/batch", alice, jsonType, `[{"title":"a"},{"title":"b"},{"title":"c"},{"title":"d"}]`).status)

	type request struct {
		method, path, ctype, body string
		ok                        int
	}
	writes := []request{
		{"POST", "/todos", jsonType, `{"title":"new"}`, 201},
		{"POST", "/todos/batch", jsonType, `[{"title":"new"}]`, 201},
		{"PATCH", "/todos/1", jsonType, `{"done":true}`, 200},
		{"DELETE", "/todos/2", "", "", 204},
		{"DELETE", "/session", "", "", 204},
		{"POST", "/session", formType, "user=alice&token=tokenA", 204},
	}
	refused := [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Sec-Fetch-Site", "cross-site", "Origin", s.base},
		{"Origin", "https://evil.example"},
		{"Origin", "http://" + host + ".evil.example"},
		{"Origin", "null"},
	}
	for _, w := range writes {
		for _, extra := range refused {
			header := append([]string{"Cookie", cookie}, extra...)
			if w.ctype != "" {
				header = append(header, "Content-Type", w.ctype)
			}
			a := s.exchange(t, w.method, w.path, w.body, header...)
			assert.Equal(t, 403, a.status, "%s %s %v", w.method, w.path, extra)
			assert.Equal(t, csrfRefused, a.body)
			assert.Empty(t, a.header.Values("Set-Cookie"))
		}
	}
	// Nothing changed.
	list := s.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, `[{"id":1,"title":"a","done":false},{"id":2,"title":"b","done":false},{"id":3,"title":"c","done":false},{"id":4,"title":"d","done":false}]`, list.body)
	assert.Equal(t, 200, s.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "still logged in")

	// Reads pass whatever sent them.
	for _, method := range []string{"GET", "HEAD"} {
		a := s.exchange(t, method, "/todos/1", "", "Cookie", cookie, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
		assert.Equal(t, 200, a.status, method)
	}
	// Bearer requests pass whatever sent them.
	for i, w := range writes[:4] {
		a := s.exchange(t, w.method, strings.Replace(w.path, "1", "3", 1), strings.Replace(w.body, "new", fmt.Sprint("bearer ", i), 1),
			"Authorization", alice, "Content-Type", jsonType, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example", "Cookie", cookie)
		assert.Equal(t, w.ok, a.status, "%d: %s %s: %s", i, w.method, w.path, a.body)
	}
	// Allowed with a cookie: same-origin, none, an Origin that is the
	// host, neither header.
	allowed := [][]string{
		{"Sec-Fetch-Site", "same-origin"},
		{"Sec-Fetch-Site", "none"},
		{"Origin", s.base},
		{},
	}
	for i, extra := range allowed {
		a := s.exchange(t, "POST", "/todos", `{"title":"allowed `+string(rune('0'+i))+`"}`,
			append([]string{"Cookie", cookie, "Content-Type", jsonType}, extra...)...)
		assert.Equal(t, 201, a.status, "%v: %s", extra, a.body)
		a = s.exchange(t, "PATCH", "/todos/4", `{"done":true}`, append([]string{"Cookie", cookie, "Content-Type", jsonType}, extra...)...)
		assert.Equal(t, 200, a.status, "%v: %s", extra, a.body)
	}
	for _, extra := range allowed {
		c := logIn(t, s, "alice", "tokenA")
		a := s.exchange(t, "DELETE", "/session", "", append([]string{"Cookie", c}, extra...)...)
		assert.Equal(t, 204, a.status, "%v", extra)
		a = s.exchange(t, "POST", "/session", "user=alice&token=tokenA", append([]string{"Content-Type", formType}, extra...)...)
		assert.Equal(t, 204, a.status, "%v", extra)
	}
}

// TestConcurrentSessionRequests: a browser's requests under one session
// at once (the page's fetches) each find the session and the user's
// todos. Run with -race.
func TestConcurrentSessionRequests(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	cookie := logIn(t, s, "alice", "tokenA")
	const n = 20
	type result struct {
		a   answer
		err error
	}
	results := make(chan result, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a, err := sendOn(s.client, "POST", s.base+"/todos", fmt.Sprintf(`{"title":"t%d"}`, i), "Cookie", cookie, "Content-Type", jsonType)
			results <- result{a, err}
		})
		wg.Go(func() {
			a, err := sendOn(s.client, "GET", s.base+"/todos?limit=100", "", "Cookie", cookie)
			results <- result{a, err}
		})
	}
	wg.Wait()
	close(results)
	for r := range results {
		require.NoError(t, r.err)
		assert.Contains(t, []int{200, 201}, r.a.status, r.a.body)
	}
	a := s.exchange(t, "GET", "/todos?limit=100", "", "Cookie", cookie)
	require.Equal(t, 200, a.status)
	assert.Equal(t, n, strings.Count(a.body, `"title":"t`))
	assert.Equal(t, 200, s.exchange(t, "GET", "/todos", "", "Cookie", cookie).status, "the session lives on")
}

// TestBrowserSessionAcrossRequests: a client that keeps cookies, as a
// browser does, logs in with the page's form and is then served the
// todos with nothing but the session cookie the log-in set (Secure, as
// production sets it), until it logs out.
func TestBrowserSessionAcrossRequests(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	c := &apptest.Client{URL: s.base}
	assert.Equal(t, 401, c.Get(t, "/todos").StatusCode, "no session yet")
	res := c.Do(t, "POST", "/session", strings.NewReader("user=alice&token=tokenA"), "Content-Type", formType)
	require.Equal(t, 204, res.StatusCode, res.Body)
	kept := c.Cookies("/todos")
	require.Len(t, kept, 1)
	assert.Equal(t, sessionCookie, kept[0].Name)
	created := c.Do(t, "POST", "/todos", strings.NewReader(`{"title":"Milk"}`), "Content-Type", jsonType)
	assert.Equal(t, 201, created.StatusCode, created.Body)
	list := c.Get(t, "/todos")
	assert.Equal(t, 200, list.StatusCode)
	assert.Equal(t, `[{"id":1,"title":"Milk","done":false}]`, list.Body)
	assert.Equal(t, 204, c.Do(t, "DELETE", "/session", nil).StatusCode)
	assert.Empty(t, c.Cookies("/todos"), "the cleared cookie is forgotten")
	assert.Equal(t, 401, c.Get(t, "/todos").StatusCode)
}
