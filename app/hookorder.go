package app

import (
	"fmt"
	"slices"

	"github.com/burrow-go/burrow/internal/errkind"
)

// HookOption declares what a hook does with request decorators, for
// AddHook and WithHook.
type HookOption func(*hookDef)

// SetsDecorators declares that the hook sets the request decorators
// names (Request.SetDecorator): an authentication hook setting the user.
// A hook that reads one of them (ReadsDecorators) must run after it on
// every route, or Ready fails.
func SetsDecorators(names ...string) HookOption {
	return func(d *hookDef) { d.sets = append(d.sets, names...) }
}

// ReadsDecorators declares that the hook reads the request decorators
// names, as a hook before it set them: a per-user rate limit reading
// the user. Ready fails for a route where no hook declared with
// SetsDecorators sets one of them before this hook runs — a hook
// registered after it, or none — since the hook would only ever see the
// value each request starts with and, for a security control, be off in
// silence.
func ReadsDecorators(names ...string) HookOption {
	return func(d *hookDef) { d.reads = append(d.reads, names...) }
}

// checkHookOrder fails when a hook of a route, whose contexts are line
// and own hooks own, reads a request decorator that no hook before it
// sets. Hooks run phase by phase, each phase's root first.
func checkHookOrder(line []*node, own []hookDef) error {
	var order []hookDef
	for _, kind := range phases {
		order = append(order, chain(line, kind, own)...)
	}
	for i, d := range order {
		for _, name := range d.reads {
			if slices.ContainsFunc(order[:i], func(h hookDef) bool { return slices.Contains(h.sets, name) }) {
				continue
			}
			j := slices.IndexFunc(order[i+1:], func(h hookDef) bool { return slices.Contains(h.sets, name) })
			if j >= 0 {
				setter := order[i+1+j]
				return errkind.New(ErrHookOrder, "has %s that reads request decorator %q before %s sets it: "+
					"register %s after it", d.describe(), name, setter.describe(), d.culprit())
			}
			return errkind.New(ErrHookOrder, "has %s that reads request decorator %q, which no hook before it declares it sets: "+
				"add the hook that sets it with app.SetsDecorators(%q), before %s", d.describe(), name, name, d.culprit())
		}
	}
	return nil
}

// describe names the hook in an error: its kind, the plugin or function
// that added it, and where.
func (d *hookDef) describe() string {
	s := article(d.kind.String()) + " " + d.kind.String() + " hook"
	switch {
	case d.by != "":
		s += " of plugin " + d.by
	case d.name != "":
		s += " " + d.name
	}
	if d.where == "" {
		return s + " of the route"
	}
	return fmt.Sprintf("%s (%s)", s, d.where)
}

// culprit is what the fix moves: the plugin that added the hook, or the
// hook.
func (d *hookDef) culprit() string {
	if d.by != "" {
		return d.by
	}
	return "the hook"
}
