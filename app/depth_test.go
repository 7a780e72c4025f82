package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// stackDepthLimit is how much stack may lie between a caller of ServeHTTP
// and a plain typed route's handler. A handler that goes deep (a query
// through database/sql and a pure-Go SQLite) must find the goroutine's
// first stack nearly as a net/http handler does, or every garbage
// collection shrinks the stack and the next request grows it again by
// copying: a few hundred bytes decide it. Measured from a local of the
// caller to one of the handler, the path takes about 400 bytes (about 700
// under the race detector, which instruments it); with the rare cases in
// it, it took about 1,100 (2,000).
func stackDepthLimit() uintptr {
	if raceEnabled {
		return 900
	}
	return 512
}

// stackAt is the address of one of its caller's locals, on the stack.
//
//go:noinline
func stackAt(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// growStack grows the goroutine's stack, so that the request measured
// below does not move it: an address taken before a move means nothing
// after it.
//
//go:noinline
func growStack(n int) byte {
	var buf [1024]byte
	buf[n%len(buf)] = byte(n)
	if n > 0 {
		return growStack(n-1) + buf[0]
	}
	return buf[1]
}

func TestAPlainRouteRunsItsHandlerCloseToServeHTTP(t *testing.T) {
	t.Parallel()
	var inner uintptr
	s := app.New()
	require.NoError(t, app.Get(s, "/deep", func(context.Context, struct{}) (string, error) {
		var mark byte
		inner = stackAt(&mark)
		return "ok", nil
	}))
	s.AddHook(app.OnRequest, func(*httpx.Reply) error { return nil }) // a hook phase to run, as most servers have
	require.NoError(t, s.Ready())
	// A collection may shrink the stack while the request is preempted,
	// which moves it: that request is served again.
	var depth uintptr
	for range 20 {
		done := make(chan uintptr)
		go func() {
			growStack(16)
			var mark byte
			outer := stackAt(&mark)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/deep", nil))
			if w.Code != http.StatusOK || stackAt(&mark) != outer {
				done <- 0
				return
			}
			done <- outer - inner
		}()
		if depth = <-done; depth != 0 {
			break
		}
	}
	require.NotZero(t, depth, "one request of 20 was served without moving the stack")
	assert.Less(t, depth, stackDepthLimit(), "bytes of stack between ServeHTTP's caller and the handler")
	t.Logf("%d bytes of stack between ServeHTTP's caller and the handler", depth)
}
