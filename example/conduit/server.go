package main

import (
	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/compress"
	"github.com/burrow-go/burrow/plugins/cors"
	"github.com/burrow-go/burrow/plugins/secure"
)

// apiInfo heads the OpenAPI document.
var apiInfo = openapi.Info{
	Title:       "Conduit",
	Version:     "1.0.0",
	Description: "The RealWorld API (a Medium clone's back end) on Burrow.",
}

// build assembles the server: /healthz at the root, the API under /api.
// The API is one context with its own error shape, not-found answer,
// database and auth; each feature is a plugin of its own within it, and
// keeps the routes that need a user in a child context that requires
// one.
func build(d *db, t *tokens, origins []string, opts ...app.Option) *app.Server {
	s := app.New(opts...)
	s.Get("/healthz", func(rep *httpx.Reply) error { return rep.Send(map[string]string{"status": "ok"}) })
	s.Register(func(api *app.Server) error {
		api.SetErrorHandler(answerError)
		api.SetNotFoundHandler(notFound)
		// An API answers JSON and serves no page: nothing may load or
		// frame its answers (the documentation page sets its own policy).
		api.Register(secure.Plugin(secure.API()))
		api.Register(compress.Plugin())
		if len(origins) > 0 { // a browser front end on another origin
			api.Register(cors.Plugin(cors.Origins(origins...)))
		}
		api.Register(openapi.Plugin(apiInfo, openapi.Paths("/openapi.json", "/openapi-3.0.json", "/docs")))
		api.Register(dbPlugin(d))
		api.Register(authPlugin(t))
		api.Register(usersPlugin, app.Name("users"))
		api.Register(profilesPlugin, app.Name("profiles"))
		api.Register(articlesPlugin, app.Name("articles"))
		api.Register(commentsPlugin, app.Name("comments"))
		return api.Register(tagsPlugin, app.Name("tags"))
	}, app.Name("api"), app.Prefix("/api"))
	return s
}
