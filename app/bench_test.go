package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// The reference example's /three, built the same way as example/: the
// handler receives answer, foo and bar through an In struct.
type threeValues struct {
	app.In
	Answer int    `name:"answer"`
	Foo    string `name:"foo" optional:"true"`
	Bar    string `name:"bar" optional:"true"`
}

type threeBody struct {
	Answer int    `json:"answer"`
	Foo    string `json:"foo,omitempty"`
	Bar    string `json:"bar,omitempty"`
}

func threeHandler(rep *httpx.Reply, v threeValues) error {
	return rep.Send(threeBody{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar})
}

func threeServer(b *testing.B, handler any, opts ...app.RouteOption) *app.Server {
	return threeServerUse(b, nil, handler, opts...)
}

// threeServerUse is threeServer with mw, when not nil, added to the
// route's context with Use.
func threeServerUse(b *testing.B, mw app.Middleware, handler any, opts ...app.RouteOption) *app.Server {
	return threeServerRoute(b, mw, func(g *app.Server) error { return g.Get("/three", handler, opts...) })
}

// threeServerRoute is threeServerUse with GET /three registered by route.
func threeServerRoute(b testing.TB, mw app.Middleware, route func(g *app.Server) error) *app.Server {
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Register(func(p *app.Server) error {
		p.DecorateRequest("foo", "foo")
		return p.Register(func(g *app.Server) error {
			g.DecorateRequest("bar", "bar")
			if mw != nil {
				if err := g.Use(mw); err != nil {
					return err
				}
			}
			return route(g)
		}, app.Name("grandchildContext"))
	}, app.Name("publicContext"))
	if err := s.Ready(); err != nil {
		b.Fatal(err)
	}
	return s
}

// discard is a reusable ResponseWriter, so the benchmarks measure the
// handler, not the recorder.
type discard struct {
	h      http.Header
	status int
	n      int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) WriteHeader(s int)           { w.status = s }
func (w *discard) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
func (w *discard) reset()                      { clear(w.h); w.status, w.n = 0, 0 }

// SetWriteDeadline and SetReadDeadline are what a connection's
// ResponseWriter offers (as net/http's does), so the benchmarks pay for
// arming a reply's write deadline and a body's read deadline up to the
// system call.
func (w *discard) SetWriteDeadline(time.Time) error { return nil }
func (w *discard) SetReadDeadline(time.Time) error  { return nil }

