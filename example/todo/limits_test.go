package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/example/todo/ui"
)

func TestTrafficFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want trafficFlags
		err  string
	}{
		{name: "defaults", want: trafficFlags{perUser: 600, perIP: 60}},
		{name: "all", args: []string{"-rate-limit", "10", "-rate-limit-ip", "5", "-admin", "127.0.0.1:9090", "-drain", "1500ms"},
			want: trafficFlags{perUser: 10, perIP: 5, admin: "127.0.0.1:9090", drain: 1500 * time.Millisecond}},
		{name: "no per-user limit", args: []string{"-rate-limit", "0"}, err: "-rate-limit must be >= 1 (rule min)"},
		{name: "no per-address limit", args: []string{"-rate-limit-ip", "-1"}, err: "-rate-limit-ip must be >= 1 (rule min)"},
		{name: "negative drain", args: []string{"-drain", "-1s"}, err: "-drain must be >= 0 (rule min)"},
		{name: "not a number", args: []string{"-rate-limit", "many"}, err: "-rate-limit must be integer (rule type)"},
		{name: "not an address", args: []string{"-admin", "127.0.0.1:99999"},
			err: "-admin must be host:port for the admin listener, the port from 0 to 65535, as 127.0.0.1:9090 (rule type)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFlags(tc.args, env())
			if tc.err != "" {
				assert.EqualError(t, err, "invalid configuration:\n\t"+tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.traffic())
		})
	}
}

