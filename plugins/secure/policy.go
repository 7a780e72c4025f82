package secure

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Header names the plugin sets by default.
const (
	HeaderCSP           = "Content-Security-Policy"
	HeaderCSPReportOnly = "Content-Security-Policy-Report-Only"
)

// NonceSource, written as a source of a CSP directive, stands for the
// request's nonce: each request gets 'nonce-<base64>' in its place, and
// handlers read the value with NonceOf or as a Nonce request value. A
// policy without it costs no nonce.
const NonceSource = "'nonce'"

// ErrInvalidOption is wrapped by the error of an option the plugin
// cannot use (a header name that is not a token, a value with a line
// break); Register and Ready report it.
var ErrInvalidOption = errors.New("invalid security header option")

// DefaultCSP is helmet v8's Content-Security-Policy, the plugin's
// default, as it is sent.
const DefaultCSP = "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';" +
	"frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
	"style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests"

// defaultCSP is DefaultCSP's directives, in helmet's order.
var defaultCSP = []directive{
	{"default-src", "'self'"},
	{"base-uri", "'self'"},
	{"font-src", "'self' https: data:"},
	{"form-action", "'self'"},
	{"frame-ancestors", "'self'"},
	{"img-src", "'self' data:"},
	{"object-src", "'none'"},
	{"script-src", "'self'"},
	{"script-src-attr", "'none'"},
	{"style-src", "'self' https: 'unsafe-inline'"},
	{"upgrade-insecure-requests", ""},
}

// defaultHeaders are helmet v8's other headers.
var defaultHeaders = [][2]string{
	{"Cross-Origin-Opener-Policy", "same-origin"},
	{"Cross-Origin-Resource-Policy", "same-origin"},
	{"Origin-Agent-Cluster", "?1"},
	{"Referrer-Policy", "no-referrer"},
	{"Strict-Transport-Security", "max-age=31536000; includeSubDomains"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Dns-Prefetch-Control", "off"},
	{"X-Download-Options", "noopen"},
	{"X-Frame-Options", "SAMEORIGIN"},
	{"X-Permitted-Cross-Domain-Policies", "none"},
	{"X-Xss-Protection", "0"},
}

type directive struct{ name, value string }

// config is what the options build; Plugin turns it into a policy.
type config struct {
	headers    map[string]string // canonical name -> value; "" is off
	csp        []directive       // nil with cspOff
	cspOff     bool
	reportOnly bool
	err        error
}

// Option configures the plugin.
type Option func(*config)

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// Header sets the value of a response header, one of the defaults or
// any other (Permissions-Policy, Cross-Origin-Embedder-Policy); an
// empty value turns it off. The Content-Security-Policy is set with CSP
// and Directive instead.
func Header(name, value string) Option {
	return func(c *config) {
		key := http.CanonicalHeaderKey(name)
		switch {
		case !validName(name):
			c.fail("header name %q is not a token", name)
		case !validValue(value):
			c.fail("the value of %s holds a control character", key)
		case key == HeaderCSP || key == HeaderCSPReportOnly:
			c.fail("set %s with secure.CSP or secure.Directive", key)
		default:
			c.headers[key] = value
		}
	}
}

// CSP replaces the whole Content-Security-Policy with policy, written
// as the header is ("default-src 'self'; img-src 'self' data:"); an
// empty policy turns the header off. NonceSource in a directive puts the
// request's nonce there.
func CSP(policy string) Option {
	return func(c *config) {
		if !validValue(policy) {
			c.fail("the Content-Security-Policy holds a control character")
			return
		}
		c.csp, c.cspOff = nil, strings.TrimSpace(policy) == ""
		for part := range strings.SplitSeq(policy, ";") {
			if name, value, ok := splitDirective(part); ok {
				c.csp = setDirective(c.csp, name, value)
			}
		}
	}
}

// Directive sets one directive of the Content-Security-Policy (helmet's
// defaults unless CSP replaced them) to sources, adding it when the
// policy has none of that name; with no sources, the directive is
// written alone (upgrade-insecure-requests).
func Directive(name string, sources ...string) Option {
	return func(c *config) {
		value := strings.Join(sources, " ")
		if !validDirective(name) || !validValue(value) || strings.Contains(value, ";") {
			c.fail("invalid Content-Security-Policy directive %q %q", name, value)
			return
		}
		c.csp, c.cspOff = setDirective(c.csp, strings.ToLower(name), value), false
	}
}

// DropDirective removes a directive from the Content-Security-Policy:
// DropDirective("upgrade-insecure-requests") for a site served over
// plain HTTP.
func DropDirective(name string) Option {
	return func(c *config) {
		c.csp = slices.DeleteFunc(slices.Clone(c.csp), func(d directive) bool { return d.name == strings.ToLower(name) })
	}
}

// ReportOnly sends the policy as Content-Security-Policy-Report-Only:
// browsers report violations (to the policy's report-to or report-uri)
// and block nothing.
func ReportOnly() Option { return func(c *config) { c.reportOnly = true } }

// API is the preset for a context that answers JSON and serves no page:
// a policy that allows nothing to load or frame the answer
// ("default-src 'none'; frame-ancestors 'none'") and X-Frame-Options
// DENY, with helmet's other headers. Options after it change it further.
func API() Option {
	return func(c *config) {
		c.csp, c.cspOff = []directive{{"default-src", "'none'"}, {"frame-ancestors", "'none'"}}, false
		c.headers["X-Frame-Options"] = "DENY"
	}
}

// none turns every default header and the policy off.
func none() Option {
	return func(c *config) {
		for _, h := range defaultHeaders {
			c.headers[h[0]] = ""
		}
		c.csp, c.cspOff = nil, true
	}
}

func newConfig(opts []Option) *config {
	c := &config{headers: make(map[string]string, len(defaultHeaders)), csp: slices.Clone(defaultCSP)}
	for _, h := range defaultHeaders {
		c.headers[h[0]] = h[1]
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func splitDirective(s string) (name, value string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", false
	}
	name, value, _ = strings.Cut(s, " ")
	return strings.ToLower(name), strings.Join(strings.Fields(value), " "), true
}

func setDirective(csp []directive, name, value string) []directive {
	csp = slices.Clone(csp)
	for i := range csp {
		if csp[i].name == name {
			csp[i].value = value
			return csp
		}
	}
	return append(csp, directive{name, value})
}

// renderCSP writes the policy as helmet does: directives joined by ";".
func renderCSP(csp []directive) string {
	var b strings.Builder
	for i, d := range csp {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(d.name)
		if d.value != "" {
			b.WriteByte(' ')
			b.WriteString(d.value)
		}
	}
	return b.String()
}

// validName reports whether name is an RFC 9110 token.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 || c == 0x7f {
			return false
		}
	}
	return true
}

func validDirective(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validValue refuses control characters but tab: a line break would
// split the header.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
