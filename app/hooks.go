package app

import (
	"fmt"
	"slices"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Hook names a point of the request lifecycle:
//
//	onRequest → preParsing → preValidation → preHandler → handler →
//	preSerialization → onSend → (write) → onResponse
//
// with onError on the error path, before the error handler.
type Hook uint8

// Request hooks. OnRequest, PreParsing, PreValidation, PreHandler,
// OnResponse and OnError take any function a handler may be (typed
// parameters included) returning error or nothing; OnError's function may
// also take the error. PreSerialization must be a PreSerializationFunc and
// OnSend an OnSendFunc.
const (
	OnRequest Hook = iota
	PreParsing
	PreValidation
	PreHandler
	PreSerialization
	OnSend
	OnResponse
	OnError
	// OnRequestAbort runs when the client goes away while the request is
	// served. It runs on its own goroutine, beside the handler, so it gets
	// a detached copy of the request (Request.Detached: id, logger, URL,
	// headers, params, query; no decorators, no body) and may not take a
	// *httpx.Reply or a request decorator: Ready refuses them. A panic in
	// it, http.ErrAbortHandler included, is recovered and logged.
	OnRequestAbort
	// OnTimeout runs when the request time-out (WithRequestTimeout)
	// expires before the handler began its reply, right after the client
	// was answered 503; not when the client goes away. Like OnRequestAbort
	// it runs beside the handler, with the same restrictions; the
	// handler's context is done at the same moment.
	OnTimeout
	numHooks
)

// phases are the hooks that run before the handler, in order.
var phases = [...]Hook{OnRequest, PreParsing, PreValidation, PreHandler}

var hookNames = [numHooks]string{
	"onRequest", "preParsing", "preValidation", "preHandler",
	"preSerialization", "onSend", "onResponse", "onError", "onRequestAbort", "onTimeout",
}

func (h Hook) String() string {
	if h < numHooks {
		return hookNames[h]
	}
	return fmt.Sprintf("Hook(%d)", uint8(h))
}

// PreSerializationFunc may replace a payload before it is encoded as JSON.
type PreSerializationFunc func(req *httpx.Request, rep *httpx.Reply, payload any) (any, error)

// OnSendFunc may replace the encoded body before it is written.
type OnSendFunc func(req *httpx.Request, rep *httpx.Reply, body []byte) ([]byte, error)

type hookDef struct {
	kind  Hook
	fn    any
	name  string
	pos   []int    // position of the AddHook call among its context's calls
	sets  []string // the request decorators it declares it sets (SetsDecorators)
	reads []string // the request decorators it declares it reads (ReadsDecorators)
	by    string   // the wrapped plugin that added it, or ""
	where string   // the path of the context it was added to
}

type hookLists [numHooks][]hookDef

// AddHook adds fn to this context's hook list for kind. It runs for every
// route of this context and its descendants, after the ancestors' hooks
// and before route-level ones, in the order of the calls — whether
// AddHook was called before or after the routes and plugins it applies
// to. A wrapped plugin's hooks take the place of its Register call: a
// body that adds hook 1, registers a wrapped plugin adding hook 2, then
// adds hook 3 runs 1 2 3, as in Fastify.
//
// opts declare what the hook does with request decorators
// (SetsDecorators, ReadsDecorators), so that Ready can check the order
// of the hooks that depend on each other.
func (s *Server) AddHook(kind Hook, fn any, opts ...HookOption) error {
	return s.mutate(fmt.Sprintf("%v hook", kind), func() error {
		d, err := newHookDef(kind, fn, opts)
		if err != nil {
			return fmt.Errorf("invalid %v hook in %s: %w", kind, s.Path(), err)
		}
		d.by, d.where = s.from, s.Path()
		d.pos = s.calls().take()
		s.n.hooks[kind] = append(s.n.hooks[kind], d)
		return nil
	})
}

func newHookDef(kind Hook, fn any, opts []HookOption) (hookDef, error) {
	if kind >= numHooks {
		return hookDef{}, errkind.New(ErrInvalidHandler, "no such hook")
	}
	if fn == nil {
		return hookDef{}, errkind.New(ErrInvalidHandler, "nil")
	}
	switch kind {
	case PreSerialization:
		switch f := fn.(type) {
		case PreSerializationFunc:
		case func(*httpx.Request, *httpx.Reply, any) (any, error):
			fn = PreSerializationFunc(f)
		default:
			return hookDef{}, errkind.New(ErrInvalidHandler, "a preSerialization hook is a PreSerializationFunc, not %T", fn)
		}
	case OnSend:
		switch f := fn.(type) {
		case OnSendFunc:
		case func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error):
			fn = OnSendFunc(f)
		default:
			return hookDef{}, errkind.New(ErrInvalidHandler, "an onSend hook is an OnSendFunc, not %T", fn)
		}
	}
	d := hookDef{kind: kind, fn: fn, name: funcName(fn)}
	for _, o := range opts {
		o(&d)
	}
	if (len(d.sets) > 0 || len(d.reads) > 0) && !slices.Contains(phases[:], kind) {
		return hookDef{}, errkind.New(ErrInvalidHandler, "SetsDecorators and ReadsDecorators order the hooks that run before the handler "+
			"(onRequest, preParsing, preValidation, preHandler), not %s", kind)
	}
	return d, nil
}

// sortHooks puts each of n's hook lists in the order of the calls that
// added them (see AddHook).
func (n *node) sortHooks() {
	for kind := range n.hooks {
		slices.SortStableFunc(n.hooks[kind], func(a, b hookDef) int { return slices.Compare(a.pos, b.pos) })
	}
}

// chain collects the hooks of kind that apply to a route whose context
// has lineage line: root's first, down to the route's context's, then the
// route's own.
func chain(line []*node, kind Hook, own []hookDef) []hookDef {
	var out []hookDef
	for _, p := range line {
		out = append(out, p.hooks[kind]...)
	}
	for _, h := range own {
		if h.kind == kind {
			out = append(out, h)
		}
	}
	return out
}
