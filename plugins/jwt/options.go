package jwt

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/burrow-go/burrow/internal/token"
	"github.com/burrow-go/burrow/plugins/health"
)

// Defaults and bounds of the options.
const (
	// DefaultLeeway is the clock skew allowed on exp and nbf.
	DefaultLeeway = 30 * time.Second
	// MaxLeeway is the largest Leeway accepted.
	MaxLeeway = 5 * time.Minute
	// DefaultMaxTokenSize is the longest token verified, in bytes; a
	// longer one is refused before anything is decoded.
	DefaultMaxTokenSize = 8 << 10
)

// Errors of invalid options; Register (and Ready) fail with them,
// wrapped in a *app.PluginError naming the plugin.
var (
	// ErrNoKeys: the plugin has no way to get a key.
	ErrNoKeys = errors.New("no key source: give jwt.Discovery, jwt.JWKS, jwt.Secret or jwt.PublicKey")
	// ErrKeySources: keys from an issuer and static keys were both given.
	ErrKeySources = errors.New("jwt.Discovery, jwt.JWKS and the static keys (jwt.Secret, jwt.PublicKey) are exclusive")
	// ErrNoAudience: an issuer's tokens are verified without an audience,
	// so a token the issuer made for another service would be accepted.
	ErrNoAudience = errors.New("keys from an issuer need jwt.Audience: the issuer's tokens for other services would pass")
	// ErrNoIssuer: keys from a JWK set URL without the issuer to require.
	ErrNoIssuer = errors.New("jwt.JWKS needs jwt.Issuer: tokens of any issuer sharing the keys would pass")
)

// Option configures the plugin.
type Option func(*config)

