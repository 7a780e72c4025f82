package httpx

import (
	"errors"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/internal/errkind"
	httpmethod "github.com/burrow-go/burrow/internal/method"
	"github.com/burrow-go/burrow/internal/urlpath"
)

// Routing errors, returned (wrapped) by Router.Add.
var (
	ErrDuplicateRoute = errors.New("duplicate route")
	ErrRouteConflict  = errors.New("conflicting route")
	ErrInvalidPath    = errors.New("invalid route path")
	ErrInvalidMethod  = errors.New("invalid method")
)

// DefaultMaxParamLength is the longest path parameter the router matches;
// a longer one makes the lookup miss (404), as in Fastify.
const DefaultMaxParamLength = 100

// AnyMethod, registered as a route's method, answers every method no
// other route of the same path names.
const AnyMethod = "*"

// MethodQuery is the HTTP QUERY method (RFC 10008): a request that asks
// for a result described by its body, as a search too long or too
// structured for a URL's query string. It is safe and idempotent, as GET
// is, so a client may retry it and a cache may store its answer (keyed
// by the body too); net/http names no constant for it.
const MethodQuery = "QUERY"

// Match is the outcome of a lookup.
type Match uint8

const (
	// NoRoute: no route has this path.
	NoRoute Match = iota
	// Found: a route has this path and method.
	Found
	// MethodNotAllowed: a route has this path, but not with this method.
	MethodNotAllowed
)

// Param is one path parameter: the name from the pattern and the value from
// the request path.
type Param struct {
	Key, Value string
}

// Params is the list of a request's path parameters, in pattern order.
type Params []Param

// Get returns the value of the parameter called key, or "".
func (ps Params) Get(key string) string {
	for i := range ps {
		if ps[i].Key == key {
			return ps[i].Value
		}
	}
	return ""
}

// Router maps a method and a path to a handler of type H. Patterns are made
// of static segments, ":name" parameter segments and one trailing "*"
// wildcard, which matches the rest of the path (possibly empty) as the
// parameter "*". When segments compete, static beats parameter beats
// wildcard, with backtracking.
//
// Add is not safe for concurrent use; Lookup is, once adding is done.
type Router[H any] struct {
	root node[H]
	// MaxParamLength bounds a parameter's length; 0 means
	// DefaultMaxParamLength.
	MaxParamLength int
}

type node[H any] struct {
	segment  string // static text of this segment (for static children)
	static   []*node[H]
	keys     []uint32 // segKey of each static child, scanned before comparing text
	param    *node[H]
	wildcard *node[H]
	name     string // parameter name for param and wildcard nodes

	pattern  string
	handlers []methodHandler[H]
	allow    string
}

type methodHandler[H any] struct {
	method string
	h      H
}

// Add registers h for method and pattern. It fails on a method that is not
// AnyMethod or an upper-case token (RFC 9110's token, starting with an
// upper-case letter and holding no lower-case one), on a malformed
// pattern, on a pattern already registered for method, and on a parameter
// whose name differs from one declared at the same place by another
// pattern.
func (r *Router[H]) Add(method, pattern string, h H) error {
	if !httpmethod.Valid(method) {
		return errkind.New(ErrInvalidMethod, "invalid method %q: a method is an upper-case token", method)
	}
	if !strings.HasPrefix(pattern, "/") {
		return errkind.New(ErrInvalidPath, "invalid path %q: it must start with /", pattern)
	}
	n := &r.root
	rest := pattern[1:]
	for {
		seg, tail, more := strings.Cut(rest, "/")
		switch {
		case seg == "*":
			if more {
				return errkind.New(ErrInvalidPath, "invalid path %q: * must be the last segment", pattern)
			}
			if n.wildcard == nil {
				n.wildcard = &node[H]{name: "*"}
			}
			n = n.wildcard
		case strings.HasPrefix(seg, ":"):
			name := seg[1:]
			if name == "" || strings.ContainsAny(name, ":*") {
				return errkind.New(ErrInvalidPath, "invalid path %q: bad parameter %q", pattern, seg)
			}
			if n.param == nil {
				n.param = &node[H]{name: name}
			} else if n.param.name != name {
				return errkind.New(ErrRouteConflict, "path %q names parameter %q where another route names it %q",
					pattern, name, n.param.name)
			}
			n = n.param
		default:
			if strings.ContainsAny(seg, "*") {
				return errkind.New(ErrInvalidPath, "invalid path %q: * must be a whole segment", pattern)
			}
			var next *node[H]
			for _, c := range n.static {
				if c.segment == seg {
					next = c
					break
				}
			}
			if next == nil {
				next = &node[H]{segment: seg}
				n.static = append(n.static, next)
				n.keys = append(n.keys, segKey(seg))
			}
			n = next
		}
		if !more {
			break
		}
		rest = tail
	}
	for _, mh := range n.handlers {
		if mh.method == method {
			return errkind.New(ErrDuplicateRoute, "%s %s is already registered", method, pattern)
		}
	}
	n.pattern = pattern
	n.handlers = append(n.handlers, methodHandler[H]{method: method, h: h})
	methods := make([]string, len(n.handlers))
	for i, mh := range n.handlers {
		methods[i] = mh.method
	}
	slices.Sort(methods)
	n.allow = strings.Join(methods, ", ")
	return nil
}

