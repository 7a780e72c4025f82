package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/scope"
	"github.com/burrow-go/burrow/slogzap"
)

// Server is a handle on one encapsulation context. New returns the root's;
// a plugin receives the handle of the context it loads into. Everything
// registered through a handle lands in its context.
type Server struct {
	a    *instance
	n    *node
	from string // the wrapped plugin this handle was given to, if any
	// inBody marks a handle the boot gave to a plugin body or an
	// OnRegister hook: Ready called with it during the boot would wait for
	// itself, so it fails instead.
	inBody bool
	// seq numbers the calls of a wrapped plugin's body, so its hooks take
	// the place of its Register call; nil for other handles, which use
	// their context's.
	seq *callSeq
}

// instance is what every handle of one tree shares.
type instance struct {
	cfg config
	log *zap.Logger

	mu          sync.Mutex // guards registration, boot and close
	state       atomic.Int32
	bootErr     error
	bootDone    chan struct{} // closed when the boot ends; nil before it starts
	compiled    bool          // routes compiled: only OnReady hooks run now
	interrupted bool          // Close began during the boot
	// booting counts, while the boot runs, the goroutines running it: the
	// one that called Ready, and each one a plugin body or hook runs on
	// under the plugin time-out. A Ready (or Close) called from one of
	// them would wait for itself.
	booting  map[uint64]int
	closeCtx context.Context // that Close's context, for the close the boot runs
	root     *node
	nodes    map[*scope.Context]*node // the node of every context

	router   httpx.Router[*route]
	routes   []*route
	notFound []*notFoundRoute // longest prefix first
	slots    int              // request decorator slots in the tree
	initial  []slotInit       // every request decorator, in declaration order
	types    []reflect.Type   // declared type of each slot
	// providers are the request-scoped constructors, in declaration order.
	providers []*provider

	pool sync.Pool
	seq  atomic.Uint64
	// clientIP finds a request's client address behind trusted proxies;
	// nil when none is trusted.
	clientIP func(*http.Request) netip.Addr

	// replyTimeout is the write deadline each reply arms: the configured
	// one, or 0 when net/http's whole-request write time-out owns the
	// connection's write deadline.
	replyTimeout time.Duration

	onClose []func(context.Context) error

	httpMu  sync.Mutex
	servers []*http.Server
	// addrs are the servers' addresses, as "server listening" logged
	// them, for the line that says the server closed.
	addrs    []string
	closeErr error
	closed   chan struct{}
	conns    conns // the servers' connections, for Close to wait for hijacked ones

	// closing ends when Close begins: every open stream's context is
	// joined with it (httpx.Reply.SSE, Stream), so a stream ends at the
	// start of Close rather than at its deadline.
	closing     context.Context
	stopStreams context.CancelCauseFunc
}

// New returns the root context's handle of a new server.
func New(opts ...Option) *Server {
	cfg := newConfig(opts)
	a := &instance{cfg: cfg, log: cfg.logger, closed: make(chan struct{})}
	if cfg.writeTimeout == 0 {
		a.replyTimeout = cfg.replyTimeout
	}
	a.router.MaxParamLength = cfg.maxParamLength
	ctx := scope.New(cfg.name)
	a.root = &node{ctx: ctx, log: cfg.logger.With(zap.String("context", ctx.Path()))}
	a.nodes = map[*scope.Context]*node{ctx: a.root}
	a.closing, a.stopStreams = context.WithCancelCause(context.Background())
	a.clientIP, a.bootErr = newClientIP(&cfg)
	a.pool.New = func() any {
		x := newExchange()
		x.SetClosing(a.closing)
		x.SetErrorFormat(cfg.errors)
		x.SetClientIP(a.clientIP)
		return x
	}
	return &Server{a: a, n: a.root}
}

// Log is the logger of this handle's context.
func (s *Server) Log() *zap.Logger { return s.n.log }

// Slog is Log as a *slog.Logger, for libraries that take one: it writes
// to the same core, with the same fields and level.
func (s *Server) Slog() *slog.Logger { return slog.New(slogzap.NewHandler(s.n.log.Core())) }

// Name is the name of this handle's context.
func (s *Server) Name() string { return s.n.ctx.Name() }

// Path is this handle's context path, e.g. "root > publicContext".
func (s *Server) Path() string { return s.n.ctx.Path() }

// Prefix is the route prefix of this handle's context.
func (s *Server) Prefix() string { return s.n.prefix }

// Closing is done once Close has begun — at its start, before the drain
// delay, as the streams of httpx.Reply.SSE and Stream are told — with the
// cause httpx.ErrServerClosing. A connection that outlives its request's
// answer (a WebSocket, whose handler hijacked it) waits on it to say
// goodbye: Close then waits for its handler, until Close's deadline.
func (s *Server) Closing() context.Context { return s.a.closing }

// mutate runs fn under the registration lock if the server still accepts
// registrations; otherwise it returns why not, naming what, the
// registration refused ("route GET /b").
func (s *Server) mutate(what string, fn func() error) error { return s.mutateWhen(false, what, fn) }

// mutateWhen is mutate; late says that what fn registers still applies
// after the routes are compiled (hooks that run after Ready), so OnReady
// hooks may call it.
func (s *Server) mutateWhen(late bool, what string, fn func() error) error {
	a := s.a
	a.mu.Lock()
	defer a.mu.Unlock()
	switch state(a.state.Load()) {
	case stateRegistering:
	case stateBooting:
		if a.compiled && !late {
			return errkind.New(ErrAlreadyStarted, "%s (%s) refused: the routes are already compiled, so an OnReady hook may only add OnListen, PreClose and OnClose hooks", what, s.Path())
		}
	case stateFailed:
		return errkind.New(ErrBootFailed, "%s (%s) registered after the server failed to start", what, s.Path())
	case stateDraining, stateClosing, stateClosed:
		return errkind.New(ErrClosed, "%s (%s) registered after Close", what, s.Path())
	default:
		return errkind.New(ErrAlreadyStarted, "%s (%s) registered after the server started", what, s.Path())
	}
	err := fn()
	if err != nil && a.bootErr == nil {
		// Remember the first failure so Ready reports it even when the
		// caller ignored the returned error.
		a.bootErr = err
	}
	return err
}

// callSeq numbers registration calls. A hook's position is the numbers
// of the calls that led to it: the wrapped plugins' Register calls, then
// its own AddHook call. Sorting a context's hooks by position puts a
// wrapped plugin's hooks where its Register call was.
type callSeq struct {
	base []int
	next int
}

// take returns the position of the next call.
func (q *callSeq) take() []int {
	pos := append(slices.Clip(q.base), q.next)
	q.next++
	return pos
}

// calls is the sequence the calls through s are numbered in.
func (s *Server) calls() *callSeq {
	if s.seq != nil {
		return s.seq
	}
	return &s.n.seq
}
