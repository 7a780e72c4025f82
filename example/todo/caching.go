package main

import (
	"context"

	"github.com/burrow-go/burrow/app"
)

// A todo's answers are the user's own: a browser may keep them but
// revalidates each time (a shared cache never stores them), which costs
// one round trip and no body when nothing changed. The tag is the hash of
// the body, so it changes exactly when the answer does, and two users'
// answers share one only when they are the same bytes.
const todoCacheControl = "private, no-cache"

// readCaching are the options of GET /todos and GET /todos/:id.
func readCaching() []app.RouteOption {
	return []app.RouteOption{app.ETag(), app.CacheControl(todoCacheControl)}
}

// writeCaching are the options of PATCH and DELETE /todos/:id: with
// -require-if-match, a change must say which version it changes (428
// without If-Match).
func writeCaching(requireIfMatch bool, opts ...app.RouteOption) []app.RouteOption {
	if requireIfMatch {
		opts = append(opts, app.RequireIfMatch())
	}
	return opts
}

// checkTag compares the request's preconditions with the tag GET
// /todos/:id sends for todo id now, in the request's transaction, so
// that the change that follows is of that version: 412 when it is
// another. A request without If-Match reads nothing.
func (t todos) checkTag(ctx context.Context, id int64, pre app.Preconditions) error {
	if pre.IfMatch == "" {
		return nil
	}
	cur, err := t.get(ctx, id)
	if err != nil {
		return err // not found: 404, as without If-Match
	}
	tag, err := app.TagOf(cur)
	if err != nil {
		return err
	}
	return pre.Check(tag)
}
