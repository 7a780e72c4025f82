package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// observed records what an Observer hears, as "start|end kind route
// context status".
type observed struct {
	mu    sync.Mutex
	lines []string
}

func (o *observed) observer(name string) app.Observer {
	line := func(what string, ob app.Observation) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.lines = append(o.lines, fmt.Sprintf("%s %s %s %q %s %d", name, what, ob.Request.Method, ob.Route, ob.Context, ob.Status))
	}
	return app.Observer{
		Start: func(ob app.Observation) context.Context { line("start", ob); return nil },
		End:   func(ob app.Observation) { line("end", ob) },
	}
}

func (o *observed) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.lines
	o.lines = nil
	return l
}

// TestObserveSeesEveryAnswerOfItsContexts: routes, not-found handlers and
// 405s, with or without middleware, each with its pattern and context;
// a sibling's requests are not seen.
func TestObserveSeesEveryAnswerOfItsContexts(t *testing.T) {
	t.Parallel()
	for _, withMW := range []bool{false, true} {
		t.Run(fmt.Sprint("middleware=", withMW), func(t *testing.T) {
			t.Parallel()
			rec := &observed{}
			s := app.New()
			require.NoError(t, s.Observe(rec.observer("root")))
			s.Get("/todos/:id", func(rep *httpx.Reply) error { return rep.Code(201).Send("x") })
			s.Register(func(api *app.Server) error {
				if withMW {
					api.Use(func(next http.Handler) http.Handler { return next })
				}
				api.Observe(rec.observer("api"))
				api.Get("/files/*", func() {})
				return api.Post("/items", func() error { return httpx.NewError(409, "TAKEN", "taken") })
			}, app.Prefix("/api"), app.Name("api"))
			s.Register(func(other *app.Server) error {
				other.Observe(rec.observer("other"))
				return nil
			}, app.Name("other"))
			require.NoError(t, s.Ready())

			for _, c := range []struct {
				method, target string
				want           []string
			}{
				{"GET", "/todos/7", []string{`root start GET "/todos/{id}" root 0`, `root end GET "/todos/{id}" root 201`}},
				{"GET", "/nowhere/1", []string{`root start GET "" root 0`, `root end GET "" root 404`}},
				{"POST", "/api/items", []string{
					`root start POST "/api/items" root > api 0`, `api start POST "/api/items" root > api 0`,
					`root end POST "/api/items" root > api 409`, `api end POST "/api/items" root > api 409`}},
				{"GET", "/api/files/a/b", []string{
					`root start GET "/api/files/{*...}" root > api 0`, `api start GET "/api/files/{*...}" root > api 0`,
					`root end GET "/api/files/{*...}" root > api 200`, `api end GET "/api/files/{*...}" root > api 200`}},
				{"DELETE", "/api/items", []string{
					`root start DELETE "" root > api 0`, `api start DELETE "" root > api 0`,
					`root end DELETE "" root > api 405`, `api end DELETE "" root > api 405`}},
			} {
				res, err := s.Inject(httptest.NewRequest(c.method, c.target, nil))
				require.NoError(t, err)
				res.Body.Close()
				assert.Equal(t, c.want, rec.take(), "%s %s", c.method, c.target)
			}
		})
	}
}

func TestObserveMatchAndDuration(t *testing.T) {
	t.Parallel()
	var ends []app.Observation
	s := app.New()
	s.Observe(app.Observer{End: func(o app.Observation) { ends = append(ends, o) }})
	s.Get("/a", func() {})
	require.NoError(t, s.Ready())
	for _, r := range []*http.Request{
		httptest.NewRequest("GET", "/a", nil),
		httptest.NewRequest("GET", "/b", nil),
		httptest.NewRequest("PUT", "/a", nil),
	} {
		res, err := s.Inject(r)
		require.NoError(t, err)
		res.Body.Close()
	}
	require.Len(t, ends, 3)
	assert.Equal(t, []httpx.Match{httpx.Found, httpx.NoRoute, httpx.MethodNotAllowed},
		[]httpx.Match{ends[0].Match, ends[1].Match, ends[2].Match})
	for _, o := range ends {
		assert.Positive(t, o.Duration)
	}
	assert.Zero(t, ends[0].Size, "an empty reply")
	assert.Positive(t, ends[1].Size, "the 404's body")
	assert.Positive(t, ends[2].Size, "the 405's body")
}

