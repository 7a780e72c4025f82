package httpx_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

// What a handler receives offers only what a handler author needs: the
// operations that drive the pool or read the plumbing (reset, clear, slots
// by index, the decoded input, the send hooks) are the Exchange's. A new
// exported method on Request or Reply has to be added here on purpose.
func TestHandlerTypesShowNoPlumbing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[*httpx.Request](), []string{"Body", "BodyReader", "ClientIP", "Context", "Cookie", "Cookies", "Decorator", "Detached",
			"Header", "Headers", "ID", "Log", "Method", "Param", "Params", "Query", "QueryErr", "QueryValues",
			"Raw", "Route", "SetBodyReader", "SetContext", "SetDecorator", "Slog", "URL"}},
		{reflect.TypeFor[*httpx.Reply](), []string{"Code", "Header", "Raw", "Request", "SSE", "Send", "SendError",
			"Sent", "ServeContent", "SetCookie", "SetHeader", "SetWriteTimeout", "Status", "Stream", "Type"}},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			t.Parallel()
			var got []string
			for i := range tt.typ.NumMethod() {
				got = append(got, tt.typ.Method(i).Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
	var fields []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[httpx.RouteInfo]()) {
		if f.IsExported() {
			fields = append(fields, f.Name)
		}
	}
	assert.Equal(t, []string{"Method", "Path", "Context", "Pattern"}, fields, "RouteInfo describes the route, nothing else")
}

func TestExchangeHandsOutThePairOfTheRequest(t *testing.T) {
	t.Parallel()
	var x httpx.Exchange
	assert.Nil(t, x.Request(), "before Begin")
	assert.Nil(t, x.Reply(), "before Begin")
	req, rep := x.Begin(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), nil, nil, 1, "", nil)
	assert.Same(t, req, x.Request())
	assert.Same(t, rep, x.Reply())
	assert.Same(t, req, rep.Request())
	x.End()
	assert.Nil(t, x.Request(), "after End")
	assert.Nil(t, x.Reply(), "after End")
}

func TestDetachedExchange(t *testing.T) {
	t.Parallel()
	var x httpx.Exchange
	req := beginUser(&x, "/u/7")
	_, ok := req.Decorator("answer")
	require.True(t, ok)
	x.Input()[0] = new(int)
	d := new(httpx.Exchange)
	x.Detach(d)
	assert.Nil(t, d.Reply(), "hooks beside the handler cannot answer")
	assert.Equal(t, req.ID(), d.Request().ID())
	assert.Nil(t, d.Input()[0], "no decoded input")
	_, ok = d.Request().Decorator("answer")
	assert.False(t, ok, "no decorators")
	x.End()
	assert.Equal(t, "7", d.Request().Param("id"), "its state is its own, after the request ends")
}

func TestSkipSendHooks(t *testing.T) {
	t.Parallel()
	hooks := &plan{OnSend: []func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error){
		func(_ *httpx.Request, _ *httpx.Reply, b []byte) ([]byte, error) {
			return append([]byte("hooked "), b...), nil
		},
	}}
	for _, skip := range []bool{false, true} {
		var x httpx.Exchange
		w := httptest.NewRecorder()
		_, rep := x.Begin(w, httptest.NewRequest("GET", "/", nil), nil, hooks, 1, "", nil)
		if skip {
			x.SkipSendHooks()
		}
		require.NoError(t, rep.Send("body"))
		want := "hooked body"
		if skip {
			want = "body"
		}
		assert.Equal(t, want, w.Body.String())
		x.End()
	}
}

// BeforeWrite runs once, right before Send writes: a failing one leaves
// the reply unsent, for the error reply; a Send that fails first (an
// invalid status, an encoding error) leaves it unarmed.
func TestExchangeBeforeWrite(t *testing.T) {
	t.Parallel()
	refused := errors.New("refused")
	tests := []struct {
		name     string
		status   int
		v        any
		before   error
		calls    int
		sendErr  error
		wantCode int
	}{
		{"runs, then the reply is written", http.StatusOK, "hi", nil, 1, nil, http.StatusOK},
		{"fails: nothing is written", http.StatusOK, "hi", refused, 1, refused, 0},
		{"not reached: an invalid status", http.StatusEarlyHints, "hi", nil, 0, httpx.ErrInvalidStatus, 0},
		{"not reached: an encoding error", http.StatusOK, func() {}, nil, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var x httpx.Exchange
			w := httptest.NewRecorder()
			_, rep := x.Begin(w, httptest.NewRequest("GET", "/", nil), nil, nil, 1, "", nil)
			calls := 0
			x.BeforeWrite(func(got *httpx.Exchange) error {
				calls++
				assert.Same(t, &x, got)
				assert.Zero(t, w.Body.Len(), "nothing written yet")
				return tt.before
			})
			err := rep.Code(tt.status).Send(tt.v)
			assert.Equal(t, tt.calls, calls)
			if tt.sendErr != nil {
				assert.ErrorIs(t, err, tt.sendErr)
			}
			if tt.wantCode == 0 {
				require.Error(t, err)
				assert.False(t, rep.Sent(), "the error reply can answer")
				assert.Zero(t, w.Body.Len())
				require.NoError(t, rep.Code(http.StatusInternalServerError).Send("error"))
				assert.Equal(t, http.StatusInternalServerError, w.Code)
				assert.Equal(t, tt.calls, calls, "a failed or skipped BeforeWrite does not run again")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.wantCode, w.Code)
			}
			x.End()
		})
	}
}
