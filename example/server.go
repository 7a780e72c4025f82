package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// values is what every route asks for. answer is visible everywhere, so it
// is required: a route that could not see it would stop the server at
// start-up. foo and bar are optional: a route that cannot see them gets
// them absent, and the reply leaves them out.
type values struct {
	app.In
	Answer int    `name:"answer"`
	Foo    string `name:"foo" optional:"true"`
	Bar    string `name:"bar" optional:"true"`
}

// body is the reply: absent decorators are left out, not null.
type body struct {
	Answer int    `json:"answer"`
	Foo    string `json:"foo,omitempty"`
	Bar    string `json:"bar,omitempty"`
}

// reply is the handler of all three routes: it answers what its context
// sees. Registered with app.Get, it is called directly, without
// reflection.
func reply(_ context.Context, v values) (body, error) {
	return body{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar}, nil
}

// echoBody is what POST /echo accepts, checked before the handler runs:
// a message of at most 280 characters and up to five tags.
type echoBody struct {
	Message string   `json:"message" validate:"required,max=280"`
	Tags    []string `json:"tags,omitempty" validate:"max=5"`
}

// echoIn is POST /echo's input: the decoded, validated body.
type echoIn struct {
	app.In
	Body echoBody `body:""`
}

// echo answers the validated body.
func echo(_ context.Context, in echoIn) (echoBody, error) { return in.Body, nil }

// readiness answers /readyz for load balancers: 200 while serving, 503
// from the moment Close begins (through the drain delay), so a balancer
// stops sending before the listener closes. It sends its own reply (two
// statuses, a fixed body), so it takes the *httpx.Reply: a shape Burrow
// calls directly too.
func readiness(s *app.Server) func(*httpx.Reply) error {
	return func(rep *httpx.Reply) error {
		if !s.IsReady() {
			return rep.Code(http.StatusServiceUnavailable).Send(json.RawMessage(`{"status":"draining"}`))
		}
		return rep.Send(json.RawMessage(`{"status":"ready"}`))
	}
}

// readyzBody is the shape of /readyz's answers, which readiness writes
// ready-made; the route declares it for its OpenAPI description.
type readyzBody struct {
	Status string `json:"status"`
}

// tickData is the data of each /events event: the decorators the route
// sees, like the other routes' replies, and the event's number.
type tickData struct {
	Answer int    `json:"answer"`
	Foo    string `json:"foo,omitempty"`
	Bar    string `json:"bar,omitempty"`
	N      int    `json:"n"`
}

// stream is the input of a route that writes its reply itself: the
// decorators every route asks for, and the *httpx.Reply.
type stream struct {
	values
	Reply *httpx.Reply
}

// events streams a "tick" event at once and then every tick, until the
// client goes away; when the server closes, it sends a last "close"
// event. It is a typed route like the others; a stream writes its reply
// itself, so its input takes the *httpx.Reply, and its struct{} result is
// never sent.
func events(tick time.Duration) func(context.Context, stream) (struct{}, error) {
	return func(_ context.Context, in stream) (struct{}, error) {
		v := in.values
		es, err := in.Reply.SSE()
		if err != nil {
			return struct{}{}, err
		}
		t := time.NewTicker(tick)
		defer t.Stop()
		for n := 1; ; n++ {
			data, err := json.Marshal(tickData{Answer: v.Answer, Foo: v.Foo, Bar: v.Bar, N: n})
			if err != nil {
				return struct{}{}, err
			}
			if err := es.Send(httpx.Event{ID: strconv.Itoa(n), Event: "tick", Data: string(data)}); err != nil {
				return struct{}{}, err
			}
			select {
			case <-t.C:
			case <-es.Context().Done():
				if errors.Is(context.Cause(es.Context()), httpx.ErrServerClosing) {
					return struct{}{}, es.Send(httpx.Event{Event: "close"})
				}
				return struct{}{}, nil // the client went away
			}
		}
	}
}

// apiInfo heads the example's OpenAPI document.
var apiInfo = openapi.Info{
	Title:       "Burrow reference example",
	Version:     "1.0.0",
	Description: "Fastify's encapsulation example, on Burrow: each route sees what its context declares.",
}

// build assembles the reference server (docs/getting-started.md). With share, the
// grandchild context is wrapped, so what it declares lands in
// publicContext. tick is how often GET /events sends an event.
func build(keys []string, share bool, tick time.Duration, opts ...app.Option) *app.Server {
	s := app.New(opts...)
	s.DecorateRequest("answer", 42)
	s.Get("/readyz", readiness(s), app.Responds(http.StatusOK, readyzBody{}), app.Responds(http.StatusServiceUnavailable, readyzBody{}))
	// GET /openapi.json, /openapi-3.2.json, /openapi-3.0.json and /docs: the whole server's
	// description, built at Ready.
	s.Register(openapi.Plugin(apiInfo))

	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys(keys...)))
		return app.Get(s, "/one", reply)
	}, app.Name("authenticatedContext"))

	grandchild := func(s *app.Server) error {
		s.DecorateRequest("bar", "bar")
		return app.Get(s, "/three", reply)
	}
	s.Register(func(s *app.Server) error {
		s.DecorateRequest("foo", "foo")
		app.Get(s, "/two", reply)
		app.Post(s, "/echo", echo)
		app.Get(s, "/events", events(tick), app.RespondsAs(http.StatusOK, "text/event-stream", nil))
		if share {
			return s.Register(app.Wrap(grandchild, app.Name("grandchildContext")))
		}
		return s.Register(grandchild, app.Name("grandchildContext"))
	}, app.Name("publicContext"))
	return s
}
