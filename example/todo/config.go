package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/burrow-go/burrow/app/config"
)

// settings is what the flags and the environment say: each flag also
// reads TODO_<NAME> (config.EnvPrefix), a flag on the command line
// winning, and TODO_<NAME>_FILE names a file holding the value (a
// mounted secret). Every value that is not valid is reported at once and
// the command exits 2 before it listens; -print-config prints the
// result, secrets redacted.
type settings struct {
	Port  int        `flag:"port" env:"PORT" default:"8080" validate:"min=0,max=65535" usage:"port to listen on"`
	Host  string     `flag:"host" default:"127.0.0.1" validate:"required" usage:"address to listen on"`
	DB    config.URL `flag:"db" usage:"a SQLite database file, empty for a fresh in-memory database, or a postgres:// URL"`
	Users userList   `flag:"users" usage:"users as name:token,name:token; none: one user \"demo\" with a random token"`

	OpenAPI        bool   `flag:"openapi" usage:"print the OpenAPI document (what GET /openapi.json serves, or the -openapi-version rendition), then exit"`
	Routes         bool   `flag:"routes" usage:"print the routes as JSON, each with what guards it (auth, csrf, rateLimit, cors), then exit"`
	OpenAPIVersion string `flag:"openapi-version" default:"3.1" validate:"enum=3.1|3.2|3.0" usage:"the rendition -openapi prints: 3.1 (/openapi.json), 3.2 (/openapi-3.2.json) or 3.0 (/openapi-3.0.json)"`
	PrintConfig    bool   `flag:"print-config" usage:"print the effective configuration as JSON, secrets redacted, then exit"`

	Origins originList `flag:"cors-origins" usage:"origins whose pages may call the API, as https://a.example,https://b.example; none: no CORS"`
	Proxies proxyList  `flag:"trusted-proxies" usage:"proxies whose X-Forwarded-For is believed, as CIDRs or addresses: 127.0.0.1/32,10.0.0.0/8"`
	Redis   config.URL `flag:"redis" validate:"format=uri" usage:"keep sessions and rate limits in Redis, redis://host:port/db; none: in memory"`

	RateLimit   int           `flag:"rate-limit" default:"600" validate:"min=1" usage:"requests per user per minute on the authenticated routes"`
	RateLimitIP int           `flag:"rate-limit-ip" default:"60" validate:"min=1" usage:"requests per client address per minute on the other routes (401s, failed logins and unknown paths count)"`
	Admin       hostPort      `flag:"admin" usage:"host:port of the admin listener (GET /healthz, /readyz, /metrics, /debug/pprof/); none by default"`
	Drain       time.Duration `flag:"drain" validate:"min=0" usage:"on SIGTERM, how long /readyz fails while requests are still served, before the listener closes"`

	RequireIfMatch bool `flag:"require-if-match" usage:"answer 428 to a PATCH or DELETE of a todo without If-Match"`

	// Identity providers: read, checked and printed, not used yet.
	JWTIssuer        string        `flag:"jwt-issuer" validate:"format=uri" requires:"jwt-audience" usage:"accept JWTs from this issuer (its JWKS from URL/.well-known/openid-configuration)"`
	JWTAudience      string        `flag:"jwt-audience" requires:"jwt-issuer" usage:"the audience a JWT must name"`
	OIDCIssuer       string        `flag:"oidc-issuer" validate:"format=uri" requires:"oidc-client-id,oidc-client-secret,public-url" usage:"log browsers in through this OpenID Connect issuer"`
	OIDCClientID     string        `flag:"oidc-client-id" requires:"oidc-issuer" usage:"the client id registered at -oidc-issuer"`
	OIDCClientSecret config.Secret `flag:"oidc-client-secret" requires:"oidc-issuer" usage:"the client secret registered at -oidc-issuer"`
	PublicURL        string        `flag:"public-url" validate:"format=uri" usage:"the service's public base URL, as https://todo.example"`
}

// parseFlags reads args and the variables getenv returns.
func parseFlags(args []string, getenv func(string) string) (settings, error) {
	var s settings
	err := config.Load(&s, config.Args(args), config.Getenv(getenv), config.EnvPrefix("TODO_"))
	return s, err
}

// traffic is the flags that protect the public server.
func (s settings) traffic() trafficFlags {
	return trafficFlags{perUser: s.RateLimit, perIP: s.RateLimitIP, admin: string(s.Admin), drain: s.Drain}
}

// userList is -users: name:token,… (parseUsers). Printed, logged or
// dumped, its tokens are redacted.
type userList []user

func (l *userList) UnmarshalText(b []byte) error {
	users, err := parseUsers(string(b))
	if err != nil {
		// Load names the flag or variable: the sentence alone.
		return errors.New(strings.TrimPrefix(err.Error(), errBadUsers.Error()+": "))
	}
	*l = users
	return nil
}

// String is the list with each token redacted: "alice:[redacted],…".
func (l userList) String() string {
	parts := make([]string, len(l))
	for i, u := range l {
		parts[i] = u.name + ":" + config.Redacted
	}
	return strings.Join(parts, ",")
}

func (l userList) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// originList is -cors-origins: web origins, scheme://host[:port], or *.
type originList []string

func (l *originList) UnmarshalText(b []byte) error {
	var origins []string
	for i, o := range splitList(string(b)) {
		u, err := url.Parse(o)
		if o != "*" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(o, "?#")) {
			return fmt.Errorf("item %d, %q, is not an origin: want scheme://host[:port], as https://app.example", i+1, o)
		}
		origins = append(origins, o)
	}
	*l = origins
	return nil
}

// proxyList is -trusted-proxies: addresses and CIDR prefixes.
type proxyList []string

func (l *proxyList) UnmarshalText(b []byte) error {
	var proxies []string
	for i, p := range splitList(string(b)) {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				return fmt.Errorf("item %d, %q, is not an address or a CIDR prefix, as 10.0.0.0/8", i+1, p)
			}
		}
		proxies = append(proxies, p)
	}
	*l = proxies
	return nil
}

// hostPort is -admin: host:port, the port a number (0 picks one).
type hostPort string

func (h *hostPort) UnmarshalText(b []byte) error {
	_, port, err := net.SplitHostPort(string(b))
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return fmt.Errorf("must be host:port for the admin listener, the port from 0 to 65535, as 127.0.0.1:9090")
	}
	*h = hostPort(b)
	return nil
}

// splitList reads a comma-separated flag: its items, spaces trimmed, empty
// ones skipped.
func splitList(flag string) []string {
	var items []string
	for item := range strings.SplitSeq(flag, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
