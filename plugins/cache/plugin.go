package cache

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/internal/etag"
)

// Shared is a route config value (app.WithConfig(cache.Shared{})) saying
// the route's answer is the same whoever asks: the plugin stores it even
// when the request carried credentials (Authorization, Cookie). An
// answer that sets a cookie is still never stored.
type Shared struct{}

// Option configures the plugin.
type Option func(*config)

type config struct {
	maxBody int
	timeout time.Duration
}

// MaxBody is the largest body the plugin stores (1 MiB by default); n
// must be positive.
func MaxBody(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// StoreTimeout bounds each call to the store (100 ms by default): a slow
// store costs a request at most that before the handler answers
// instead.
func StoreTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// Plugin returns the wrapped cache plugin keeping the answers of the
// context that registers it, and of its descendants, in store.
func Plugin(store Store, opts ...Option) *app.Plugin {
	c := &cacher{store: store, cfg: config{maxBody: 1 << 20, timeout: 100 * time.Millisecond}, now: time.Now}
	for _, o := range opts {
		o(&c.cfg)
	}
	var err error
	if store == nil {
		err = errors.New("cache.Plugin: the store is nil")
	}
	return app.Wrap(func(s *app.Server) error {
		c.log = s.Log()
		if err := s.OnRoute(func(spec *app.RouteSpec) error {
			_, _ = app.RouteConfig[Shared](spec) // read: the middleware reads it per request
			return nil
		}); err != nil {
			return err
		}
		return s.Use(c.middleware)
	}, app.Name("cache"), app.Check(func() error { return err }))
}

type cacher struct {
	store Store
	cfg   config
	log   *zap.Logger
	now   func() time.Time
}

func (c *cacher) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		_, shared := app.RouteConfigOf[Shared](r)
		if !shared && (r.Header["Authorization"] != nil || r.Header["Cookie"] != nil) {
			next.ServeHTTP(w, r)
			return
		}
		base := baseKey(r)
		if !refresh(r.Header) {
			if e := c.lookup(r, base); e != nil {
				c.serve(w, r, e)
				return
			}
		}
		if r.Method == http.MethodHead {
			next.ServeHTTP(w, r) // stored from its GET only: a HEAD has no body
			return
		}
		rec := &recorder{w: w, max: c.cfg.maxBody}
		next.ServeHTTP(rec, r)
		if ttl, ok := storable(rec); ok {
			c.keep(r, base, rec, ttl)
		}
	})
}

// baseKey is the key of r's answers: route, host, path and query.
func baseKey(r *http.Request) string {
	return "burrow:cache:" + r.Pattern + "\x00" + r.Host + "\x00" + r.URL.RequestURI()
}

// variantKey is base's key for the values r has of the headers vary.
func variantKey(base string, vary []string, r *http.Request) string {
	var b strings.Builder
	b.WriteString(base)
	for _, name := range vary {
		b.WriteString("\x00")
		b.WriteString(name)
		b.WriteString("=")
		b.WriteString(strings.Join(r.Header.Values(name), ","))
	}
	return b.String()
}

// refresh reports whether the request asks not to be answered from a
// cache.
func refresh(h http.Header) bool {
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			if d = strings.ToLower(strings.TrimSpace(d)); d == "no-cache" || d == "no-store" {
				return true
			}
		}
	}
	return h.Get("Pragma") == "no-cache"
}

func (c *cacher) ctx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), c.cfg.timeout)
}

// lookup is the stored answer for r, or nil.
func (c *cacher) lookup(r *http.Request, base string) *entry {
	ctx, cancel := c.ctx(r)
	defer cancel()
	head, err := c.get(ctx, base)
	if head == nil || err != nil {
		return nil
	}
	if head.Vary == nil {
		return head
	}
	e, _ := c.get(ctx, variantKey(base, head.Vary, r))
	return e
}

func (c *cacher) get(ctx context.Context, key string) (*entry, error) {
	b, err := c.store.Get(ctx, key)
	if err != nil {
		c.log.Warn("cache store failed", zap.String("op", "get"), zap.Error(err))
		return nil, err
	}
	if b == nil {
		return nil, nil
	}
	e, err := decode(b)
	if err != nil {
		c.log.Warn("cache entry unreadable", zap.Error(err))
		return nil, err
	}
	return e, nil
}

