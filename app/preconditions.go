package app

import (
	"net/http"
	"time"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/etag"
)

// Preconditions are the conditions an unsafe request (PUT, PATCH,
// DELETE, POST) sets on the state of the resource it changes: If-Match
// and If-Unmodified-Since. A handler takes them as a header group of its
// input and checks them against the resource's current tag before it
// changes anything, in the same transaction as the change:
//
//	type patchTodo struct {
//		app.In
//		ID   int64             `path:"id"`
//		Pre  app.Preconditions `header:""`
//		Body todoPatch         `body:""`
//	}
//
//	current, err := store.Get(ctx, in.ID)
//	…
//	tag, err := app.TagOf(current) // the tag GET /todos/:id sends
//	…
//	if err := in.Pre.Check(tag); err != nil {
//		return todo{}, err // 412, nothing changed
//	}
//
// A route's description then lists 412. [RequireIfMatch] makes If-Match
// required (428 without it).
type Preconditions struct {
	// IfMatch is the If-Match field: "*" or a list of entity tags.
	IfMatch string `header:"If-Match"`
	// IfUnmodifiedSince is the If-Unmodified-Since field, an HTTP date.
	IfUnmodifiedSince string `header:"If-Unmodified-Since"`
}

// Check evaluates If-Match against current, the entity tag the resource
// has now (quoted, as an ETag field holds it; "" when it does not
// exist). It returns nil when the request may proceed: If-Match is
// absent, is "*" and the resource exists, or lists current, compared
// strongly (RFC 9110 §13.1.1: a weak tag never matches). Otherwise it
// returns a 412 Precondition Failed *httpx.Error, which the error
// handler answers in the server's error shape. If-Unmodified-Since,
// which needs a modification time, is for [Preconditions.CheckModified].
func (p Preconditions) Check(current string) error {
	return p.CheckModified(current, time.Time{})
}

// CheckModified is [Preconditions.Check] for a resource that also knows
// when it last changed: without If-Match, an If-Unmodified-Since earlier
// than modified fails too (a date that does not parse is ignored, as RFC
// 9110 §13.1.4 says). A zero modified skips that test.
func (p Preconditions) CheckModified(current string, modified time.Time) error {
	if p.IfMatch != "" {
		lines := []string{p.IfMatch}
		if etag.Star(lines) {
			if current == "" {
				return preconditionFailed()
			}
			return nil
		}
		if current == "" || !etag.MatchStrong(lines, current) {
			return preconditionFailed()
		}
		return nil
	}
	if p.IfUnmodifiedSince == "" || modified.IsZero() {
		return nil
	}
	since, err := http.ParseTime(p.IfUnmodifiedSince)
	if err != nil {
		return nil
	}
	if modified.Truncate(time.Second).After(since) {
		return preconditionFailed()
	}
	return nil
}

// preconditionFailed is Check's 412. Its message names no tag: the
// current one is the client's to fetch with a GET.
func preconditionFailed() error {
	return &httpx.Error{StatusCode: http.StatusPreconditionFailed, Code: "ERR_PRECONDITION_FAILED",
		Message: "The resource has changed since the client read it: a precondition (If-Match, If-Unmodified-Since) failed"}
}

// TagOf is the strong entity tag a route with [ETag] sends for v,
// quoted: v's own if it is [Tagged], else the hash of v encoded as Send
// encodes it (JSON, a string's bytes, …). A handler of an unsafe method
// gives it to [Preconditions.Check] as the resource's current tag. It is
// the tag the route sends as long as no send hook changes the body.
func TagOf(v any) (string, error) {
	if t, ok := v.(Tagged); ok {
		return quoted(t)
	}
	body, err := httpx.Encode(v)
	if err != nil {
		return "", err
	}
	return etag.Of(body), nil
}
