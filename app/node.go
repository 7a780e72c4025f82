package app

import (
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/scope"
)

// node is what one encapsulation context holds about HTTP and plugins.
// The tree itself — names, parents, children, paths and what each context
// declares — is its scope.Context's: instance.nodes maps each context back
// to its node.
type node struct {
	ctx    *scope.Context
	prefix string
	log    *zap.Logger

	pending    []*pendingPlugin
	registered int      // plugins registered here so far: numbers the unnamed ones
	seq        callSeq  // numbers the calls made through this context's handles
	plugins    []string // names of the plugins registered here, in load order
	routes     []*routeDef
	hooks      hookLists
	middleware []middlewareDef
	observers  []Observer
	// notAllowed is the 405 answer wrapped in the context's middleware,
	// nil without; notAllowedDone says it was compiled.
	notAllowed     http.Handler
	notAllowedDone bool
	errorHandler   *handlerDef
	notFound       *handlerDef
	parsers        []parserDef
	bodyLimit      int64
	multipart      MultipartLimits // SetMultipartLimits's; a zero field is inherited
	loadTime       time.Duration   // the plugin body and everything it registered
	loaded         []*loadRecord   // plugins loaded into this context, wrapped ones included, in order
	app            appHooks
	security       []SecurityScheme // declared here (DeclareSecurity)
	guards         []Guard          // declared here (DeclareGuard)
	policies       []Policy         // added here (Server.Policy)
}

// wrapped names the wrapped plugins loaded into n, in load order.
func (n *node) wrapped() []string {
	var names []string
	for _, rec := range n.loaded {
		if rec.wrapped {
			names = append(names, rec.name)
		}
	}
	return names
}

// parent is the node of n's parent context, or nil for the root.
func (a *instance) parent(n *node) *node { return a.nodes[n.ctx.Parent()] }

// lineage is n's ancestors and n, root first. It is app's one walk up the
// tree: hook chains, parsers, error handlers and plugin look-ups all read
// it, root first or, with slices.Backward, nearest first.
func (a *instance) lineage(n *node) []*node {
	var path []*node
	for c := n.ctx; c != nil; c = c.Parent() {
		path = append(path, a.nodes[c])
	}
	slices.Reverse(path)
	return path
}

// walk visits every node, parents first, children in creation order.
func (a *instance) walk(fn func(*node)) {
	a.root.ctx.Walk(func(c *scope.Context) bool {
		fn(a.nodes[c])
		return true
	})
}

// visit visits the nodes as walk does, and stops at the first error fn
// returns, which it returns.
func (a *instance) visit(fn func(*node) error) error {
	var err error
	a.root.ctx.Walk(func(c *scope.Context) bool {
		err = fn(a.nodes[c])
		return err == nil
	})
	return err
}
