package main

import (
	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// serverName is every response's Server header. The slice is shared by
// all of them: net/http only reads header values, and with a capacity of
// one an Add copies it.
var serverName = []string{"burrow"}

// serverHeader is the root's onRequest hook: it names the server in every
// response, before any route writes.
func serverHeader(rep *httpx.Reply) error {
	rep.Header()["Server"] = serverName
	return nil
}

// newServer assembles the benchmark's server on the database file: the
// Server header for every route, the db plugin (the database as a
// service of the root) and the routes plugin. net/http adds Date.
func newServer(file string, opts ...app.Option) *app.Server {
	s := app.New(opts...)
	s.AddHook(app.OnRequest, serverHeader)
	s.Register(dbPlugin(file))
	s.Register(routes, app.Name("routes"), app.DependsOn("db"), app.NeedsService[*database]())
	return s
}
