package cors

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/burrow-go/burrow/internal/token"
)

// Option configures a policy: the plugin's (Plugin) or a route's
// (Override). An invalid one makes Register fail (and Ready), naming the
// plugin, or Ready fail naming the route.
type Option func(*config)

// ErrNoOrigin is returned for a policy that names no origin: a CORS
// plugin that allows nothing is a configuration mistake, and one that
// allows everything should say so (Origins("*")).
var ErrNoOrigin = errors.New(`cors: no origin configured: give cors.Origins, cors.OriginPattern or cors.OriginFunc (cors.Origins("*") allows any)`)

type config struct {
	anyOrigin     bool
	origins       []string
	pattern       *regexp.Regexp
	originFunc    func(origin string) bool
	methods       []string // nil: any method the path serves
	allowHeaders  []string // nil: the headers the preflight asks for
	exposeHeaders []string
	credentials   bool
	maxAge        time.Duration
	maxAgeSet     bool
	successStatus int
	lax           bool // LaxPreflight
	err           error
}

// fail records err unless an earlier option failed.
func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Origins allows these origins, each as a browser sends it:
// scheme://host[:port], nothing after ("https://app.example",
// "http://localhost:5173"). "*" allows any origin, which the answers then
// say with "Access-Control-Allow-Origin: *" rather than by echoing the
// origin. "null" is refused: sandboxed frames and local files send it,
// so allowing it allows any page that makes itself one.
func Origins(origins ...string) Option {
	return func(c *config) {
		for _, o := range origins {
			if o == "*" {
				c.anyOrigin = true
				continue
			}
			norm, err := origin(o)
			if err != nil {
				c.fail(err)
				continue
			}
			c.origins = append(c.origins, norm)
		}
	}
}

// origin checks o is an origin as a browser serializes it and returns it
// in lower case, as browsers send it.
func origin(o string) (string, error) {
	if strings.EqualFold(o, "null") {
		return "", fmt.Errorf(`cors.Origins: "null" is the origin of sandboxed frames and local files, which any page can make itself: it cannot be allowed`)
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
		return "", fmt.Errorf("cors.Origins: %q is not an origin: write scheme://host[:port], with nothing after", o)
	}
	return strings.ToLower(o), nil
}

// OriginPattern allows the origins that expr, a regular expression (Go's
// RE2 syntax, which runs in time linear in the origin: no pattern can be
// made to take long), matches as a whole: "https://[a-z0-9-]+\.example\.com"
// allows every subdomain of example.com over HTTPS and nothing that only
// contains it. Write dots as "\.": an unescaped one matches any
// character.
// The origin "null" is never allowed, whatever expr matches.
func OriginPattern(expr string) Option {
	return func(c *config) {
		re, err := regexp.Compile(`^(?:` + expr + `)$`)
		if err != nil {
			c.fail(fmt.Errorf("cors.OriginPattern: %w", err))
			return
		}
		c.pattern = re
	}
}

// OriginFunc allows the origins fn accepts. fn sees the origin only, not
// the request: what it answers depends on nothing else, so a cache that
// varies on Origin (as every answer says) never serves one client's
// answer to another. It is called once per request from an origin no
// other option allows, on the request's goroutine, and must be safe for
// concurrent use; keep it fast, or cache its answers.
// It is never asked about "null", which is never allowed.
func OriginFunc(fn func(origin string) bool) Option {
	return func(c *config) {
		if fn == nil {
			c.fail(errors.New("cors.OriginFunc: nil function"))
			return
		}
		c.originFunc = fn
	}
}

// Methods limits the methods a preflight may announce (default: any
// method the path serves, in the context answering for it). Simple
// methods (GET, HEAD, POST) are sent without a preflight, so listing
// them changes nothing.
func Methods(methods ...string) Option {
	return func(c *config) {
		for _, m := range methods {
			if !token.Valid(m) {
				c.fail(fmt.Errorf("cors.Methods: %q is not a method", m))
				continue
			}
			c.methods = append(c.methods, m) // methods are case-sensitive
		}
		if c.methods == nil {
			c.methods = []string{}
		}
	}
}

// AllowHeaders lists the request headers a cross-origin request may
// carry (Access-Control-Allow-Headers). Default: those the preflight
// asks for (Access-Control-Request-Headers), as @fastify/cors does.
func AllowHeaders(headers ...string) Option {
	return func(c *config) { c.allowHeaders = appendHeaders(c, "cors.AllowHeaders", c.allowHeaders, headers) }
}

// ExposeHeaders lists the response headers a cross-origin script may
// read beyond the safelisted ones (Access-Control-Expose-Headers).
func ExposeHeaders(headers ...string) Option {
	return func(c *config) { c.exposeHeaders = appendHeaders(c, "cors.ExposeHeaders", c.exposeHeaders, headers) }
}

func appendHeaders(c *config, opt string, to, headers []string) []string {
	for _, h := range headers {
		if !token.Valid(h) {
			c.fail(fmt.Errorf("%s: %q is not a header name", opt, h))
			continue
		}
		to = append(to, http.CanonicalHeaderKey(h))
	}
	if to == nil {
		to = []string{}
	}
	return to
}

// Credentials lets cross-origin requests carry cookies and HTTP
// authentication, and their answers be read
// (Access-Control-Allow-Credentials: true). It cannot be combined with
// Origins("*"), which browsers refuse it for: list the origins.
func Credentials() Option { return func(c *config) { c.credentials = true } }

// MaxAge lets a browser cache a preflight's answer for d
// (Access-Control-Max-Age, in whole seconds; browsers cap it, Chromium at
// two hours). Default: not sent, so browsers keep it five seconds.
func MaxAge(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.fail(fmt.Errorf("cors.MaxAge: negative duration %v", d))
			return
		}
		c.maxAge, c.maxAgeSet = d, true
	}
}

// SuccessStatus is the status of an allowed preflight's answer (default
// 204 No Content; 200 for clients that mishandle 204). It must be 2xx.
func SuccessStatus(code int) Option {
	return func(c *config) {
		if code < 200 || code > 299 {
			c.fail(fmt.Errorf("cors.SuccessStatus: %d is not a 2xx status", code))
			return
		}
		c.successStatus = code
	}
}

// LaxPreflight answers a preflight without an Origin header as a
// preflight from no origin: only Origins("*") allows it. By default such
// a request is refused with 400 ErrInvalidPreflight, as @fastify/cors
// does: browsers always send one, so what lacks it is not a browser's
// preflight.
func LaxPreflight() Option { return func(c *config) { c.lax = true } }

// newConfig applies opts to the defaults and checks the result.
func newConfig(opts []Option) (config, error) {
	c := config{successStatus: http.StatusNoContent}
	for _, o := range opts {
		if o == nil {
			c.fail(errors.New("cors: nil option"))
			continue
		}
		o(&c)
	}
	if c.err != nil {
		return c, c.err
	}
	if !c.anyOrigin && len(c.origins) == 0 && c.pattern == nil && c.originFunc == nil {
		return c, ErrNoOrigin
	}
	if c.anyOrigin && c.credentials {
		return c, errors.New(`cors.Credentials cannot be combined with cors.Origins("*"): browsers refuse credentials for any origin; list the origins`)
	}
	return c, nil
}

// maxAgeValue is the Access-Control-Max-Age value, empty for none.
func (c *config) maxAgeValue() string {
	if !c.maxAgeSet {
		return ""
	}
	return strconv.FormatInt(int64(c.maxAge/time.Second), 10)
}
