// Package cors is Burrow's CORS plugin: it answers preflights and marks
// the answers a browser may hand to another origin's script, per
// context, as @fastify/cors does per Fastify instance.
//
//	s.Register(cors.Plugin(cors.Origins("https://app.example"), cors.MaxAge(time.Hour)))
//
// The plugin is wrapped: it applies to the context registering it and
// its descendants. A route may set a policy of its own (Override, merged
// over its context's) or none (Off). A nested context's plugin replaces
// its ancestor's for its routes.
//
// What it does that a middleware cannot:
//   - A preflight is judged by the policy of the context whose route
//     serves the method it announces (Access-Control-Request-Method), not
//     by the context that registered the path's first route: a public
//     GET /items and an admin PATCH /items, in two contexts with two
//     policies, each get their own. A preflight for a method the path
//     does not serve is answered 405 with no CORS header.
//   - Preflights are answered before any request hook, so an
//     authentication hook never sees (and refuses) them.
//   - Answers to allowed origins carry the CORS headers whatever their
//     status: a 401 from an authentication hook, a 404, a 405, a 500,
//     which a browser would otherwise hide from the script behind a
//     CORS error. The plugin is an outermost middleware (app.Outermost),
//     so that includes the refusals of an ancestor's middleware (a rate
//     limit registered in the root), whatever the order of the
//     registrations; its preflights are answered before that middleware
//     runs, and counted by no limiter.
//
// An origin the policy does not allow gets no Access-Control-* header at
// all. Every answer of a policy that does not allow any origin says
// "Vary: Origin" (added again as the header is written, app.Vary, so a
// handler setting Vary cannot drop it), and every preflight "Vary: Origin,
// Access-Control-Request-Method, Access-Control-Request-Headers", so a
// cache never serves one origin's answer to another. Origins are judged
// by the Origin header alone (a list, a pattern, a function of the
// origin): never by the rest of the request, which a cache does not
// key on. The plugin adds nothing to the OpenAPI document.
package cors

import (
	"net/http"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/token"
)

// PluginName is the name the plugin registers under.
const PluginName = "cors"

// policy is a compiled set of options.
type policy struct {
	anyOrigin   bool
	origins     map[string]struct{}
	pattern     func(string) bool
	originFunc  func(string) bool
	methods     []string
	allowHdr    []string // nil: reflect the request's
	allowHdrVal []string
	exposeVal   []string // nil: no header
	credentials bool
	maxAge      []string // nil: no header
	status      int
	strict      bool
	desc        string // for PrintRoutes
}

func newPolicy(opts []Option) (*policy, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	p := &policy{
		anyOrigin:   c.anyOrigin,
		originFunc:  c.originFunc,
		methods:     c.methods,
		allowHdr:    c.allowHeaders,
		credentials: c.credentials,
		status:      c.successStatus,
		strict:      !c.lax,
		desc:        describe(&c),
	}
	if len(c.origins) > 0 {
		p.origins = make(map[string]struct{}, len(c.origins))
		for _, o := range c.origins {
			p.origins[o] = struct{}{}
		}
	}
	if c.pattern != nil {
		p.pattern = c.pattern.MatchString
	}
	if c.allowHeaders != nil {
		p.allowHdrVal = []string{strings.Join(c.allowHeaders, ", ")}
	}
	if len(c.exposeHeaders) > 0 {
		p.exposeVal = []string{strings.Join(c.exposeHeaders, ", ")}
	}
	if v := c.maxAgeValue(); v != "" {
		p.maxAge = []string{v}
	}
	return p, nil
}

// maxOrigin bounds the origins the policy looks at: a real one is a
// scheme and a host name (at most 253 bytes) and a port.
const maxOrigin = 300

// allows reports whether the policy allows origin. "null" never is:
// sandboxed frames and local files send it, so any page can make itself
// that origin; Origins refuses to list it, and a pattern or a function
// that would match it (".*", one answering true) is not asked.
func (p *policy) allows(origin string) bool { return p.anyOrigin || p.names(origin) }

// names reports whether origin is one the policy lists, or one its
// pattern or function accepts: allows without Origins("*").
func (p *policy) names(origin string) bool {
	if origin == "" || len(origin) > maxOrigin || origin == "null" {
		return false
	}
	if _, ok := p.origins[origin]; ok {
		return true
	}
	if p.pattern != nil && p.pattern(origin) {
		return true
	}
	return p.originFunc != nil && p.originFunc(origin)
}

// Header values, shared by every answer: net/http only reads them.
var (
	valTrue     = []string{"true"}
	valAny      = []string{"*"}
	valNoLength = []string{"0"}
)

// Header names, canonical.
const (
	hOrigin         = "Origin"
	hVary           = "Vary"
	hAllowOrigin    = "Access-Control-Allow-Origin"
	hAllowCreds     = "Access-Control-Allow-Credentials"
	hExpose         = "Access-Control-Expose-Headers"
	hAllowMethods   = "Access-Control-Allow-Methods"
	hAllowHeaders   = "Access-Control-Allow-Headers"
	hMaxAge         = "Access-Control-Max-Age"
	hRequestMethod  = "Access-Control-Request-Method"
	hRequestHeaders = "Access-Control-Request-Headers"
)