type config struct {
	discovery string
	jwksURL   string
	static    []*key
	issuer    string
	audience  []string
	leeway    time.Duration
	maxSize   int
	require   []string
	client    *http.Client
	checks    *health.Checks
	logLevel  zapcore.Level
	scheme    string
	optional  bool
	now       func() time.Time
	wait      func(ctx context.Context, d time.Duration) bool
	err       error
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Discovery takes the keys from the issuer at issuerURL, through its
// OpenID discovery document (issuerURL + "/.well-known/openid-configuration"),
// whose jwks_uri names the key set. Tokens must carry iss equal to
// issuerURL, which the document must name too.
func Discovery(issuerURL string) Option {
	return func(c *config) {
		if err := checkURL(issuerURL); err != nil {
			c.fail(fmt.Errorf("jwt.Discovery: invalid issuer URL %q: %w", issuerURL, err))
			return
		}
		c.discovery = issuerURL
	}
}

// JWKS takes the keys from the JWK set at url. Issuer is then required.
func JWKS(url string) Option {
	return func(c *config) {
		if err := checkURL(url); err != nil {
			c.fail(fmt.Errorf("jwt.JWKS: invalid URL %q: %w", url, err))
			return
		}
		c.jwksURL = url
	}
}

// Secret verifies HS256 tokens with secret, for a service that signs its
// own tokens (no issuer). The secret must be at least 32 bytes. It is
// the only way an HMAC algorithm is ever accepted.
func Secret(secret []byte) Option {
	return func(c *config) {
		if len(secret) < minSecret {
			c.fail(fmt.Errorf("jwt.Secret: a secret of %d bytes is too short: at least %d", len(secret), minSecret))
			return
		}
		c.static = append(c.static, &key{raw: slices.Clone(secret), algs: hmacAlgs})
	}
}

// PublicKey verifies tokens with pub, an *rsa.PublicKey (2048 bits or
// more; RS256 to RS512, PS256 to PS512), *ecdsa.PublicKey (ES256,
// ES384 or ES512 after its curve) or ed25519.PublicKey (EdDSA).
func PublicKey(pub crypto.PublicKey) Option {
	return func(c *config) {
		algs, err := publicAlgs(pub, "")
		if err != nil {
			c.fail(fmt.Errorf("jwt.PublicKey: %w", err))
			return
		}
		c.static = append(c.static, &key{raw: pub, algs: algs})
	}
}

// Issuer requires tokens whose iss is iss.
func Issuer(iss string) Option {
	return func(c *config) {
		if iss == "" {
			c.fail(errors.New("jwt.Issuer: empty issuer"))
			return
		}
		c.issuer = iss
	}
}

// Audience requires tokens whose aud holds one of auds.
func Audience(auds ...string) Option {
	return func(c *config) {
		if len(auds) == 0 || slices.Contains(auds, "") {
			c.fail(errors.New("jwt.Audience: empty audience"))
			return
		}
		c.audience = append(c.audience, auds...)
	}
}

// Leeway sets the clock skew allowed on exp and nbf (DefaultLeeway, at
// most MaxLeeway).
func Leeway(d time.Duration) Option {
	return func(c *config) {
		if d < 0 || d > MaxLeeway {
			c.fail(fmt.Errorf("jwt.Leeway: %v is out of [0, %v]", d, MaxLeeway))
			return
		}
		c.leeway = d
	}
}

// Require refuses tokens without each of the named claims (exp is
// always required).
func Require(claims ...string) Option {
	return func(c *config) {
		if slices.Contains(claims, "") {
			c.fail(errors.New("jwt.Require: empty claim name"))
			return
		}
		c.require = append(c.require, claims...)
	}
}

// MaxTokenSize sets the longest token verified, in bytes
// (DefaultMaxTokenSize).
func MaxTokenSize(n int) Option {
	return func(c *config) {
		if n < 64 {
			c.fail(fmt.Errorf("jwt.MaxTokenSize: %d bytes is too small for a token", n))
			return
		}
		c.maxSize = n
	}
}

// HTTPClient sets the client fetching discovery documents and key sets
// (default: a client of its own; each fetch is bounded to 10 seconds
// anyway).
func HTTPClient(client *http.Client) Option {
	return func(c *config) {
		if client == nil {
			c.fail(errors.New("jwt.HTTPClient: nil client"))
			return
		}
		c.client = client
	}
}

// Health adds to checks a readiness check named "jwks", failing until the
// issuer's keys have been fetched once; later failures to refresh them
// do not fail it, since the keys fetched keep verifying tokens. Static
// keys need no check, and add none.
func Health(checks *health.Checks) Option {
	return func(c *config) {
		if checks == nil {
			c.fail(errors.New("jwt.Health: nil checks"))
			return
		}
		c.checks = checks
	}
}

// LogLevel sets the level refused requests are logged at, with the
// reason (default debug, as every 4xx). Tokens are never logged.
func LogLevel(l zapcore.Level) Option {
	return func(c *config) {
		if l < zapcore.DebugLevel || l > zapcore.FatalLevel {
			c.fail(fmt.Errorf("jwt.LogLevel: invalid level %d", l))
			return
		}
		c.logLevel = l
	}
}

// Scheme sets the authorization scheme tokens come with (default
// "Bearer"), matched in any case: "Token" for an API whose clients send
// "Authorization: Token <jwt>", as the RealWorld API does. It must be an
// RFC 9110 token. The answers' challenges name it.
func Scheme(name string) Option {
	return func(c *config) {
		if !token.Valid(name) {
			c.fail(fmt.Errorf("jwt.Scheme: invalid scheme %q", name))
			return
		}
		c.scheme = name
	}
}

// Optional lets a request without an Authorization header through, with
// a nil *Claims[T], for routes anyone may call whose answer depends on
// who asks. A request with a header still needs a valid token (401
// otherwise), and a route given Scopes still needs one.
func Optional() Option { return func(c *config) { c.optional = true } }

func newConfig(opts []Option) (*config, error) {
	c := &config{leeway: DefaultLeeway, maxSize: DefaultMaxTokenSize, logLevel: zapcore.DebugLevel, now: time.Now,
		scheme: "Bearer"}
	for _, o := range opts {
		o(c)
	}
	remote := c.discovery != "" || c.jwksURL != ""
	switch {
	case c.err != nil:
		return nil, c.err
	case c.discovery != "" && c.jwksURL != "", remote && len(c.static) > 0:
		return nil, ErrKeySources
	case !remote && len(c.static) == 0:
		return nil, ErrNoKeys
	case remote && len(c.audience) == 0:
		return nil, ErrNoAudience
	case c.jwksURL != "" && c.issuer == "":
		return nil, ErrNoIssuer
	case c.discovery != "" && c.issuer != "" && c.issuer != c.discovery:
		return nil, fmt.Errorf("jwt.Issuer %q differs from the issuer given to jwt.Discovery, %q", c.issuer, c.discovery)
	}
	if c.discovery != "" {
		c.issuer = c.discovery
	}
	if c.client == nil {
		c.client = &http.Client{Timeout: fetchTimeout}
	}
	return c, nil
}