// TestObserveAfterReadyIsRefused: the observers are compiled into the
// routes.
func TestObserveAfterReadyIsRefused(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Ready())
	assert.ErrorIs(t, s.Observe(app.Observer{End: func(app.Observation) {}}), app.ErrAlreadyStarted)
}

// traceKey is where TestObserverContextAndLogFields' observer puts a
// request's "trace id".
type traceKey struct{}

// TestObserverContextAndLogFields: the context an observer's Start
// returns is the one middleware, hooks and the handler get, and the
// fields it reads from it are in every log line of the request: the
// access log's, the handler's, an error's, a panic's; a 404's and a
// 405's too.
func TestObserverContextAndLogFields(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.DebugLevel)
	var n atomic.Int64
	s := app.New(app.WithLogger(zap.New(core)))
	s.Observe(app.Observer{
		Start: func(o app.Observation) context.Context {
			return context.WithValue(o.Request.Context(), traceKey{}, fmt.Sprint("t", n.Add(1)))
		},
		LogFields: func(ctx context.Context) []zap.Field {
			id, _ := ctx.Value(traceKey{}).(string)
			return []zap.Field{zap.String("trace_id", id)}
		},
		End: func(o app.Observation) {
			if o.Request.Context().Value(traceKey{}) == nil {
				panic("End lost the context")
			}
		},
	})
	s.Get("/ok", func(req *httpx.Request) (string, error) {
		req.Log().Info("handler")
		req.Slog().Info("slog")
		return req.Context().Value(traceKey{}).(string), nil
	})
	s.Get("/fail", func() error { return errors.New("broken") })
	s.Get("/panic", func() error { panic("boom") })
	s.Register(func(c *app.Server) error {
		c.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Context().Value(traceKey{}) == nil {
					http.Error(w, "no trace", 500)
					return
				}
				next.ServeHTTP(w, r)
			})
		})
		return c.Get("/mw", func(req *httpx.Request) (string, error) {
			req.Log().Info("handler")
			return req.Context().Value(traceKey{}).(string), nil
		})
	}, app.Prefix("/c"))
	require.NoError(t, s.Ready())
	for _, c := range []struct {
		method, target string
		status         int
		body           bool
	}{
		{"GET", "/ok", 200, true},
		{"GET", "/fail", 500, false},
		{"GET", "/panic", 500, false},
		{"GET", "/nowhere", 404, false},
		{"PUT", "/ok", 405, false},
		{"GET", "/c/mw", 200, true},
		{"PUT", "/c/mw", 405, false},
	} {
		logs.TakeAll()
		res, err := s.Inject(httptest.NewRequest(c.method, c.target, nil))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, c.status, res.StatusCode, "%s %s: %s", c.method, c.target, body)
		want := fmt.Sprint("t", n.Load())
		if c.body {
			assert.Equal(t, want, string(body), "the handler's context")
		}
		entries := logs.All()
		require.GreaterOrEqual(t, len(entries), 2)
		for _, e := range entries {
			assert.Equal(t, want, e.ContextMap()["trace_id"], "%s %s: %q", c.method, c.target, e.Message)
			assert.Contains(t, e.ContextMap(), "reqId", "%s %s: %q", c.method, c.target, e.Message)
		}
	}
}

// stepKey is where TestObserverSteps' Step puts the step it runs.
type stepKey struct{}

