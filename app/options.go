package app

import (
	"log/slog"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/slogzap"
)

// config holds New's options.
type config struct {
	logger         *zap.Logger
	pluginTimeout  time.Duration
	maxParamLength int
	requestIDHdr   string
	requestIDEcho  string // canonical
	logRequests    bool
	name           string

	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	maxHeaderBytes    int
	drainDelay        time.Duration
	requestTimeout    time.Duration
	maxBodyBytes      int64
	bodyTimeout       time.Duration
	replyTimeout      time.Duration
	errors            httpx.ErrorFormat
	protocols         *http.Protocols
	trustedProxies    []string
	clientIPHeader    string
}

// Option configures New.
type Option func(*config)

// newConfig is New's configuration: the defaults (each With… option
// documents its own), then opts, then the default again for a body or
// header limit of 0 or less and for a nil logger.
func newConfig(opts []Option) config {
	cfg := config{
		logger:            zap.NewNop(),
		pluginTimeout:     10 * time.Second,
		maxParamLength:    httpx.DefaultMaxParamLength,
		logRequests:       true,
		name:              "root",
		readHeaderTimeout: 10 * time.Second,
		idleTimeout:       75 * time.Second,
		maxBodyBytes:      DefaultBodyLimit,
		bodyTimeout:       10 * time.Second,
		replyTimeout:      30 * time.Second,
		maxHeaderBytes:    DefaultMaxHeaderBytes,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxBodyBytes <= 0 {
		cfg.maxBodyBytes = DefaultBodyLimit
	}
	if cfg.maxHeaderBytes <= 0 {
		cfg.maxHeaderBytes = DefaultMaxHeaderBytes // not net/http's 1 MiB, which 0 would mean
	}
	if cfg.logger == nil {
		cfg.logger = zap.NewNop()
	}
	return cfg
}

// WithLogger sets the logger. The default discards everything. Each
// context logs through a child carrying its context path; each request
// through a child carrying its id.
func WithLogger(l *zap.Logger) Option { return func(c *config) { c.logger = l } }

// WithSlogHandler makes Burrow log to h, a log/slog handler, instead of
// a zap logger (it replaces WithLogger's; the last of the two wins): h's
// level and format apply to every line, the access log's and the
// request loggers' included. Context paths, request ids and the other
// fields are h's attributes.
func WithSlogHandler(h slog.Handler) Option {
	return func(c *config) {
		if h != nil {
			c.logger = zap.New(slogzap.NewCore(h))
		}
	}
}

// WithoutRequestLogging turns off the "incoming request" and "request
// completed" lines, which are on by default (they are written at info
// level, so the logger's level decides too).
func WithoutRequestLogging() Option { return func(c *config) { c.logRequests = false } }

// WithRequestLogging turns the access log on or off.
//
// Deprecated: the access log is on by default; WithoutRequestLogging
// turns it off. A bool option reads as "request logging: false" at the
// call site.
func WithRequestLogging(on bool) Option { return func(c *config) { c.logRequests = on } }

// WithPluginTimeout bounds how long one plugin body may run at Ready
// (default 10 s; 0 disables the bound). Ready then fails; the body itself
// keeps running in its goroutine until it returns, as Go cannot stop it,
// so a plugin doing I/O should honour a context deadline of its own.
func WithPluginTimeout(d time.Duration) Option { return func(c *config) { c.pluginTimeout = d } }

// WithMaxParamLength bounds the length of one path parameter (default 100);
// a longer one does not match, which answers 404.
func WithMaxParamLength(n int) Option { return func(c *config) { c.maxParamLength = n } }

// WithRequestIDHeader makes a request's id the value of this header when
// the client sends a well-formed one: 1 to 128 letters, digits and
// "-_.:" (default: none, ids are generated). Any other value is ignored,
// as callers can send anything.
func WithRequestIDHeader(name string) Option { return func(c *config) { c.requestIDHdr = name } }

// WithRequestIDResponseHeader makes every response carry its request's
// id in this header (default: none), the id a client sent (see
// WithRequestIDHeader; often the same header) or the one Burrow made, so
// a client can quote it and the logs be searched for it. Answers outside
// any route's context (the 503s before Ready and after Close, a
// malformed path's 400) carry none.
func WithRequestIDResponseHeader(name string) Option {
	return func(c *config) { c.requestIDEcho = http.CanonicalHeaderKey(name) }
}

// WithServerErrorText makes a 5xx answer to an error that is not an
// *httpx.Error (a driver's, a dial's, anything a handler returns as it
// got it) carry that error's text. By default it does not: such text was
// written for logs and can name a table, a host, a file path; hidden,
// the message is the status text ("Internal Server Error"), and the
// whole error is logged. Use it in development to read errors in the
// replies. The message of an *httpx.Error is sent whatever its status
// (a 503 "database unavailable" was written for the client), and so is
// every 4xx message, which tells the client what to fix. A panic's value
// is never sent, whatever this says. It applies to the default error
// handler and to httpx.Reply.SendError.
func WithServerErrorText() Option { return func(c *config) { c.errors.ServerMessages = true } }

// WithServerErrorMessages says whether 5xx answers carry the text of
// errors that are not *httpx.Error values (default false).
//
// Deprecated: the text is hidden by default; WithServerErrorText shows
// it. A bool option reads as "server error messages: false" at the call
// site.
func WithServerErrorMessages(on bool) Option {
	return func(c *config) { c.errors.ServerMessages = on }
}

// WithProblemDetails answers errors with RFC 9457 problem details
// (httpx.Problem, content type application/problem+json) instead of
// Burrow's default body, Fastify's: the default error handler,
// httpx.Reply.SendError and every answer of the framework's own (404,
// 405, 400, 413, 415, a validation failure, a time-out, a panic). The
// type is the error's httpx.Error.Type, "about:blank" when it has none;
// title is the status text, status the status, detail the message
// (hidden for a 5xx unless WithServerErrorText) and instance the
// request's path; code and the validation list are extension members,
// left out when empty. The OpenAPI document (app/openapi) describes
// these bodies then. It applies to the whole server, as a client reads
// one API with one error shape; answers a handler or an error handler
// of the user's sends itself are its own.
func WithProblemDetails() Option { return func(c *config) { c.errors.Problems = true } }

// WithRootName names the root context (default "root").
func WithRootName(name string) Option { return func(c *config) { c.name = name } }

// WithTimeouts sets the http.Server time-outs Listen uses; 0 disables one.
// Defaults: read-header 10 s (slow-header clients are cut off), read and
// write 0, idle 75 s (above nginx's 60 s upstream keep-alive, so a proxy
// never reuses a connection Burrow is closing).
//
// Read and write time-outs are off by default because net/http re-arms
// them on every request, which costs about 10% of a small request's
// throughput. Bodies are bounded instead by WithBodyTimeout, which costs
// only requests that carry one, and replies by WithReplyTimeout. A write
// time-out set here bounds the whole request, from the end of its header
// to the end of its reply, handler included; it then replaces the reply
// time-out, as both would own the connection's write deadline.
func WithTimeouts(readHeader, read, write, idle time.Duration) Option {
	return func(c *config) {
		c.readHeaderTimeout, c.readTimeout, c.writeTimeout, c.idleTimeout = readHeader, read, write, idle
	}
}

// WithRequestTimeout bounds how long a request may be served (default 0,
// none). When it expires before the handler began its reply, the client
// gets 503 FST_ERR_REQUEST_TIMEOUT at once, with "connection: close"; the
// request's context is done, OnTimeout hooks run, and whatever the
// handler writes from then on is discarded, as http.TimeoutHandler does
// (the handler keeps running until it returns: stop it with the
// context). A reply begun before the deadline is left alone, but its
// context ends at the deadline too, with a cause that errors.Is matches
// to context.DeadlineExceeded (a stream's handler hears of it). It costs a
// timer and a guarded writer per request, so it is off unless asked for.
func WithRequestTimeout(d time.Duration) Option { return func(c *config) { c.requestTimeout = d } }

// WithDrainDelay makes Close wait d after readiness flips (IsReady turns
// false) before it stops accepting connections, so a load balancer that
// health-checks IsReady has time to stop sending traffic. Choose at least
// the balancer's check interval times its failure threshold. Default 0.
func WithDrainDelay(d time.Duration) Option { return func(c *config) { c.drainDelay = d } }

// WithMaxBodyBytes sets the server's body limit (default
// DefaultBodyLimit, 1 MiB). A Content-Length above it is refused with 413
// before the body is read; a chunked body is cut at it. Contexts and
// routes may set their own (SetBodyLimit, BodyLimit).
func WithMaxBodyBytes(n int64) Option { return func(c *config) { c.maxBodyBytes = n } }

// WithBodyTimeout bounds how long a route that reads the body (one taking
// Body[T]) waits for all of it, from the moment it starts reading (default
// 10 s, enough for the default 1 MiB at 100 KB/s; 0 disables). A body
// still arriving then is answered 408 and the connection closed. A mounted
// or http.Handler route's reads of the body fail at it, counted from the
// handler's start (the handler may extend it through
// http.ResponseController). It also
// bounds net/http's read of an unread body after the handler (which it
// does to reuse the connection), so a slow sender cannot hold a
// connection to a route that ignores bodies. Requests without a body pay
// nothing.
func WithBodyTimeout(d time.Duration) Option { return func(c *config) { c.bodyTimeout = d } }

// WithReplyTimeout bounds how long writing one reply may take, from the
// moment it starts being written until it has left, OnResponse hooks
// included (default 30 s; 0 disables). A client that stops reading loses
// its connection then, instead of pinning the handler's goroutine, the
// reply and the connection for as long as it likes. The deadline is set
// on the connection right before each reply is written (net/http clears it
// after the request), so idle connections and the handler's own time pay
// nothing. A handler that sends a very large reply may raise it
// for that reply with Reply.SetWriteTimeout; writes through Reply.Raw are
// not bounded, except a mounted or http.Handler route's, from its first
// write (unless it set a write deadline of its own). A non-zero write
// time-out given to WithTimeouts replaces it.
//
// A time-out of 8 s or more may end up to a second early: a connection
// keeps the deadline it armed for the reply before when that one is at
// most a second sooner, rather than re-arm its timer for every reply
// (which costs a small request a few percent of its time).
func WithReplyTimeout(d time.Duration) Option { return func(c *config) { c.replyTimeout = d } }

// DefaultMaxHeaderBytes is the request header limit when none is set:
// 16 KiB, as Node's (and so Fastify's). net/http allows 4 KiB more than
// the limit before it answers 431.
const DefaultMaxHeaderBytes = 16 << 10

// WithMaxHeaderBytes bounds the size of the request line and header Listen
// accepts (default DefaultMaxHeaderBytes; larger requests get 431 from
// net/http). Every connection may hold this much while it is served, so
// the limit is also what each slow client can pin.
func WithMaxHeaderBytes(n int) Option { return func(c *config) { c.maxHeaderBytes = n } }

// WithProtocols sets the protocols Listen, ListenTLS and Serve accept
// (default: HTTP/1 and, over TLS, HTTP/2 — net/http's default). Adding
// UnencryptedHTTP2 serves HTTP/2 without TLS ("h2c") beside HTTP/1 on the
// same port, for a proxy that speaks it to its backends (Envoy, a gRPC
// gateway, Cloud Run's end-to-end HTTP/2): net/http accepts it from
// clients with prior knowledge, not through an "Upgrade: h2c" request.
// An empty set is the default, not a server that speaks nothing.
func WithProtocols(p http.Protocols) Option {
	return func(c *config) {
		if p == (http.Protocols{}) {
			c.protocols = nil
			return
		}
		c.protocols = &p
	}
}

// WithTrustedProxies names the proxies whose forwarding header the
// server believes: CIDR prefixes ("10.0.0.0/8"), single addresses
// ("127.0.0.1", "::1"), or "loopback", "linklocal" and "uniquelocal" (the
// private ranges). A request from one of them has as its client address
// (httpx.Request.ClientIP, and the access log's clientIp) the right-most
// address of the header that none of them holds; a request from any
// other peer has the peer's, whatever headers it sends. Default: none, so
// no header is believed. An entry that is none of these makes Ready fail.
// Several calls add up.
//
// Trust only the proxies in front of the server, and only a header they
// write: X-Forwarded-For, unless WithClientIPHeader says Forwarded.
func WithTrustedProxies(cidrs ...string) Option {
	return func(c *config) { c.trustedProxies = append(c.trustedProxies, cidrs...) }
}

// WithClientIPHeader names the forwarding header trusted proxies write:
// "X-Forwarded-For" (the default, which nginx, HAProxy, Envoy and the
// clouds' load balancers write) or "Forwarded" (RFC 7239's for=). Only
// that one is read: a proxy that appends to one passes the other on as
// the client wrote it, so reading both would let a client choose its
// address. Any other name makes Ready fail.
func WithClientIPHeader(name string) Option { return func(c *config) { c.clientIPHeader = name } }