// TestBadTrafficFlags: values the flags take but the server cannot use
// stop the start with a sentence naming them.
func TestBadTrafficFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"-admin", "127.0.0.1:99999"}, "admin listener"},
	}
	for _, tc := range tests {
		t.Run(tc.args[0], func(t *testing.T) {
			t.Parallel()
			err := run(t.Context(), append([]string{"-port", "0"}, tc.args...), env(), zap.NewNop(), nil)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// limited429 matches the body of a refusal: Burrow's error shape.
var limited429 = regexp.MustCompile(`^\{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in \d+ seconds?"\}$`)

// assertRefused checks a's status, body and headers as a refusal by
// policy name, with quota q.
func assertRefused(t *testing.T, a answer, name string, q int) {
	t.Helper()
	assert.Equal(t, http.StatusTooManyRequests, a.status, a.body)
	assert.Regexp(t, limited429, a.body)
	retry, err := strconv.Atoi(a.header.Get("Retry-After"))
	if assert.NoError(t, err, "Retry-After %q", a.header.Get("Retry-After")) {
		assert.GreaterOrEqual(t, retry, 1)
	}
	assert.Equal(t, []string{fmt.Sprintf(`"%s";q=%d;w=60`, name, q)}, a.header.Values("RateLimit-Policy"))
	assert.Regexp(t, fmt.Sprintf(`^"%s";r=0;t=\d+$`, name), a.header.Get("RateLimit"))
}

// assertCounted checks that a was counted by policy name, with quota q,
// leaving left.
func assertCounted(t *testing.T, a answer, name string, q, left int) {
	t.Helper()
	assert.Equal(t, []string{fmt.Sprintf(`"%s";q=%d;w=60`, name, q)}, a.header.Values("RateLimit-Policy"), a.body)
	assert.Regexp(t, fmt.Sprintf(`^"%s";r=%d;t=\d+$`, name, left), a.header.Get("RateLimit"))
	assert.Len(t, a.header.Values("RateLimit"), 1)
}

// TestPerUserLimit: -rate-limit N counts each user's requests to the
// authenticated routes, whatever they ask; request N+1 of the minute is
// 429 in Burrow's error shape with Retry-After; another user keeps their
// budget; the address's budget is not spent by authenticated requests.
func TestPerUserLimit(t *testing.T) {
	t.Parallel()
	s := start(t, env(), zap.NewNop(), "-users", users, "-rate-limit", "3", "-rate-limit-ip", "2")
	requests := []struct{ method, path, ctype, body string }{
		{"POST", "/todos", jsonType, `{"title":"one"}`},
		{"GET", "/todos/999", "", ""}, // a 404 of the store counts too
		{"GET", "/todos", "", ""},
	}
	for i, r := range requests {
		a := s.do(t, r.method, r.path, alice, r.ctype, r.body)
		assert.NotEqual(t, http.StatusTooManyRequests, a.status, a.body)
		assertCounted(t, a, "user", 3, 2-i)
	}
	assertRefused(t, s.do(t, "GET", "/todos", alice, "", ""), "user", 3)
	a := s.do(t, "HEAD", "/todos", alice, "", "")
	assert.Equal(t, http.StatusTooManyRequests, a.status)
	assert.Regexp(t, `^"user";r=0;t=\d+$`, a.header.Get("RateLimit"))
	assert.NotEmpty(t, a.header.Get("Retry-After"))
	assertRefused(t, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"two"}`), "user", 3)

	a = s.do(t, "GET", "/todos", bob, "", "")
	assert.Equal(t, http.StatusOK, a.status, "bob has a budget of his own")
	assertCounted(t, a, "user", 3, 2)
	a = s.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, http.StatusTooManyRequests, a.status, "alice's stays spent")

	a = s.do(t, "GET", "/nowhere", "", "", "")
	assert.Equal(t, http.StatusNotFound, a.status)
	assertCounted(t, a, "ip", 2, 1)
}

// TestPerAddressLimit: -rate-limit-ip M counts what no user's budget
// does — 401s, unknown paths and 405s, the description — but not
// liveness; request M+1 is 429 even with a token guessed right, except
// on the authenticated routes, which a user's budget guards.
func TestPerAddressLimit(t *testing.T) {
	t.Parallel()
	s := start(t, env(), zap.NewNop(), "-users", users, "-rate-limit-ip", "6")
	for range 3 {
		a := s.do(t, "GET", "/healthz", "", "", "")
		assert.Equal(t, http.StatusOK, a.status)
		assert.Empty(t, a.header.Values("RateLimit-Policy"), "liveness is not limited")
	}
	steps := []struct {
		method, path, auth string
		status             int
	}{
		{"GET", "/todos", "", http.StatusUnauthorized},
		{"GET", "/todos", "Bearer guess", http.StatusUnauthorized},
		{"GET", "/todos", "twice", http.StatusBadRequest}, // two authorization headers
		{"GET", "/nowhere", "", http.StatusNotFound},
		{"PUT", "/todos", alice, http.StatusMethodNotAllowed},
		{"GET", "/openapi.json", "", http.StatusOK},
	}
	for i, st := range steps {
		var a answer
		if st.auth == "twice" {
			a = s.exchange(t, st.method, st.path, "", "Authorization", alice, "Authorization", bob)
		} else {
			a = s.do(t, st.method, st.path, st.auth, "", "")
		}
		assert.Equal(t, st.status, a.status, "%s %s: %s", st.method, st.path, a.body)
		assertCounted(t, a, "ip", 6, 5-i)
	}
	a := s.do(t, "GET", "/todos", "Bearer guess", "", "")
	assertRefused(t, a, "ip", 6)
	assert.Empty(t, a.header.Get("Www-Authenticate"), "a refusal is no challenge")
	assertRefused(t, s.do(t, "DELETE", "/todos/1", "", "", ""), "ip", 6)
	assertRefused(t, s.do(t, "GET", "/nowhere", "", "", ""), "ip", 6)

	a = s.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, http.StatusOK, a.status, "alice's requests spend her budget, not the address's")
	assertCounted(t, a, "user", 600, 599)
	assert.Equal(t, http.StatusOK, s.do(t, "GET", "/healthz", "", "", "").status)
}

// TestTrustedProxies: behind a trusted proxy the per-address limit keys
// on the right-most X-Forwarded-For address the proxy does not hold;
// from any other peer the header is ignored, so forging it escapes
// nothing.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	forwarded := func(s *service, xff string) answer {
		req, err := http.NewRequest("GET", s.base+"/nowhere", nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-For", xff)
		res, err := s.client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return answer{status: res.StatusCode, header: res.Header, body: string(b)}
	}
	t.Run("trusted", func(t *testing.T) {
		t.Parallel()
		s := start(t, env(), zap.NewNop(), "-users", users, "-rate-limit-ip", "2", "-trusted-proxies", "127.0.0.1/32")
		assertCounted(t, forwarded(s, "203.0.113.1"), "ip", 2, 1)
		assertCounted(t, forwarded(s, "198.51.100.7, 203.0.113.1"), "ip", 2, 0) // the client may write the left part
		assertRefused(t, forwarded(s, "10.9.9.9, 203.0.113.1"), "ip", 2)
		assertCounted(t, forwarded(s, "203.0.113.2"), "ip", 2, 1)
		assertCounted(t, s.do(t, "GET", "/nowhere", "", "", ""), "ip", 2, 1) // the proxy's own requests
	})
	t.Run("untrusted peer", func(t *testing.T) {
		t.Parallel()
		s := start(t, env(), zap.NewNop(), "-users", users, "-rate-limit-ip", "2", "-trusted-proxies", "10.0.0.0/8")
		assertCounted(t, forwarded(s, "203.0.113.1"), "ip", 2, 1)
		assertCounted(t, forwarded(s, "203.0.113.2"), "ip", 2, 0)
		assertRefused(t, forwarded(s, "203.0.113.3"), "ip", 2)
	})
}

// startAdmin starts a server with an admin listener on a port of its own
// and returns it, the admin listener's base URL and the warnings logged.
func startAdmin(t *testing.T, args ...string) (*service, string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	s := start(t, env(), zap.New(core), append([]string{"-users", users, "-admin", "127.0.0.1:0"}, args...)...)
	listening := logs.FilterMessage("admin listening").All()
	require.Len(t, listening, 1)
	return s, "http://" + listening[0].ContextMap()["addr"].(string), logs
}

// fetchURL sends GET (or HEAD) url with client and reads the answer.
func fetchURL(t *testing.T, client *http.Client, method, url string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

// readyBody is a /readyz body.
type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// waitReadyz polls url until its answer satisfies ok, for at most a
// minute, and returns that answer.
func waitReadyz(t *testing.T, client *http.Client, url string, ok func(int, readyBody) bool) (int, readyBody) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		a := fetchURL(t, client, "GET", url+"/readyz")
		var r readyBody
		require.NoError(t, json.Unmarshal([]byte(a.body), &r), a.body)
		if ok(a.status, r) {
			return a.status, r
		}
		require.True(t, time.Now().Before(deadline), "/readyz still answers %d %s", a.status, a.body)
		time.Sleep(20 * time.Millisecond) // polling interval
	}
}

// TestAdminListener: -admin serves liveness, readyBody (the database's
// check) and the profiler on its own port, and the public port none of
// them; with a drain delay, readyBody fails as soon as the close begins
// while the public port still serves.
func TestAdminListener(t *testing.T) {
	t.Parallel()
	s, admin, _ := startAdmin(t, "-drain", "5s")
	c := s.client

	a := fetchURL(t, c, "GET", admin+"/healthz")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, `{"status":"ok"}`, a.body)
	assert.Equal(t, http.StatusOK, fetchURL(t, c, "HEAD", admin+"/healthz").status)
	status, r := waitReadyz(t, c, admin, func(code int, r readyBody) bool { return r.Checks["db"] != "pending" })
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, readyBody{Status: "ready", Checks: map[string]string{"db": "ok"}}, r)
	assert.Equal(t, http.StatusOK, fetchURL(t, c, "HEAD", admin+"/readyz").status)
	a = fetchURL(t, c, "GET", admin+"/debug/pprof/")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Contains(t, a.body, "goroutine")
	a = fetchURL(t, c, "GET", admin+"/debug/pprof/goroutine?debug=1")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Contains(t, a.body, "goroutine profile")
	assert.Equal(t, http.StatusNotFound, fetchURL(t, c, "GET", admin+"/todos").status, "the API is not on the admin port")

	for i, path := range []string{"/healthz", "/readyz", "/debug/pprof/", "/debug/pprof/goroutine"} {
		a := s.do(t, "GET", path, "", "", "")
		assert.Equal(t, http.StatusNotFound, a.status, "public %s", path)
		assertCounted(t, a, "ip", 60, 59-i)
	}

	// SIGTERM: readyBody fails at once, requests are still served.
	stopped := make(chan struct{})
	go func() { s.stop(); close(stopped) }()
	status, r = waitReadyz(t, c, admin, func(code int, _ readyBody) bool { return code != http.StatusOK })
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, readyBody{Status: "failing", Checks: map[string]string{"db": "ok", "server": "closing"}}, r)
	a, err := s.send("GET", "/todos", alice, "", "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, a.status, "served during the drain")
	<-stopped
}

// TestOneBudgetPerUser: a user's requests spend one budget whether they
// carry the token or the session cookie; logging in spends the
// address's budget only; the page's files spend none.
func TestOneBudgetPerUser(t *testing.T) {
	t.Parallel()
	s := startUsers(t, "-rate-limit", "4", "-rate-limit-ip", "3")
	for range 5 {
		for _, path := range []string{"/", "/index.html", "/assets/" + appScript(t)} {
			a := s.exchange(t, "GET", path, "")
			require.Equal(t, http.StatusOK, a.status, path)
			assert.Empty(t, a.header.Values("RateLimit-Policy"), "%s is not limited", path)
		}
	}
	a := s.exchange(t, "POST", "/session", "user=alice&token=tokenA", "Content-Type", formType)
	require.Equal(t, http.StatusNoContent, a.status, a.body)
	assertCounted(t, a, "ip", 3, 2)
	c, _ := sessionCookieOf(t, a)
	cookie := sessionCookie + "=" + c.Value

	for i, header := range [][]string{{"Authorization", alice}, {"Cookie", cookie}, {"Authorization", alice}, {"Cookie", cookie}} {
		a := s.exchange(t, "GET", "/todos", "", header...)
		assert.Equal(t, http.StatusOK, a.status, a.body)
		assertCounted(t, a, "user", 4, 3-i)
	}
	assertRefused(t, s.exchange(t, "GET", "/todos", "", "Cookie", cookie), "user", 4)
	assertRefused(t, s.exchange(t, "GET", "/todos", "", "Authorization", alice), "user", 4)
	a = s.exchange(t, "GET", "/todos", "", "Authorization", bob)
	assert.Equal(t, http.StatusOK, a.status)
	assertCounted(t, a, "user", 4, 3)

	a = s.exchange(t, "POST", "/session", "user=bob&token=wrong", "Content-Type", formType)
	assert.Equal(t, http.StatusUnauthorized, a.status, "a failed login")
	assertCounted(t, a, "ip", 3, 1)
	a = s.exchange(t, "GET", "/todos", "", "Cookie", sessionCookie+"=ended")
	assert.Equal(t, http.StatusUnauthorized, a.status, "a session that is no more")
	assertCounted(t, a, "ip", 3, 0)
	assertRefused(t, s.exchange(t, "POST", "/session", "user=bob&token=tokenB", "Content-Type", formType), "ip", 3)
}

// appScript is the name of the page's script under /assets/.
func appScript(t *testing.T) string {
	t.Helper()
	entries, err := fs.ReadDir(ui.FS(), "assets")
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".js") {
			return e.Name()
		}
	}
	require.FailNow(t, "the page has no script")
	return ""
}