func benchHandler(b *testing.B, h http.Handler, target string) {
	req := httptest.NewRequest("GET", target, nil)
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != 0 && w.status != 200 || w.n == 0 {
		b.Fatalf("status %d, %d bytes", w.status, w.n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
	}
}

// BenchmarkThree is GET /three through Burrow: routing, decorator slots,
// the In struct plan, the handler and JSON encoding.
func BenchmarkThree(b *testing.B) {
	benchHandler(b, threeServer(b, threeHandler), "/three")
}

// BenchmarkThreeTyped is the same handler through app.Typed: called
// directly instead of through reflect.Value.Call.
func BenchmarkThreeTyped(b *testing.B) {
	benchHandler(b, threeServer(b, app.Typed(threeHandler)), "/three")
}

// BenchmarkThreeRoute is the same route registered with app.Get, the
// form the README teaches first: the handler returns the reply's value.
func BenchmarkThreeRoute(b *testing.B) {
	benchHandler(b, threeServerRoute(b, nil, func(g *app.Server) error {
		return app.Get(g, "/three", func(_ context.Context, v threeValues) (threeBody, error) {
			return threeBody{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar}, nil
		})
	}), "/three")
}

// BenchmarkThreeTypedOnSend is BenchmarkThreeTyped with an onSend hook
// that passes the body on: what a route with onSend hooks pays for a body
// of its own (the hook may keep it, so it is a copy of the encoded bytes).
func BenchmarkThreeTypedOnSend(b *testing.B) {
	keep := app.OnSendFunc(func(_ *httpx.Request, _ *httpx.Reply, body []byte) ([]byte, error) { return body, nil })
	benchHandler(b, threeServer(b, app.Typed(threeHandler), app.WithHook(app.OnSend, keep)), "/three")
}

// BenchmarkThreeTypedMiddleware is BenchmarkThreeTyped with one no-op
// middleware (Use) on the route's context: what the net/http view of the
// request (a copy of it carrying Pattern and the path values) costs.
func BenchmarkThreeTypedMiddleware(b *testing.B) {
	noop := func(next http.Handler) http.Handler { return next }
	benchHandler(b, threeServerUse(b, noop, app.Typed(threeHandler)), "/three")
}

// threeJSON is threeBody writing its own JSON (httpx.JSONAppender).
type threeJSON threeBody

func (b threeJSON) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"answer":`...)
	dst = strconv.AppendInt(dst, int64(b.Answer), 10)
	if b.Foo != "" {
		dst = append(dst, `,"foo":`...)
		dst = httpx.AppendJSONString(dst, b.Foo)
	}
	if b.Bar != "" {
		dst = append(dst, `,"bar":`...)
		dst = httpx.AppendJSONString(dst, b.Bar)
	}
	return append(dst, '}'), nil
}

// BenchmarkThreeTypedAppender is BenchmarkThreeTyped with a reply type
// that encodes itself instead of going through encoding/json.
func BenchmarkThreeTypedAppender(b *testing.B) {
	benchHandler(b, threeServer(b, app.Typed(func(rep *httpx.Reply, v threeValues) error {
		return rep.Send(threeJSON{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar})
	})), "/three")
}

// BenchmarkThreeNetHTTP is the same reply from a raw net/http handler
// (what the peer benchmark's net/http server does per request), for
// comparison.
func BenchmarkThreeNetHTTP(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /three", func(w http.ResponseWriter, r *http.Request) {
		body, err := json.Marshal(&threeBody{Answer: 42, Foo: "foo", Bar: "bar"})
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(200)
		w.Write(body)
	})
	benchHandler(b, mux, "/three")
}

// bigTree registers top × 10 × 10 plugins nested three deep with ten
// routes each (half parametric), each leaf context declaring a request
// decorator its routes read through an In struct. top = 10 gives 1,000
// plugins and 10,000 routes.
func bigTree(top int) *app.Server {
	type deps struct {
		app.In
		Answer int    `name:"answer"`
		Leaf   string `name:"leaf" optional:"true"`
	}
	handler := func(rep *httpx.Reply, d deps) error { return rep.Send(d.Answer) }
	s := app.New()
	s.DecorateRequest("answer", 42)
	for i := range top {
		s.Register(func(a *app.Server) error {
			a.AddHook(app.OnRequest, func() {})
			for j := range 10 {
				a.Register(func(b *app.Server) error {
					for k := range 10 {
						b.Register(func(c *app.Server) error {
							c.DecorateRequest("leaf", "x")
							for r := range 5 {
								c.Get(fmt.Sprintf("/r%d", r), handler)
								c.Get(fmt.Sprintf("/p%d/:id", r), handler)
							}
							return nil
						}, app.Name(fmt.Sprintf("c%d", k)), app.Prefix(fmt.Sprintf("/c%d", k)))
					}
					return nil
				}, app.Name(fmt.Sprintf("b%d", j)), app.Prefix(fmt.Sprintf("/b%d", j)))
			}
			return nil
		}, app.Name(fmt.Sprintf("a%d", i)), app.Prefix(fmt.Sprintf("/a%d", i)))
	}
	return s
}

// BenchmarkReadyAtScale is start-up of 1,000 plugins and 10,000 routes
// (plus their HEAD twins): registration, plugin loading, dig resolution of
// every handler parameter, and router compilation.
// The sizes show the cost grows linearly with the tree.
func BenchmarkReadyAtScale(b *testing.B) {
	for _, top := range []int{1, 5, 10} {
		b.Run(fmt.Sprintf("plugins=%d/routes=%d", top*100, top*1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := bigTree(top)
				if err := s.Ready(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The bodies the peer benchmark's input workload sends to POST /echo: a
// valid one of 121 bytes (echoed) and one missing "message" (the 400).
const (
	echoValid   = `{"message":"Typed input: decode this JSON body, validate it and send the same object back.","tags":["go","json","bench"]}`
	echoInvalid = `{"tags":["go","json","bench"]}`
)

// echoBody is the reference example's POST /echo body.
type echoBody struct {
	Message string   `json:"message" validate:"required,max=280"`
	Tags    []string `json:"tags,omitempty" validate:"max=5"`
}

// echoIn is the reference example's POST /echo input.
type echoIn struct {
	app.In
	Body echoBody `body:""`
}

// echoServer is the reference example's /echo, a typed route in
// publicContext, with the root's and the context's request decorators.
func echoServer(tb testing.TB) *app.Server {
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Register(func(p *app.Server) error {
		p.DecorateRequest("foo", "foo")
		return app.Post(p, "/echo", func(_ context.Context, in echoIn) (echoBody, error) { return in.Body, nil })
	}, app.Name("publicContext"))
	if err := s.Ready(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// rereadBody is a request body read again on every request without an
// allocation: a bytes.Reader rewound by the benchmark loop.
type rereadBody struct{ bytes.Reader }

func (*rereadBody) Close() error { return nil }

// benchPost sends body to POST /echo through h once per iteration and
// checks the status of the first answer.
func benchPost(b *testing.B, h http.Handler, body string, status int) {
	benchPostAs(b, h, "application/json", body, status)
}

// benchPostAs is benchPost with a body of media type ct.
func benchPostAs(b *testing.B, h http.Handler, ct, body string, status int) {
	data := []byte(body)
	rb := &rereadBody{}
	rb.Reset(data)
	req := httptest.NewRequest("POST", "/echo", nil)
	req.Header.Set("Content-Type", ct)
	req.Body, req.ContentLength = rb, int64(len(data))
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req)
	if got := max(w.status, 200); got != status || w.n == 0 {
		b.Fatalf("status %d, %d bytes; want %d", w.status, w.n, status)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		w.reset()
		rb.Reset(data)
		h.ServeHTTP(w, req)
	}
}

// BenchmarkEcho is POST /echo with the input workload's valid body:
// content type, body read, strict JSON checks, decoding, validation, the
// handler and the encoded reply.
func BenchmarkEcho(b *testing.B) {
	benchPost(b, echoServer(b), echoValid, http.StatusOK)
}

// BenchmarkEchoInvalid is POST /echo with a body missing "message": the
// same work up to validation, then the 400 with its validation array.
func BenchmarkEchoInvalid(b *testing.B) {
	benchPost(b, echoServer(b), echoInvalid, http.StatusBadRequest)
}

// echoForm is POST /echo's input as a form: the same values, read from
// a urlencoded or multipart body.
type echoForm struct {
	app.In
	Message string   `form:"message" validate:"required,max=280"`
	Tags    []string `form:"tags" validate:"max=5"`
}

// echoFormServer is echoServer with the input as a form.
func echoFormServer(tb testing.TB) *app.Server {
	s := app.New()
	if err := app.Post(s, "/echo", func(_ context.Context, in echoForm) (echoBody, error) {
		return echoBody{Message: in.Message, Tags: in.Tags}, nil
	}); err != nil {
		tb.Fatal(err)
	}
	if err := s.Ready(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// echoFormValid is echoValid's values as a urlencoded form.
const echoFormValid = "message=Typed+input%3A+decode+this+JSON+body%2C+validate+it+and+send+the+same+object+back.&tags=go&tags=json&tags=bench"

// BenchmarkFormPost is BenchmarkEcho with the values posted as an
// application/x-www-form-urlencoded form.
func BenchmarkFormPost(b *testing.B) {
	benchPostAs(b, echoFormServer(b), "application/x-www-form-urlencoded", echoFormValid, http.StatusOK)
}

// BenchmarkMultipartPost is BenchmarkEcho with the values posted as a
// multipart/form-data form, a part each.
func BenchmarkMultipartPost(b *testing.B) {
	var body strings.Builder
	for _, kv := range [][2]string{{"message", "Typed input: decode this JSON body, validate it and send the same object back."},
		{"tags", "go"}, {"tags", "json"}, {"tags", "bench"}} {
		fmt.Fprintf(&body, "--b\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", kv[0], kv[1])
	}
	body.WriteString("--b--\r\n")
	benchPostAs(b, echoFormServer(b), "multipart/form-data; boundary=b", body.String(), http.StatusOK)
}
