package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cache"
)

func TestMain(m *testing.M) { apptest.Main(m) }

type item struct {
	N int `json:"n"`
}

// server serves, behind the cache, routes that count their calls.
func server(t *testing.T, store cache.Store) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	s := apptest.New(t)
	require.NoError(t, s.Register(cache.Plugin(store)))
	count := func(context.Context, struct{}) (item, error) { return item{int(calls.Add(1))}, nil }
	public := app.CacheControl("public, max-age=60")
	require.NoError(t, app.Get(s, "/public", count, public, app.ETag()))
	require.NoError(t, app.Get(s, "/items/:id", func(_ context.Context, in struct {
		app.In
		ID int `path:"id"`
	}) (item, error) {
		calls.Add(1)
		return item{in.ID}, nil
	}, public))
	require.NoError(t, app.Get(s, "/private", count, app.CacheControl("private, max-age=60")))
	require.NoError(t, app.Get(s, "/nocache", count, app.CacheControl("public, no-cache")))
	require.NoError(t, app.Get(s, "/none", count))
	require.NoError(t, app.Get(s, "/shared", count, public, app.WithConfig(cache.Shared{})))
	require.NoError(t, s.Get("/cookie", func(rep *httpx.Reply) error {
		calls.Add(1)
		rep.SetHeader("Cache-Control", "public, max-age=60")
		rep.SetHeader("Set-Cookie", "a=b")
		return rep.Send(item{1})
	}))
	require.NoError(t, s.Get("/vary", func(req *httpx.Request, rep *httpx.Reply) error {
		calls.Add(1)
		rep.SetHeader("Cache-Control", "public, s-maxage=60")
		rep.SetHeader("Vary", "Accept-Language")
		return rep.Send("hello " + req.Raw().Header.Get("Accept-Language"))
	}))
	require.NoError(t, s.Get("/error", func() (item, error) {
		calls.Add(1)
		return item{}, httpx.NewError(http.StatusNotFound, "NOPE", "no")
	}, app.CacheControl("public, max-age=60")))
	return apptest.Serve(t, s), &calls
}

// TestStoresPublicAnswers: a public answer is served from the store the
// second time, with its headers, an Age and the same body, and 304 to a
// matching If-None-Match; path parameters and the query key entries.
func TestStoresPublicAnswers(t *testing.T) {
	t.Parallel()
	url, calls := server(t, cache.NewMemory())
	first := apptest.Fetch(t, "GET", url+"/public")
	require.Equal(t, 200, first.StatusCode)
	second := apptest.Fetch(t, "GET", url+"/public")
	assert.Equal(t, first.Body, second.Body)
	assert.Equal(t, int64(1), calls.Load(), "served from the store")
	assert.Equal(t, first.Header.Get("ETag"), second.Header.Get("ETag"))
	assert.Equal(t, "public, max-age=60", second.Header.Get("Cache-Control"))
	assert.Equal(t, "0", second.Header.Get("Age"))
	assert.Equal(t, "application/json; charset=utf-8", second.Header.Get("Content-Type"))
	nm := apptest.Fetch(t, "GET", url+"/public", "If-None-Match", first.Header.Get("ETag"))
	assert.Equal(t, 304, nm.StatusCode)
	assert.Empty(t, nm.Body)
	head := apptest.Fetch(t, "HEAD", url+"/public")
	assert.Equal(t, 200, head.StatusCode)
	assert.Empty(t, head.Body)
	assert.Equal(t, int64(1), calls.Load())

	refreshed := apptest.Fetch(t, "GET", url+"/public", "Cache-Control", "no-cache")
	assert.Equal(t, int64(2), calls.Load(), "no-cache: the handler answers")
	assert.JSONEq(t, `{"n":2}`, refreshed.Body)
	assert.JSONEq(t, `{"n":2}`, apptest.Fetch(t, "GET", url+"/public").Body, "and the entry is refreshed")

	for _, p := range []string{"/items/1", "/items/2", "/items/1?x=1", "/items/1", "/items/2", "/items/1?x=1"} {
		res := apptest.Fetch(t, "GET", url+p)
		assert.JSONEq(t, fmt.Sprintf(`{"n":%c}`, p[7]), res.Body, p)
	}
	assert.Equal(t, int64(5), calls.Load(), "three keys, each stored once")
}