// Lookup finds the handler for method and path, the decoded request path
// (a request's URL.Path when its URL.RawPath is empty), matched byte for
// byte, and appends the path parameters to *ps. When the path is known but
// the method is not, it returns MethodNotAllowed, the handler registered
// first for the path (its owner) and the Allow header value. It allocates nothing unless *ps must grow.
func (r *Router[H]) Lookup(method, path string, ps *Params) (h H, allow string, m Match) {
	n := r.find(path, ps)
	if n == nil {
		return h, "", NoRoute
	}
	return n.answer(method)
}

// LookupEscaped is Lookup for a path still percent-encoded as the client
// sent it (a request's URL.RawPath). The path is split at its literal
// slashes, and each segment matches by its decoded text: "/users/%6De" is
// "/users/me", whatever the case of the hex digits. An escaped slash
// (%2F) is not a separator but a '/' inside its segment, which a static
// segment (it never holds a '/') does not match: only a parameter or the
// wildcard takes it. Parameters are decoded, and their length limit counts
// decoded bytes. A malformed escape matches nothing. Decoded parameter
// values are the only allocation.
func (r *Router[H]) LookupEscaped(method, path string, ps *Params) (h H, allow string, m Match) {
	if path == "" || path[0] != '/' || !urlpath.Valid(path) {
		return h, "", NoRoute
	}
	mark := len(*ps)
	n := r.root.matchEscaped(path[1:], ps, r.maxParamLength())
	if n == nil {
		*ps = (*ps)[:mark]
		return h, "", NoRoute
	}
	if h, allow, m = n.answer(method); m == Found {
		unescape((*ps)[mark:])
	}
	return h, allow, m
}

func (r *Router[H]) find(path string, ps *Params) *node[H] {
	if path == "" || path[0] != '/' {
		return nil
	}
	mark := len(*ps)
	n := r.root.match(path[1:], ps, r.maxParamLength())
	if n == nil {
		*ps = (*ps)[:mark]
	}
	return n
}

func (r *Router[H]) maxParamLength() int {
	if r.MaxParamLength <= 0 {
		return DefaultMaxParamLength
	}
	return r.MaxParamLength
}

// answer picks method's handler on n, a node that ends a path.
func (n *node[H]) answer(method string) (h H, allow string, m Match) {
	for i := range n.handlers {
		if n.handlers[i].method == method {
			return n.handlers[i].h, n.allow, Found
		}
	}
	for i := range n.handlers {
		if n.handlers[i].method == AnyMethod {
			return n.handlers[i].h, n.allow, Found
		}
	}
	// The path's owner: the handler registered first for it.
	return n.handlers[0].h, n.allow, MethodNotAllowed
}

// unescape decodes the parameter values that hold escapes, all into one
// new string.
func unescape(ps Params) {
	size := 0
	for _, p := range ps {
		if strings.IndexByte(p.Value, '%') >= 0 {
			size += urlpath.Len(p.Value)
		}
	}
	if size == 0 {
		return
	}
	var b strings.Builder
	b.Grow(size)
	for _, p := range ps {
		if strings.IndexByte(p.Value, '%') >= 0 {
			urlpath.Decode(&b, p.Value)
		}
	}
	all := b.String()
	for i := range ps {
		if strings.IndexByte(ps[i].Value, '%') >= 0 {
			n := urlpath.Len(ps[i].Value)
			ps[i].Value, all = all[:n], all[n:]
		}
	}
}

