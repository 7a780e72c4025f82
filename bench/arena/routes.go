package main

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/compress"
)

// maxUpload is the largest upload body: the profile sends up to 20 MiB.
const maxUpload = 32 << 20

// sums is the input of GET /baseline11: two integers (a missing one is 0;
// one that is not an integer is a 400).
type sums struct {
	app.In
	A int `query:"a"`
	B int `query:"b"`
}

// sumsWithBody is the input of POST /baseline11: the body is an integer
// in text.
type sumsWithBody struct {
	app.In
	A    int    `query:"a"`
	B    int    `query:"b"`
	Body string `body:""`
}

func sum(_ context.Context, in sums) (string, error) {
	return strconv.Itoa(in.A + in.B), nil
}

func sumWithBody(_ context.Context, in sumsWithBody) (string, error) {
	n := 0
	if t := strings.TrimSpace(in.Body); t != "" {
		var err error
		if n, err = strconv.Atoi(t); err != nil {
			return "", httpx.Errorf(http.StatusBadRequest, "the body must be an integer")
		}
	}
	return strconv.Itoa(in.A + in.B + n), nil
}

func pipeline(context.Context, struct{}) (string, error) { return "ok", nil }

// listIn is the input of GET /json/:count. m is read as text: a missing
// or non-integer m counts as 1, as the profile says, not as a 400.
type listIn struct {
	app.In
	Count int    `path:"count" validate:"min=0"`
	M     string `query:"m"`
}

// catalogue answers /json/:count from the dataset loaded at start.
type catalogue struct{ items []item }

func (c *catalogue) list(_ context.Context, in listIn) (itemList, error) {
	m, err := strconv.Atoi(in.M)
	if err != nil {
		m = 1
	}
	return priced(c.items, in.Count, m), nil
}

// publicList is GET /public/json/:count: the same list with m = 1.
func (c *catalogue) publicList(_ context.Context, in listIn) (itemList, error) {
	return priced(c.items, in.Count, 1), nil
}

// uploadIn takes the request to read its body as a stream: a 20 MiB
// upload is counted, not held.
type uploadIn struct {
	app.In
	Request *httpx.Request
}

func upload(_ context.Context, in uploadIn) (string, error) {
	n, err := io.Copy(io.Discard, in.Request.BodyReader())
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(n, 10), nil
}

// upgrader has gorilla/websocket's default buffers and no compression.
var upgrader = websocket.Upgrader{}

// echo sends every message back with its type, until the peer closes.
// A plain GET without an upgrade is answered 400 by the upgrader.
func echo(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	for {
		kind, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		if err := c.WriteMessage(kind, msg); err != nil {
			return
		}
	}
}

// public is the routes of every profile but production-stack's /api.
// Compression is a context of its own, holding /json alone, so that no
// other profile's answers are compressed.
func public(c *catalogue, static string) func(*app.Server) error {
	return func(s *app.Server) error {
		app.Get(s, "/baseline11", sum)
		app.Post(s, "/baseline11", sumWithBody)
		app.Get(s, "/pipeline", pipeline)
		app.Get(s, "/public/baseline", sum)
		app.Get(s, "/public/json/:count", c.publicList)
		app.Post(s, "/upload", upload, app.BodyLimit(maxUpload))
		s.Get("/ws", echo)
		s.Mount("/static", http.FileServer(http.Dir(static)))
		return s.Register(func(s *app.Server) error {
			s.Register(compress.Plugin())
			return app.Get(s, "/json/:count", c.list)
		}, app.Name("compressed"))
	}
}