// serve answers r with e: 304 when If-None-Match holds its tag.
func (c *cacher) serve(w http.ResponseWriter, r *http.Request, e *entry) {
	h := w.Header()
	for k, v := range e.Header {
		h[k] = v
	}
	h.Set("Age", strconv.FormatInt(e.age(c.now()), 10))
	if tag := h.Get("ETag"); tag != "" {
		if inm := r.Header["If-None-Match"]; inm != nil && etag.MatchWeak(inm, tag) {
			delete(h, "Content-Length")
			delete(h, "Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(e.Body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.Body) // #nosec G705 -- a stored answer, replayed under its own Content-Type; a write error means the client is gone
	}
}

// storable reports whether rec's answer may be stored, and for how long.
func storable(rec *recorder) (time.Duration, bool) {
	h := rec.w.Header()
	if rec.status != http.StatusOK || rec.flushed || rec.over || h["Set-Cookie"] != nil {
		return 0, false
	}
	if slices.ContainsFunc(h.Values("Vary"), func(v string) bool { return strings.Contains(v, "*") }) {
		return 0, false
	}
	public, maxAge, sMaxAge := false, -1, -1
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(name) {
			case "public":
				public = true
			case "private", "no-store", "no-cache":
				return 0, false
			case "max-age":
				maxAge = seconds(val)
			case "s-maxage":
				sMaxAge = seconds(val)
			}
		}
	}
	ttl := maxAge
	if sMaxAge >= 0 {
		ttl = sMaxAge
	}
	if !public || ttl <= 0 {
		return 0, false
	}
	return time.Duration(ttl) * time.Second, true
}

// seconds reads a delta-seconds value; -1 for one that does not parse.
func seconds(v string) int {
	n, err := strconv.Atoi(strings.Trim(v, `"`))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// keep stores rec's answer under base (or its variant key, with the Vary
// names under base).
func (c *cacher) keep(r *http.Request, base string, rec *recorder, ttl time.Duration) {
	h := rec.w.Header().Clone()
	for _, k := range unstored {
		delete(h, k)
	}
	e := &entry{Header: h, Body: rec.body, Stored: c.now().Unix()}
	var vary []string
	for _, v := range rec.w.Header().Values("Vary") {
		for name := range strings.SplitSeq(v, ",") {
			if name = http.CanonicalHeaderKey(strings.TrimSpace(name)); name != "" && !slices.Contains(vary, name) {
				vary = append(vary, name)
			}
		}
	}
	slices.Sort(vary)
	ctx, cancel := c.ctx(r)
	defer cancel()
	key := base
	if len(vary) > 0 {
		c.set(ctx, base, &entry{Vary: vary}, ttl)
		key = variantKey(base, vary, r)
	}
	c.set(ctx, key, e, ttl)
}

func (c *cacher) set(ctx context.Context, key string, e *entry, ttl time.Duration) {
	b, err := e.encode()
	if err == nil {
		err = c.store.Set(ctx, key, b, ttl)
	}
	if err != nil {
		c.log.Warn("cache store failed", zap.String("op", "set"), zap.Error(err))
	}
}

// recorder passes an answer on while keeping a copy of its body, up to
// max bytes.
type recorder struct {
	w       http.ResponseWriter
	status  int
	body    []byte
	max     int
	over    bool // the body passed max: not stored
	flushed bool // a stream: not stored
}

func (rec *recorder) Header() http.Header { return rec.w.Header() }

// Unwrap gives http.ResponseController the writer underneath.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.w }

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 && status >= 200 {
		rec.status = status
	}
	rec.w.WriteHeader(status)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if !rec.over {
		if len(rec.body)+len(p) > rec.max {
			rec.over, rec.body = true, nil
		} else {
			rec.body = append(rec.body, p...)
		}
	}
	return rec.w.Write(p)
}

func (rec *recorder) Flush() {
	rec.flushed = true
	if f, ok := rec.w.(http.Flusher); ok {
		f.Flush()
	}
}