// TestObserverSteps: Step runs around each hook and the handler, in
// order, with their names; what it returns is the context the step
// sees, and the request's again after it; the end hears the error.
func TestObserverSteps(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	s := app.New()
	s.Observe(app.Observer{Step: func(ctx context.Context, st app.Step) (context.Context, func(error)) {
		return context.WithValue(ctx, stepKey{}, st.Kind), func(err error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%s %s %v", st.Kind, st.Name, err))
		}
	}})
	s.AddHook(app.OnRequest, stepAuth)
	s.AddHook(app.OnError, func(req *httpx.Request, err error) {})
	s.AddHook(app.OnResponse, func(req *httpx.Request) {})
	s.Get("/", func(req *httpx.Request) (string, error) { return stepSeen(req), nil })
	require.NoError(t, s.Ready())

	res, err := s.Inject(httptest.NewRequest("GET", "/", nil))
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, "handler", string(body))
	mu.Lock()
	assert.Len(t, got, 3)
	assert.Equal(t, "onRequest stepAuth <nil>", got[0])
	assert.Equal(t, "handler anonymous <nil>", got[1])
	assert.Equal(t, "onResponse anonymous <nil>", got[2])
	got = nil
	mu.Unlock()

	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Deny", "1")
	res, err = s.Inject(r)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 403, res.StatusCode)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"onRequest stepAuth 403 DENIED: denied", "onError anonymous <nil>", "onResponse anonymous <nil>"}, got)
}

func stepSeen(req *httpx.Request) string { v, _ := req.Context().Value(stepKey{}).(string); return v }

// stepAuth is a named onRequest hook that refuses X-Deny, and checks it
// runs in its step's context.
func stepAuth(req *httpx.Request) error {
	if stepSeen(req) != "onRequest" {
		return errors.New("the hook does not run in its step's context")
	}
	if req.Header("X-Deny") != "" {
		return httpx.NewError(403, "DENIED", "denied")
	}
	return nil
}

// txn is a request value whose cleanup commits or rolls back.
type txn struct{ step string }

// TestObserverStepsRequestValues: a request value's constructor and its
// cleanup are steps of their own in an observed context, the cleanup
// told whether it rolls back and hearing its error; an unobserved
// sibling has none.
func TestObserverStepsRequestValues(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	s := app.New()
	s.ProvideRequest(app.Provider(func(ctx context.Context, _ struct{}) (*txn, func(failed bool) error, error) {
		tx := &txn{}
		tx.step, _ = ctx.Value(stepKey{}).(string)
		return tx, func(failed bool) error {
			if !failed && tx.step == "fail commit" {
				return errors.New("commit refused")
			}
			return nil
		}, nil
	}))
	s.Register(func(api *app.Server) error {
		api.Observe(app.Observer{Step: func(ctx context.Context, st app.Step) (context.Context, func(error)) {
			return context.WithValue(ctx, stepKey{}, st.Kind), func(err error) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, fmt.Sprintf("%s %s failed=%v %v", st.Kind, st.Name, st.Failed, err))
			}
		}})
		api.Get("/tx/:outcome", func(req *httpx.Request, tx *txn) (string, error) {
			switch req.Param("outcome") {
			case "fail":
				return "", errors.New("handler failed")
			case "refuse":
				tx.step = "fail commit"
			}
			return tx.step, nil
		})
		return nil
	}, app.Prefix("/api"))
	s.Get("/plain", func(tx *txn) (string, error) { return tx.step, nil })
	require.NoError(t, s.Ready())

	for _, c := range []struct {
		target string
		status int
		body   string
		steps  []string
	}{
		{"/api/tx/ok", 200, "requestValue", []string{
			"requestValue *app_test.txn failed=false <nil>",
			"handler anonymous failed=false <nil>",
			"cleanup *app_test.txn failed=false <nil>",
		}},
		{"/api/tx/fail", 500, "", []string{
			"requestValue *app_test.txn failed=false <nil>",
			"handler anonymous failed=false handler failed",
			"cleanup *app_test.txn failed=true <nil>",
		}},
		{"/api/tx/refuse", 500, "", []string{
			"requestValue *app_test.txn failed=false <nil>",
			"handler anonymous failed=false <nil>",
			"cleanup *app_test.txn failed=false commit refused",
		}},
		{"/plain", 200, "", nil},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		res, err := s.Inject(httptest.NewRequest("GET", c.target, nil))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, c.status, res.StatusCode, c.target)
		if c.status == 200 {
			assert.Equal(t, c.body, string(body), "the constructor runs in its step's context")
		}
		mu.Lock()
		assert.Equal(t, c.steps, got, c.target)
		mu.Unlock()
	}
}