// segKey packs a segment's length and first and last bytes: comparing
// these integers rules out most siblings without touching their text,
// which matters for nodes with dozens of static children (an API's root,
// or /repos/:owner/:repo).
func segKey(seg string) uint32 {
	if seg == "" {
		return 0
	}
	return uint32(min(len(seg), 0xffff))<<16 | uint32(seg[0])<<8 | uint32(seg[len(seg)-1])
}

// decodedKey is segKey of the escaped segment seg decoded, which is not
// empty (it holds an escape), and its decoded length.
func decodedKey(seg string) (key uint32, size int) {
	size = urlpath.Len(seg)
	return uint32(max(min(size, 0xffff), 0))<<16 | uint32(urlpath.First(seg))<<8 | uint32(urlpath.Last(seg)), size
}

// match walks one segment of rest. It returns the node that ends the
// path, trying static children, then the parameter child, then the
// wildcard.
func (n *node[H]) match(rest string, ps *Params, max int) *node[H] {
	seg, tail, more := rest, "", false
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		seg, tail, more = rest[:i], rest[i+1:], true
	}
	key := segKey(seg)
	for i, k := range n.keys {
		if k != key {
			continue
		}
		c := n.static[i]
		if c.segment != seg {
			continue
		}
		if !more {
			if c.handlers != nil {
				return c
			}
			break
		}
		if found := c.match(tail, ps, max); found != nil {
			return found
		}
		break
	}
	if n.param != nil && seg != "" && len(seg) <= max {
		mark := len(*ps)
		*ps = append(*ps, Param{Key: n.param.name, Value: seg})
		if !more {
			if n.param.handlers != nil {
				return n.param
			}
		} else if found := n.param.match(tail, ps, max); found != nil {
			return found
		}
		*ps = (*ps)[:mark]
	}
	if n.wildcard != nil && n.wildcard.handlers != nil {
		*ps = append(*ps, Param{Key: "*", Value: rest})
		return n.wildcard
	}
	return nil
}

// matchEscaped is match for an escaped path: a segment holding escapes is
// compared and measured by its decoded text. Parameters keep the escaped
// text, which LookupEscaped decodes once the match is known. It is a copy
// of match rather than a flag on it because the flag alone, tested on
// every segment, made the common lookups measurably slower (about 10-20%
// on the GitHub API set).
func (n *node[H]) matchEscaped(rest string, ps *Params, max int) *node[H] {
	seg, tail, more := rest, "", false
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		seg, tail, more = rest[:i], rest[i+1:], true
	}
	key, size := segKey(seg), len(seg)
	decode := strings.IndexByte(seg, '%') >= 0
	if decode {
		key, size = decodedKey(seg)
	}
	for i, k := range n.keys {
		if k != key {
			continue
		}
		c := n.static[i]
		if decode {
			if j, ok := urlpath.HasPrefix(seg, c.segment); !ok || j != len(seg) {
				continue
			}
		} else if c.segment != seg {
			continue
		}
		if !more {
			if c.handlers != nil {
				return c
			}
			break
		}
		if found := c.matchEscaped(tail, ps, max); found != nil {
			return found
		}
		break
	}
	if n.param != nil && seg != "" && size <= max {
		mark := len(*ps)
		*ps = append(*ps, Param{Key: n.param.name, Value: seg})
		if !more {
			if n.param.handlers != nil {
				return n.param
			}
		} else if found := n.param.matchEscaped(tail, ps, max); found != nil {
			return found
		}
		*ps = (*ps)[:mark]
	}
	if n.wildcard != nil && n.wildcard.handlers != nil {
		*ps = append(*ps, Param{Key: "*", Value: rest})
		return n.wildcard
	}
	return nil
}

// Walk calls fn for every registered pattern and method, in sorted pattern
// order.
func (r *Router[H]) Walk(fn func(method, pattern string, h H)) {
	var all []*node[H]
	var visit func(n *node[H])
	visit = func(n *node[H]) {
		if n.handlers != nil {
			all = append(all, n)
		}
		for _, c := range n.static {
			visit(c)
		}
		if n.param != nil {
			visit(n.param)
		}
		if n.wildcard != nil {
			visit(n.wildcard)
		}
	}
	visit(&r.root)
	slices.SortFunc(all, func(a, b *node[H]) int { return strings.Compare(a.pattern, b.pattern) })
	for _, n := range all {
		for _, mh := range n.handlers {
			fn(mh.method, n.pattern, mh.h)
		}
	}
}
