package static

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/negotiate"
)

// PluginName is the plugin's name. A context may register it more than
// once (two trees under two prefixes): each registration is named
// "static:" and its prefix.
const PluginName = "static"

// Plugin returns the plugin serving fsys, wrapped: its routes land in
// the context that registers it, with that context's middleware and
// hooks (security headers, compression, auth). An invalid option makes
// Register refuse it; an fs.FS that cannot be read fails Ready.
func Plugin(fsys fs.FS, opts ...Option) *app.Plugin {
	c := newConfig(opts)
	if fsys == nil {
		c.fail("nil fs.FS")
	}
	return app.Wrap(func(s *app.Server) error {
		t, err := load(fsys, c, time.Now().UTC().Truncate(time.Second))
		if err != nil {
			return err
		}
		sv := &server{cfg: c, tree: t, own: map[string]bool{}, api: map[string]bool{}}
		return sv.register(s)
	}, app.Name(PluginName+":"+c.prefix+"/"), app.Check(func() error { return c.err }))
}

// server serves one tree.
type server struct {
	cfg  *config
	tree *tree
	own  map[string]bool // the plugin's route paths
	api  map[string]bool // first segments of the context's other routes
}

func (sv *server) register(s *app.Server) error {
	var opts []app.RouteOption
	if !sv.cfg.documented {
		opts = append(opts, app.Undocumented())
	}
	route := func(p string, h func(*httpx.Request, *httpx.Reply) error) error {
		sv.own[p] = true
		return s.Get(p, h, opts...)
	}
	for name, f := range sv.tree.files {
		if err := route(sv.cfg.prefix+"/"+name, sv.serveFile(f)); err != nil {
			return err
		}
	}
	for _, dir := range sv.tree.dirs {
		url := sv.cfg.prefix + "/"
		if dir != "." {
			url += dir + "/"
		}
		var h func(*httpx.Request, *httpx.Reply) error
		if f := sv.tree.files[path.Join(dir, sv.cfg.index)]; sv.cfg.index != "" && f != nil {
			h = sv.serveFile(f)
		} else if sv.cfg.browse {
			h = sv.list(dir)
		} else {
			continue
		}
		if err := route(url, h); err != nil {
			return err
		}
	}
	if sv.cfg.fallback == "" {
		return nil
	}
	shell := sv.tree.files[sv.cfg.fallback]
	if shell == nil {
		return errorf("the fallback %q is not a file of the tree", sv.cfg.fallback)
	}
	if err := s.OnRoute(func(r *app.RouteSpec) error {
		if !sv.own[r.Path] {
			if seg, ok := sv.segment(r.Path); ok && seg != "" && seg[0] != ':' && seg[0] != '*' {
				sv.api[seg] = true
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return s.SetNotFoundHandler(sv.fallback(shell))
}

// serveFile answers with f, or the sibling Accept-Encoding prefers.
func (sv *server) serveFile(f *file) func(*httpx.Request, *httpx.Reply) error {
	return func(req *httpx.Request, rep *httpx.Reply) error {
		r := req.Raw()
		h := rep.Header()
		name, etag, content := f.name, f.etag, f.content
		if len(f.variants) > 0 {
			negotiate.Vary(h)
			// A Range request gets ranges of the identity bytes.
			if _, ranged := r.Header["Range"]; !ranged {
				if i := negotiate.Encoding(r.Header["Accept-Encoding"], f.codings); i >= 0 {
					v := &f.variants[i]
					name, etag, content = v.name, v.etag, v.content
					h["Content-Encoding"] = v.coding
				}
			}
		}
		h["Content-Type"] = f.ctype
		h["Etag"] = etag
		h["Cache-Control"] = f.cache
		return rep.ServeContent(name, f.modtime, bytes.NewReader(content))
	}
}

// fallback is the not-found handler: the shell for a browser navigation
// outside the API, Burrow's 404 for anything else.
func (sv *server) fallback(shell *file) func(*httpx.Request, *httpx.Reply) error {
	serve := sv.serveFile(shell)
	return func(req *httpx.Request, rep *httpx.Reply) error {
		r := req.Raw()
		seg, under := sv.segment(r.URL.Path)
		if under && !sv.api[seg] && (r.Method == http.MethodGet || r.Method == http.MethodHead) && acceptsHTML(r.Header["Accept"]) {
			return serve(req, rep)
		}
		return rep.Code(http.StatusNotFound).Send(httpx.NotFound(r))
	}
}

// segment is the first segment of p past the plugin's prefix, and
// whether p is under that prefix at all.
func (sv *server) segment(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, sv.cfg.prefix)
	if !ok || rest != "" && rest[0] != '/' {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "/")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// acceptsHTML reports whether an Accept header names text/html with a
// q-value above 0 (a wildcard does not count: fetch and XHR send */*).
func acceptsHTML(lines []string) bool {
	for _, line := range lines {
		for part := range strings.SplitSeq(line, ",") {
			media, params, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(media), "text/html") && negotiate.QValue(params) > 0 {
				return true
			}
		}
	}
	return false
}

func errorf(format string, args ...any) error {
	c := &config{}
	c.fail(format, args...)
	return c.err
}
