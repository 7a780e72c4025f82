package otel_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/otel"
)

// tx is a request-scoped "transaction": its cleanup commits, or rolls
// back a failed request; a commit of a tx marked refuse fails.
type tx struct {
	refuse bool
	span   string // the span the constructor ran in
}

var errCommit = errors.New("commit refused: serialization failure")

func beginTx(ctx context.Context, _ struct{}) (*tx, func(failed bool) error, error) {
	t := &tx{}
	if sp, ok := trace.SpanFromContext(ctx).(sdktrace.ReadOnlySpan); ok {
		t.span = sp.Name()
	}
	return t, func(failed bool) error {
		if !failed && t.refuse {
			return errCommit
		}
		return nil
	}, nil
}

// txServer traces the api context with lifecycle spans; the root
// provides the transaction to api and to an untraced sibling.
func txServer(t *testing.T, tp trace.TracerProvider) *httptest.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.ProvideRequest(app.Provider(beginTx)))
	s.Register(func(api *app.Server) error {
		api.Register(otel.Plugin(options(tp, otel.LifecycleSpans())...))
		api.Get("/orders/:outcome", func(req *httpx.Request, t *tx) (string, error) {
			switch req.Param("outcome") {
			case "fail":
				return "", errors.New("insert failed")
			case "refuse":
				t.refuse = true
			}
			return t.span, nil
		})
		return api.Get("/plain", func() (string, error) { return "plain", nil })
	}, app.Prefix("/api"), app.Name("api"))
	s.Register(func(other *app.Server) error {
		return other.Get("/orders", func(t *tx) (string, error) { return t.span, nil })
	}, app.Name("other"))
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// TestRequestValueSpans: with lifecycle spans, a request value's
// constructor and its cleanup (a commit or a rollback) are child spans
// of the request's, in order, beside the handler's; a failing commit is
// recorded on the cleanup's span, with status Error.
func TestRequestValueSpans(t *testing.T) {
	t.Parallel()
	type span struct {
		name   string
		failed string // burrow.request.failed, on a cleanup
		err    bool   // an exception event and status Error
	}
	for _, c := range []struct {
		outcome string
		status  int
		spans   []span
	}{
		{"ok", 200, []span{{"requestValue *otel_test.tx", "", false}, {"handler anonymous", "", false},
			{"cleanup *otel_test.tx", "false", false}}},
		{"fail", 500, []span{{"requestValue *otel_test.tx", "", false}, {"handler anonymous", "", true},
			{"cleanup *otel_test.tx", "true", false}, {"onError recordError", "", false}}},
		{"refuse", 500, []span{{"requestValue *otel_test.tx", "", false}, {"handler anonymous", "", false},
			{"cleanup *otel_test.tx", "false", true}, {"onError recordError", "", false}}},
	} {
		t.Run(c.outcome, func(t *testing.T) {
			t.Parallel()
			tp, rec := traced(t)
			srv := txServer(t, tp)
			status, body := get(t, srv.URL+"/api/orders/"+c.outcome)
			require.Equal(t, c.status, status)
			if status == 200 {
				assert.Equal(t, "requestValue *otel_test.tx", body, "the constructor runs in its span")
			}
			ended := rec.Ended()
			require.Len(t, ended, len(c.spans)+1)
			server := ended[len(ended)-1]
			assert.Equal(t, "GET /api/orders/{outcome}", server.Name())
			for i, want := range c.spans {
				sp := ended[i]
				assert.Equal(t, want.name, sp.Name())
				assert.Equal(t, trace.SpanKindInternal, sp.SpanKind(), want.name)
				assert.Equal(t, server.SpanContext().SpanID(), sp.Parent().SpanID(), "%s is the request's child", want.name)
				a := attrs(sp)
				if want.failed != "" {
					assert.Equal(t, want.failed, a[otel.RequestFailedKey].String(), want.name)
				} else {
					assert.NotContains(t, a, otel.RequestFailedKey, want.name)
				}
				if want.err {
					assert.Equal(t, codes.Error, sp.Status().Code, want.name)
					require.Len(t, sp.Events(), 1, want.name)
					assert.Equal(t, "exception", sp.Events()[0].Name)
				} else {
					assert.Equal(t, codes.Unset, sp.Status().Code, want.name)
				}
			}
			if c.outcome == "refuse" {
				assert.Contains(t, server.Status().Description, "Internal Server Error")
				assert.Contains(t, ended[2].Status().Description, errCommit.Error())
			}
		})
	}
}

// TestRequestValueSpansScoped: a sibling context that is not traced
// builds and commits its transaction with no span; a traced route with
// no request value has its handler's span only.
func TestRequestValueSpansScoped(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	srv := txServer(t, tp)
	status, body := get(t, srv.URL+"/orders")
	require.Equal(t, 200, status)
	assert.Empty(t, body, "no span in the sibling's constructor")
	assert.Empty(t, rec.Ended())

	status, _ = get(t, srv.URL+"/api/plain")
	require.Equal(t, 200, status)
	assert.Equal(t, []string{"handler anonymous", "GET /api/plain"}, spanNames(rec.Ended()))
}

// TestRequestValuesWithoutLifecycleSpans: without the option, a request
// that builds and commits a value is its server span alone.
func TestRequestValuesWithoutLifecycleSpans(t *testing.T) {
	t.Parallel()
	tp, rec := traced(t)
	s := app.New()
	require.NoError(t, s.Register(otel.Plugin(options(tp)...)))
	require.NoError(t, s.ProvideRequest(app.Provider(beginTx)))
	s.Get("/orders", func(t *tx) (string, error) { return t.span, nil })
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	status, body := get(t, srv.URL+"/orders")
	require.Equal(t, 200, status)
	assert.Equal(t, "GET /orders", body, "the constructor runs in the request's span")
	require.Len(t, rec.Ended(), 1)
	assert.Equal(t, "GET /orders", rec.Ended()[0].Name())
}