// allowOrigin sets the headers an allowed origin's answers carry;
// sent is the request's Origin header, whose first value is origin.
func (p *policy) allowOrigin(h http.Header, sent []string) {
	if p.anyOrigin {
		h[hAllowOrigin] = valAny
	} else {
		// The request's own slice, cut to its first value: no copy, and
		// an append to it cannot reach the request's.
		h[hAllowOrigin] = sent[:1:1]
	}
	if p.credentials {
		h[hAllowCreds] = valTrue
	}
}

// actual marks the answer to a request that is not a preflight; sent
// is the request's Origin header.
func (p *policy) actual(h http.Header, sent []string) {
	if !p.anyOrigin {
		addVary(h, hOrigin)
	}
	origin := ""
	if len(sent) > 0 {
		origin = sent[0]
	}
	if !p.allows(origin) { // an empty origin only under Origins("*")
		return
	}
	p.allowOrigin(h, sent)
	if p.exposeVal != nil {
		h[hExpose] = p.exposeVal
	}
}

// preflight answers a preflight for a method the path serves: with the
// success status, and the CORS headers when the policy allows its origin
// and method.
func (p *policy) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if len(h[hVary]) == 0 {
		h[hVary] = varyPreflight
	} else {
		addVary(h, hOrigin)
		addVary(h, hRequestMethod)
		addVary(h, hRequestHeaders)
	}
	sent := r.Header[hOrigin]
	origin := ""
	if len(sent) > 0 {
		origin = sent[0]
	}
	if origin == "" && p.strict {
		app.WriteError(w, r, ErrInvalidPreflight)
		return
	}
	method := r.Header[hRequestMethod][0] // Preflight checked it is there
	if p.allows(origin) && token.Valid(method) && (p.methods == nil || slices.Contains(p.methods, method)) {
		p.allowOrigin(h, sent)
		h[hAllowMethods] = r.Header[hRequestMethod][:1:1]
		switch {
		case p.allowHdrVal != nil:
			h[hAllowHeaders] = p.allowHdrVal
		default:
			if asked := r.Header.Values(hRequestHeaders); len(asked) > 0 && headerList(asked) {
				h[hAllowHeaders] = []string{strings.Join(asked, ", ")}
			}
		}
		if p.maxAge != nil {
			h[hMaxAge] = p.maxAge
		}
	}
	// An origin or a method not allowed gets the same status, with no
	// Access-Control-* header: the browser refuses the request, and
	// nothing tells a prober which of the two it was.
	if p.status != http.StatusNoContent {
		h["Content-Length"] = valNoLength // some clients wait for a body otherwise
	}
	w.WriteHeader(p.status)
}

// ErrInvalidPreflight is the refusal of a preflight without an Origin
// header (unless LaxPreflight), written in the server's error format
// (app.WriteError).
var ErrInvalidPreflight = httpx.NewError(http.StatusBadRequest, "FST_CORS_INVALID_PREFLIGHT", "Invalid Preflight Request")

// headerList reports whether vs, an Access-Control-Request-Headers
// header, is a list of header names, as browsers send it: echoed back,
// anything else would be the client writing the answer.
func headerList(vs []string) bool {
	n := 0
	for _, v := range vs {
		n += len(v)
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" && !token.Valid(f) {
				return false
			}
		}
	}
	return n <= 4<<10
}

// varyOrigin and varyPreflight are the Vary header of most answers and
// of preflights: shared, as a slice of one value appended to is copied
// first.
var (
	varyOrigin    = []string{hOrigin}
	varyPreflight = []string{hOrigin + ", " + hRequestMethod + ", " + hRequestHeaders}
)

// addVary adds name to the Vary header unless it is there already (or
// "*" is).
func addVary(h http.Header, name string) {
	if len(h[hVary]) == 0 && name == hOrigin {
		h[hVary] = varyOrigin
		return
	}
	for _, v := range h[hVary] {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, name) {
				return
			}
		}
	}
	h[hVary] = append(h[hVary], name)
}

// String describes the policy for PrintRoutes.
func (p *policy) String() string { return p.desc }

// describe is what String says of the policy c makes.
func describe(c *config) string {
	var parts []string
	if c.anyOrigin {
		parts = append(parts, "any origin")
	}
	if len(c.origins) > 0 {
		parts = append(parts, strings.Join(c.origins, " "))
	}
	if c.pattern != nil {
		parts = append(parts, "origins matching "+c.pattern.String())
	}
	if c.originFunc != nil {
		parts = append(parts, "origins a function allows")
	}
	if c.credentials {
		parts = append(parts, "credentials")
	}
	return strings.Join(parts, ", ")
}
