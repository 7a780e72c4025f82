package main

import (
	"net/http"
	"path/filepath"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// newServer assembles the benchmark's server: the public routes at the
// root, and the /api context with its token check and data side. Without
// -data, /json has no dataset; without -data or -redis, /api answers 503.
// The returned function closes the data side.
func newServer(c config, opts ...app.Option) (*app.Server, func(), error) {
	var cat catalogue
	if c.data != "" {
		items, err := loadDataset(c.data)
		if err != nil {
			return nil, nil, err
		}
		cat.items = items
	}
	var st *stack
	if c.data != "" && c.redis != "" {
		var err error
		if st, err = openStack(c.data, c.redis); err != nil {
			return nil, nil, err
		}
	}
	s := app.New(opts...)
	s.Register(public(&cat, filepath.Join(c.data, "static")), app.Name("public"))
	s.Register(api(st, c.secret), app.Name("api"), app.Prefix("/api"))
	if err := s.Ready(); err != nil {
		if st != nil {
			st.close()
		}
		return nil, nil, err
	}
	closeData := func() {
		if st != nil {
			st.close()
		}
	}
	return s, closeData, nil
}

// api is production-stack's context: every request's token is checked
// by an OnRequest hook, before any body is read.
func api(st *stack, secret []byte) func(*app.Server) error {
	return func(s *app.Server) error {
		if st == nil {
			s.AddHook(app.OnRequest, func(*httpx.Request) error {
				return httpx.Errorf(http.StatusServiceUnavailable, "production-stack needs -data and -redis")
			})
		}
		s.Decorate(st)
		s.DecorateRequest("user", 0)
		s.AddHook(app.OnRequest, tokenCheck(secret))
		app.Get(s, "/items/:id", getItem)
		app.Post(s, "/items/:id", postItem)
		return app.Get(s, "/me", me)
	}
}
