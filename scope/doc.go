// Package scope holds Burrow's encapsulation tree: one Context per plugin,
// each backed by its own dig.Scope, plus a registry of what every context
// declared.
//
// The visibility rules are dig's own: a child scope sees what its ancestors
// provide, a parent never sees a child's providers, and siblings never see
// each other. The registry duplicates that knowledge on purpose. dig can say
// "missing type", but it cannot say where a value *is* provided; the
// registry can, so start-up errors name the sibling or descendant context
// that holds the value a route asked for.
//
// Everything in this package runs at start-up on one goroutine. dig is not
// safe for concurrent use, and nothing here is called while requests are
// being served.
package scope
