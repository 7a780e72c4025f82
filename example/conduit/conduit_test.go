package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// start runs the server on a free port with args, until the test ends,
// and returns its base URL.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-port", "0"}, args...), func(string) string { return "" }, zap.NewNop(), func(a net.Addr) { addr <- a })
	}()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	select {
	case a := <-addr:
		return "http://" + a.String()
	case err := <-done:
		t.Fatalf("the server did not start: %v", err)
	}
	return ""
}

type client struct {
	t     *testing.T
	base  string
	token string
}

func (c *client) do(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	require.NoError(c.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Token "+c.token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	var m map[string]any
	if len(b) > 0 {
		require.NoError(c.t, json.Unmarshal(b, &m), "%s %s: %s", method, path, b)
	}
	return res.StatusCode, m
}

func (c *client) register(name string) *client {
	c.t.Helper()
	status, m := c.do("POST", "/api/users", map[string]any{"user": map[string]any{"username": name, "email": name + "@example.com", "password": "password1"}})
	require.Equal(c.t, 201, status, "%v", m)
	return &client{t: c.t, base: c.base, token: m["user"].(map[string]any)["token"].(string)}
}

// each runs fn against a server on SQLite and one on PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, base string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, start(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		pg := pgtest.Start(t)
		fn(t, start(t, "-db", pg.URL("test")))
	})
}

func TestErrorsInRealWorldsShape(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, base string) {
		anon := &client{t: t, base: base}
		alice := anon.register("alice")
		bob := anon.register("bob_2")

		status, m := anon.do("POST", "/api/users", map[string]any{"user": map[string]any{"username": "", "email": "nope"}})
		assert.Equal(t, 422, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{
			"username": []any{"can't be empty"}, "password": []any{"can't be empty"}, "email": []any{`must match format "email"`},
		}}, m)

		status, m = anon.do("POST", "/api/users", map[string]any{"user": map[string]any{"username": "alice", "email": "ALICE@example.com", "password": "password1"}})
		assert.Equal(t, 422, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{
			"username": []any{"has already been taken"}, "email": []any{"has already been taken"},
		}}, m)

		status, m = anon.do("POST", "/api/users/login", map[string]any{"user": map[string]any{"email": "alice@example.com", "password": "wrong-password"}})
		assert.Equal(t, 422, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{"email or password": []any{"is invalid"}}}, m)

		status, m = anon.do("GET", "/api/user", nil)
		assert.Equal(t, 401, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{"body": []any{"missing or invalid token"}}}, m)
		forged := &client{t: t, base: base, token: alice.token[:len(alice.token)-2] + "xx"}
		status, _ = forged.do("GET", "/api/articles", nil)
		assert.Equal(t, 401, status, "a bad token is refused where auth is optional too")
		none := &client{t: t, base: base, token: "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."}
		status, _ = none.do("GET", "/api/user", nil)
		assert.Equal(t, 401, status, `alg "none" is refused`)

		status, m = alice.do("POST", "/api/articles", map[string]any{"article": map[string]any{"title": "How to train", "description": "d", "body": "b", "tagList": []string{"training", "dragons"}}})
		require.Equal(t, 201, status, "%v", m)
		art := m["article"].(map[string]any)
		assert.Equal(t, []any{"dragons", "training"}, art["tagList"])
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, art["createdAt"])
		slug := art["slug"].(string)
		assert.Regexp(t, `^how-to-train-[0-9a-f]{8}$`, slug)

		status, _ = bob.do("PUT", "/api/articles/"+slug, map[string]any{"article": map[string]any{"body": "mine now"}})
		assert.Equal(t, 403, status)
		status, _ = bob.do("DELETE", "/api/articles/"+slug, nil)
		assert.Equal(t, 403, status)
		status, m = anon.do("GET", "/api/articles/no-such-article", nil)
		assert.Equal(t, 404, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{"body": []any{"not found"}}}, m)
		status, _ = anon.do("GET", "/api/profiles/nobody", nil)
		assert.Equal(t, 404, status)
		status, _ = anon.do("GET", "/api/no/such/route", nil)
		assert.Equal(t, 404, status)

		status, m = alice.do("POST", "/api/articles/"+slug+"/comments", map[string]any{"comment": map[string]any{"body": ""}})
		assert.Equal(t, 422, status)
		assert.Equal(t, map[string]any{"errors": map[string]any{"body": []any{"can't be empty"}}}, m)
		status, m = alice.do("POST", "/api/articles/"+slug+"/comments", map[string]any{"comment": map[string]any{"body": "first"}})
		require.Equal(t, 200, status)
		id := int(m["comment"].(map[string]any)["id"].(float64))
		status, _ = bob.do("DELETE", "/api/articles/"+slug+"/comments/"+itoa(id), nil)
		assert.Equal(t, 403, status)
		status, _ = alice.do("DELETE", "/api/articles/"+slug+"/comments/"+itoa(id), nil)
		assert.Equal(t, 204, status)

		status, m = bob.do("POST", "/api/profiles/alice/follow", nil)
		assert.Equal(t, 200, status)
		assert.Equal(t, true, m["profile"].(map[string]any)["following"])
		status, m = bob.do("GET", "/api/articles/feed", nil)
		assert.Equal(t, 200, status)
		assert.Equal(t, float64(1), m["articlesCount"])
		status, m = bob.do("POST", "/api/articles/"+slug+"/favorite", nil)
		assert.Equal(t, 200, status)
		assert.Equal(t, float64(1), m["article"].(map[string]any)["favoritesCount"])

		status, m = anon.do("GET", "/api/articles?limit=0", nil)
		assert.Equal(t, 422, status, "%v", m)
		status, _ = alice.do("DELETE", "/api/articles/"+slug, nil)
		assert.Equal(t, 204, status)
		status, m = anon.do("GET", "/api/articles", nil)
		assert.Equal(t, 200, status)
		assert.Equal(t, float64(0), m["articlesCount"])
	})
}

