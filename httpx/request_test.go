package httpx_test

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/compiled"
)

type user struct{ name string }

func TestRequestAccessors(t *testing.T) {
	route := &httpx.RouteInfo{Method: "GET", Path: "/u/:id"}
	decorators := &plan{
		Slots:   map[string]int{"answer": 0, "user": 2},
		Types:   []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[string](), reflect.TypeFor[*user]()},
		Initial: []compiled.SlotValue{{Index: 0, Value: 42}, {Index: 2, Value: (*user)(nil)}},
	}
	raw := httptest.NewRequest("GET", "/u/7?a=1&a=2&b=x", nil)
	raw.Header.Set("X-Test", "yes")
	var x httpx.Exchange
	*x.Params() = append(*x.Params(), httpx.Param{Key: "id", Value: "7"})
	r, _ := x.Begin(httptest.NewRecorder(), raw, route, decorators, 35, "", nil)

	assert.Equal(t, "7", r.Param("id"))
	assert.Equal(t, "", r.Param("nope"))
	assert.Equal(t, "1", r.Query("a"))
	assert.Equal(t, []string{"1", "2"}, r.QueryValues()["a"])
	assert.Equal(t, "yes", r.Header("x-test"))
	assert.Equal(t, "GET", r.Method())
	assert.Equal(t, "req-z", r.ID(), "base 36")
	assert.NotNil(t, r.Log())
	assert.Same(t, route, r.Route())

	v, ok := r.Decorator("answer")
	assert.True(t, ok)
	assert.Equal(t, 42, v)
	_, ok = r.Decorator("hidden")
	assert.False(t, ok, "slot 1 is not visible from this route")

	assert.ErrorIs(t, r.SetDecorator("hidden", "x"), httpx.ErrUnknownDecorator)
	assert.ErrorIs(t, r.SetDecorator("answer", "42"), httpx.ErrDecoratorType)
	require.NoError(t, r.SetDecorator("answer", 43))
	assert.Equal(t, 43, x.Slot(0))
	require.NoError(t, r.SetDecorator("user", &user{name: "ada"}))
	require.NoError(t, r.SetDecorator("user", nil), "nil is a valid pointer value")

	ctx, cancel := context.WithCancel(context.Background())
	r.SetContext(ctx)
	cancel()
	assert.Error(t, r.Context().Err())

	x.End()
	assert.PanicsWithError(t, "httpx.Request used after its handler returned; "+
		"keep the values a goroutine needs (ID, headers, decoded input, context, logger), not the *httpx.Request",
		func() { r.Params() })
	r2, _ := x.Begin(httptest.NewRecorder(), raw, route, decorators, 1, "from-header", nil)
	assert.Empty(t, r2.Params(), "the parameter buffer was cleared")
	assert.Equal(t, "from-header", r2.ID())
	assert.Equal(t, 42, x.Slot(0), "a new request starts from the declared values")
	assert.NoError(t, r2.Context().Err(), "the replaced context does not outlive its request")
	assert.Panics(t, func() { r.ID() }, "the old Request stays ended while its buffers serve the next")
}

// beginUser begins target on x as a request of route /u/:id with id 7,
// which sees one decorator, "answer", starting at 42.
func beginUser(x *httpx.Exchange, target string) *httpx.Request {
	route := &httpx.RouteInfo{Method: "GET", Path: "/u/:id"}
	decorators := &plan{
		Slots:   map[string]int{"answer": 0},
		Types:   []reflect.Type{reflect.TypeFor[int]()},
		Initial: []compiled.SlotValue{{Index: 0, Value: 42}},
	}
	*x.Params() = append(*x.Params(), httpx.Param{Key: "id", Value: "7"})
	r, _ := x.Begin(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil), route, decorators, 1, "", nil)
	return r
}

func TestDetachedSharesNothingTheHandlerChanges(t *testing.T) {
	var x httpx.Exchange
	r := beginUser(&x, "/u/7?q=1")
	d := r.Detached()
	assert.Equal(t, r.ID(), d.ID())
	assert.Equal(t, "1", d.Query("q"))
	_, ok := d.Decorator("answer")
	assert.False(t, ok, "a detached request has no decorators")
	assert.ErrorIs(t, d.SetDecorator("answer", 1), httpx.ErrUnknownDecorator)
	x.End()
	assert.Equal(t, "7", d.Param("id"), "its parameters are its own")
	assert.Equal(t, "/u/7", d.URL().Path)
}
