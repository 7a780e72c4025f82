package compress

import (
	"net/http"
	"slices"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/internal/negotiate"
)

// PluginName is the plugin's name (Plugin's and Off's): one of them per
// context.
const PluginName = "compress"

// Plugin returns the plugin, wrapped: its middleware lands in the context
// that registers it. An invalid option makes Register refuse it.
func Plugin(opts ...Option) *app.Plugin {
	mw, err := Middleware(opts...)
	return app.Wrap(func(s *app.Server) error {
		if err := s.OnRoute(readSkip); err != nil {
			return err
		}
		return s.Use(mw)
	}, app.Name(PluginName), app.Check(func() error { return err }))
}

// Off returns a plugin that turns off, for the context that registers it
// and its descendants, the compression an ancestor's Plugin applies: for
// a context that reflects user input next to secrets (BREACH), or one
// whose answers are already compressed.
func Off() *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.OnRoute(readSkip); err != nil {
			return err
		}
		return s.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				Disable(w)
				next.ServeHTTP(w, r)
			})
		})
	}, app.Name(PluginName))
}

// middleware is a compiled configuration.
type middleware struct {
	cfg     *config
	names   []string
	codings []*coding
}

// Middleware returns the plugin's middleware, for a server or a handler
// that is not Burrow's.
func Middleware(opts ...Option) (func(http.Handler) http.Handler, error) {
	c := newConfig(opts)
	if c.err != nil {
		return nil, c.err
	}
	m := &middleware{cfg: c, names: slices.Clone(c.codings)}
	for _, name := range c.codings {
		m.codings = append(m.codings, newCoding(name, c))
	}
	return m.wrap, nil
}

func (m *middleware) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			next.ServeHTTP(w, r)
			return
		}
		cw := &writer{w: w, m: m, head: r.Method == http.MethodHead, off: skipped(r)}
		// A Range request is answered in ranges of the identity bytes
		// (206), or in full when If-Range fails: either way, as it is.
		if _, ranged := r.Header["Range"]; !ranged {
			if i := negotiate.Encoding(r.Header["Accept-Encoding"], m.names); i >= 0 {
				cw.coding = m.codings[i]
			}
		}
		defer func() {
			if p := recover(); p != nil {
				// The answer is abandoned (http.ErrAbortHandler drops the
				// connection): nothing more is written.
				cw.release()
				panic(p)
			}
			cw.finish()
			cw.release()
		}()
		next.ServeHTTP(cw, r)
	})
}
