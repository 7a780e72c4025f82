package openapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// PluginName is the name the plugin registers under.
const PluginName = "openapi"

// Option configures Plugin.
type Option func(*config)

type config struct {
	doc, doc30, docs, doc32 string
	err                     error
}

// Paths sets where the plugin serves the 3.1 document, its 3.0.3
// rendition and the docs page (defaults /openapi.json,
// /openapi-3.0.json, /docs), under the context's prefix. An empty path
// serves nothing there.
func Paths(doc, doc30, docs string) Option {
	return func(c *config) {
		for _, p := range []string{doc, doc30, docs} {
			if p != "" && !strings.HasPrefix(p, "/") {
				c.err = fmt.Errorf("openapi.Paths: path %q must start with /", p)
			}
		}
		c.doc, c.doc30, c.docs = doc, doc30, docs
	}
}

// Path32 sets where the plugin serves the OpenAPI 3.2 rendition (default
// /openapi-3.2.json), under the context's prefix; "" serves none.
func Path32(path string) Option {
	return func(c *config) {
		if path != "" && !strings.HasPrefix(path, "/") {
			c.err = fmt.Errorf("openapi.Path32: path %q must start with /", path)
		}
		c.doc32 = path
	}
}

// Plugin serves the OpenAPI document of the context that registers it
// (it is wrapped) and of that context's descendants: GET /openapi.json
// (3.1), GET /openapi-3.2.json, GET /openapi-3.0.json and GET /docs, a
// page of its own that renders the 3.2 rendition (every route) with no
// other request (the page and its script are in
// the binary; no CDN). The document is built once, when the server is
// Ready, from the routes that context's subtree holds with the schemes
// they can see; a request is answered with bytes already made. Its own
// routes are left out of the document. Routes that one document cannot
// describe (two with one operation id) make Ready fail with ErrDocument.
func Plugin(info Info, opts ...Option) *app.Plugin {
	c := &config{doc: "/openapi.json", doc30: "/openapi-3.0.json", docs: "/docs", doc32: "/openapi-3.2.json"}
	for _, o := range opts {
		o(c)
	}
	return app.Wrap(func(s *app.Server) error {
		var built *Document
		var page []byte
		s.OnReady(func() error {
			d, err := Build(s.Routes(), info)
			if err != nil {
				return err // the hook's error names the context already
			}
			link := ""
			if c.doc != "" {
				link = s.Prefix() + c.doc
			}
			built, page = d, docsPage(d, info, link)
			return nil
		})
		// The routes read built and page, which the OnReady hook set: the
		// server serves only once every OnReady hook has returned, after
		// (in the memory model's sense too) the state that says so is set.
		serve := func(body func() []byte, ctype string) func(*httpx.Request, *httpx.Reply) error {
			return func(_ *httpx.Request, rep *httpx.Reply) error {
				return rep.Type(ctype).Send(body())
			}
		}
		hide := app.Undocumented()
		var errs []error
		if c.doc != "" {
			errs = append(errs, s.Get(c.doc, serve(func() []byte { return built.v31 }, "application/json"), hide))
		}
		if c.doc32 != "" {
			errs = append(errs, s.Get(c.doc32, serve(func() []byte { return built.v32 }, "application/json"), hide))
		}
		if c.doc30 != "" {
			errs = append(errs, s.Get(c.doc30, serve(func() []byte { return built.v30 }, "application/json"), hide))
		}
		if c.docs != "" {
			errs = append(errs, s.Get(c.docs, func(_ *httpx.Request, rep *httpx.Reply) error {
				rep.SetHeader("Content-Security-Policy", pageCSP)
				return rep.Type("text/html; charset=utf-8").Send(page)
			}, hide))
		}
		return errors.Join(errs...)
	}, app.Name(PluginName), app.Supports("0.x"), app.Check(func() error { return c.err }))
}