// TestWhatIsNotStored: private, no-cache and unmarked answers, errors,
// an answer that sets a cookie, and a request with credentials go to
// the handler every time; Shared lets a request with credentials share.
func TestWhatIsNotStored(t *testing.T) {
	t.Parallel()
	url, calls := server(t, cache.NewMemory())
	for _, tt := range []struct {
		path   string
		header []string
		calls  int64
	}{
		{"/private", nil, 2},
		{"/nocache", nil, 2},
		{"/none", nil, 2},
		{"/error", nil, 2},
		{"/cookie", nil, 2},
		{"/public", []string{"Authorization", "Bearer x"}, 2},
		{"/public", []string{"Cookie", "sid=1"}, 2},
		{"/shared", []string{"Authorization", "Bearer x"}, 1},
	} {
		before := calls.Load()
		apptest.Fetch(t, "GET", url+tt.path, tt.header...)
		apptest.Fetch(t, "GET", url+tt.path, tt.header...)
		assert.Equal(t, tt.calls, calls.Load()-before, "%s %v", tt.path, tt.header)
	}
	// A credentialed request neither reads nor fills the public entry.
	before := calls.Load()
	apptest.Fetch(t, "GET", url+"/public")
	bearer := apptest.Fetch(t, "GET", url+"/public", "Authorization", "Bearer x")
	assert.Equal(t, int64(2), calls.Load()-before)
	assert.Empty(t, bearer.Header.Get("Age"))
}

// TestVary: entries are keyed by the values of the headers the answer
// varies by.
func TestVary(t *testing.T) {
	t.Parallel()
	url, calls := server(t, cache.NewMemory())
	for range 2 {
		assert.Equal(t, "hello fr", apptest.Fetch(t, "GET", url+"/vary", "Accept-Language", "fr").Body)
		assert.Equal(t, "hello de", apptest.Fetch(t, "GET", url+"/vary", "Accept-Language", "de").Body)
		assert.Equal(t, "hello ", apptest.Fetch(t, "GET", url+"/vary").Body)
	}
	assert.Equal(t, int64(3), calls.Load())
}

// TestMemoryBounds: the memory store holds at most its entries and
// bytes, dropping the least recently used first; an expired entry is
// gone.
func TestMemoryBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := cache.NewMemory(cache.MaxEntries(2), cache.MaxBytes(100))
	require.NoError(t, m.Set(ctx, "a", []byte("1"), time.Minute))
	require.NoError(t, m.Set(ctx, "b", []byte("2"), time.Minute))
	_, _ = m.Get(ctx, "a") // a is now the most recently used
	require.NoError(t, m.Set(ctx, "c", []byte("3"), time.Minute))
	assert.Equal(t, 2, m.Len())
	b, _ := m.Get(ctx, "b")
	assert.Nil(t, b, "b went first")
	a, _ := m.Get(ctx, "a")
	assert.Equal(t, "1", string(a))
	require.NoError(t, m.Set(ctx, "big", []byte(strings.Repeat("x", 200)), time.Minute))
	big, _ := m.Get(ctx, "big")
	assert.Nil(t, big, "larger than the store")
	require.NoError(t, m.Set(ctx, "d", []byte(strings.Repeat("x", 98)), time.Minute))
	assert.Equal(t, 1, m.Len(), "the bytes bound pushes the others out")
	require.NoError(t, m.Set(ctx, "gone", []byte("x"), time.Nanosecond))
	assert.Eventually(t, func() bool { v, _ := m.Get(ctx, "gone"); return v == nil }, time.Second, time.Millisecond)
}

// failing is a store that always fails.
type failing struct{}

func (failing) Get(context.Context, string) ([]byte, error) { return nil, fmt.Errorf("down") }
func (failing) Set(context.Context, string, []byte, time.Duration) error {
	return fmt.Errorf("down")
}

// TestFailingStore: a store that fails leaves every request to the
// handler.
func TestFailingStore(t *testing.T) {
	t.Parallel()
	url, calls := server(t, failing{})
	for range 3 {
		assert.Equal(t, 200, apptest.Fetch(t, "GET", url+"/public").StatusCode)
	}
	assert.Equal(t, int64(3), calls.Load())
}

// TestNilStore: the plugin refuses a nil store at start-up.
func TestNilStore(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(cache.Plugin(nil))
	assert.ErrorContains(t, s.Ready(), "store is nil")
}
