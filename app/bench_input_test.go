package app_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/burrow-go/burrow/app"
)

// The bodies ../shared/bench's input workload sends to POST /echo: a
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
	data := []byte(body)
	rb := &rereadBody{}
	rb.Reset(data)
	req := httptest.NewRequest("POST", "/echo", nil)
	req.Header.Set("Content-Type", "application/json")
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
