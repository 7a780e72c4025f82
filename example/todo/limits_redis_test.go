package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/internal/redistest"
)

// TestTwoInstancesShareLimits: two instances on one Redis, -rate-limit
// 10: ten of alice's requests alternating between them pass, the
// eleventh, to either, is 429; the per-address budget is shared too; a
// session begun on one works on the other, and spends the same budget.
func TestTwoInstancesShareLimits(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	args := []string{"-users", users, "-redis", r.URL(1), "-rate-limit", "10", "-rate-limit-ip", "3"}
	a := start(t, env(), zap.NewNop(), args...)
	b := start(t, env(), zap.NewNop(), args...)
	instances := []*service{a, b}
	for i := range 10 {
		res := instances[i%2].do(t, "GET", "/todos", alice, "", "")
		assert.Equal(t, http.StatusOK, res.status, "request %d", i+1)
		assertCounted(t, res, "user", 10, 9-i)
	}
	assertRefused(t, a.do(t, "GET", "/todos", alice, "", ""), "user", 10)
	assertRefused(t, b.do(t, "GET", "/todos", alice, "", ""), "user", 10)

	cookie := logIn(t, a, "bob", "tokenB") // the address's first
	res := b.exchange(t, "GET", "/todos", "", "Cookie", cookie)
	assert.Equal(t, http.StatusOK, res.status, "a session of a is valid on b")
	assertCounted(t, res, "user", 10, 9)
	res = a.do(t, "GET", "/todos", bob, "", "")
	assertCounted(t, res, "user", 10, 8)

	assertCounted(t, b.do(t, "GET", "/todos", "Bearer guess", "", ""), "ip", 3, 1)
	assertCounted(t, a.do(t, "GET", "/nowhere", "", "", ""), "ip", 3, 0)
	assertRefused(t, b.do(t, "GET", "/todos", "Bearer guess", "", ""), "ip", 3)
}

// TestRedisOutage: Redis stopped (SIGSTOP) or killed while serving:
// requests are still answered, each within a second (the limits fall
// back to the instance's memory); /readyz fails naming redis until it is
// back; one line at level warn names redis per outage.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	s, admin, logs := startAdmin(t, "-redis", r.URL(2), "-rate-limit", "100000")
	c := s.client
	ready := func(code int, rb readyBody) bool { return code == http.StatusOK }
	_, rb := waitReadyz(t, c, admin, ready)
	assert.Equal(t, readyBody{Status: "ready", Checks: map[string]string{"db": "ok", "redis": "ok"}}, rb)

	// A second at most per request, on a connection of its own.
	quick := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	ask := func() {
		t.Helper()
		req, err := http.NewRequest("GET", s.base+"/todos", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", alice)
		res, err := quick.Do(req)
		require.NoError(t, err, "answered within a second")
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
	}
	warnings := func() int {
		return logs.Filter(func(e observer.LoggedEntry) bool {
			return e.Level == zapcore.WarnLevel && strings.Contains(strings.ToLower(e.Message+fmt.Sprint(e.ContextMap())), "redis")
		}).Len()
	}
	outages := []struct {
		name       string
		stop, back func(testing.TB)
	}{
		{"paused", r.Pause, r.Resume},
		{"killed", r.Kill, r.Restart},
	}
	for i, o := range outages {
		o.stop(t)
		for range 3 {
			ask()
		}
		code, rb := waitReadyz(t, c, admin, func(code int, _ readyBody) bool { return code != http.StatusOK })
		assert.Equal(t, http.StatusServiceUnavailable, code, o.name)
		assert.Equal(t, "failing", rb.Status)
		assert.Equal(t, "ok", rb.Checks["db"])
		assert.NotEqual(t, "ok", rb.Checks["redis"], o.name)
		assert.NotEmpty(t, rb.Checks["redis"])
		// Serve through a few of the checks' runs: still one warning.
		for until := time.Now().Add(3 * checkInterval); time.Now().Before(until); {
			ask()
			time.Sleep(50 * time.Millisecond) // a steady trickle, not a flood
		}
		assert.Equal(t, i+1, warnings(), "%s: one warning naming redis per outage", o.name)
		o.back(t)
		_, rb = waitReadyz(t, c, admin, ready)
		assert.Equal(t, readyBody{Status: "ready", Checks: map[string]string{"db": "ok", "redis": "ok"}}, rb, o.name)
		ask()
	}
	assert.Equal(t, len(outages), warnings())
}