func TestTheRestKeepsBurrowsShape(t *testing.T) {
	t.Parallel()
	base := start(t)
	res, err := http.Get(base + "/nope")
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, 404, res.StatusCode)
	assert.Contains(t, string(b), `"statusCode":404`, "outside /api, Burrow's error body")
	res, err = http.Get(base + "/api/openapi.json")
	require.NoError(t, err)
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	assert.Contains(t, string(b), `"/api/articles/{slug}"`)
}

func TestTwoInstancesOnOnePostgreSQL(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	secret := strings.Repeat("s", 32)
	a := start(t, "-db", pg.URL("test"), "-jwt-secret", secret)
	b := start(t, "-db", pg.URL("test"), "-jwt-secret", secret)
	alice := (&client{t: t, base: a}).register("alice")
	status, _ := alice.do("POST", "/api/articles", map[string]any{"article": map[string]any{"title": "t", "description": "d", "body": "b"}})
	require.Equal(t, 201, status)
	onB := &client{t: t, base: b, token: alice.token}
	status, m := onB.do("GET", "/api/articles?author=alice", nil)
	assert.Equal(t, 200, status)
	assert.Equal(t, float64(1), m["articlesCount"], "one instance sees the other's writes")
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestProductionPlugins(t *testing.T) {
	t.Parallel()
	base := start(t, "-cors-origins", "https://app.example")
	anon := &client{t: t, base: base}
	alice := anon.register("alice")
	for i := range 30 {
		status, _ := alice.do("POST", "/api/articles", map[string]any{"article": map[string]any{"title": "t" + itoa(i), "description": "d", "body": "b"}})
		require.Equal(t, 201, status)
	}
	get := func(path string, header map[string]string) *http.Response {
		req, err := http.NewRequest("GET", base+path, nil)
		require.NoError(t, err)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := get("/api/articles", map[string]string{"Accept-Encoding": "gzip", "Origin": "https://app.example"})
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"), "a list of 20 articles is compressed")
	assert.Equal(t, "https://app.example", res.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'")
	res = get("/api/articles", map[string]string{"Origin": "https://evil.example"})
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))

	// Log-in attempts are limited per client address: ten a minute. The
	// attempts are sent at once, so that the limit is met before a slow
	// password check (bcrypt, under the race detector) lets the budget
	// refill.
	statuses := make(chan int, 2*loginsPerMinute)
	var wg sync.WaitGroup
	for range 2 * loginsPerMinute {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(map[string]any{"user": map[string]any{"email": "alice@example.com", "password": "wrong-password"}})
			res, err := http.Post(base+"/api/users/login", "application/json", bytes.NewReader(b))
			if err != nil {
				statuses <- 0
				return
			}
			res.Body.Close()
			statuses <- res.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	assert.Positive(t, count[429], "%v", count)
	status, _ := anon.do("GET", "/api/articles", nil)
	assert.Equal(t, 200, status, "the limit is log-in's only")
}

// A password bcrypt cannot hash — more than 72 bytes, though 72
// characters or fewer — is a 422 naming the field, at sign-up and at
// update, not a 500.
func TestAPasswordPast72BytesIsRefused(t *testing.T) {
	t.Parallel()
	base := start(t)
	anon := &client{t: t, base: base}
	user := anon.register("carol")
	tests := []struct {
		name, password string
		fits           bool
	}{
		{"72 letters of two bytes", strings.Repeat("é", 72), false},
		{"37 letters of two bytes", strings.Repeat("é", 37), false},
		{"36 letters of two bytes", strings.Repeat("é", 36), true},
		{"72 ASCII letters", strings.Repeat("a", 72), true},
		{"18 letters of four bytes and one more", strings.Repeat("😀", 18) + "a", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "u" + itoa(i)
			status, m := anon.do("POST", "/api/users", map[string]any{"user": map[string]any{"username": name, "email": name + "@example.com", "password": tt.password}})
			status2, m2 := user.do("PUT", "/api/user", map[string]any{"user": map[string]any{"password": tt.password}})
			if tt.fits {
				assert.Equal(t, 201, status, "%v", m)
				assert.Equal(t, 200, status2, "%v", m2)
				return
			}
			refused := map[string]any{"errors": map[string]any{"password": []any{"must NOT have more than 72 bytes"}}}
			assert.Equal(t, 422, status)
			assert.Equal(t, refused, m)
			assert.Equal(t, 422, status2)
			assert.Equal(t, refused, m2)
		})
	}
}
