package app

import (
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/token"
)

// routeMeta is what a route says about itself for its description
// (RouteInfo, and the OpenAPI document built from it). It changes
// nothing about how the route serves.
type routeMeta struct {
	operationID  string
	summary      string
	description  string
	tags         []string
	deprecated   bool
	undocumented bool
	public       bool           // Public
	responses    []ResponseInfo // declared with Responds, in call order
	upgrade      *UpgradeInfo   // declared with Upgrades
}

// describe is r's metadata, made on first use.
func (r *routeDef) describe() *routeMeta {
	if r.meta == nil {
		r.meta = &routeMeta{}
	}
	return r.meta
}

// operationIDPattern is what an operationId may be: a name code
// generators turn into a function name without guessing.
var operationIDPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// OperationID names the route's operation in its description (OpenAPI's
// operationId, which client generators make a function of). It must be a
// letter or underscore followed by letters, digits, "_", "." or "-". By
// default it is derived from the method and path: GET /todos/:id is
// getTodosById.
func OperationID(id string) RouteOption {
	return func(r *routeDef) {
		if !operationIDPattern.MatchString(id) {
			r.fail(errkind.New(ErrInvalidHandler, "has an invalid operation id %q: use letters, digits, _, . and -, starting with a letter or _", id))
			return
		}
		r.describe().operationID = id
	}
}

// Summary is a one-line summary of what the route does, for its
// description.
func Summary(s string) RouteOption {
	return func(r *routeDef) { r.describe().summary = s }
}

// Description is a longer account of the route, for its description
// (Markdown, as OpenAPI reads it).
func Description(s string) RouteOption {
	return func(r *routeDef) { r.describe().description = s }
}

// Tags groups the route under these tags in its description; a docs page
// shows one section per tag.
func Tags(tags ...string) RouteOption {
	return func(r *routeDef) {
		m := r.describe()
		for _, t := range tags {
			if t != "" && !slices.Contains(m.tags, t) {
				m.tags = append(m.tags, t)
			}
		}
	}
}

// Deprecated marks the route deprecated in its description. It still
// serves.
func Deprecated() RouteOption {
	return func(r *routeDef) { r.describe().deprecated = true }
}

// Undocumented leaves the route out of generated descriptions (the
// OpenAPI document's own routes use it). RouteInfo still lists it, with
// Undocumented set.
func Undocumented() RouteOption {
	return func(r *routeDef) { r.describe().undocumented = true }
}

// Responds declares a reply the route may send that its handler's
// signature cannot tell: status, the body's type (given as a value of it,
// or nil for an empty body), and the names of headers it sets. A
// declared status replaces what the signature implies for that status.
//
//	s.Get("/one", reply, app.Responds(200, body{}))
//	s.Post("/users", create, app.Responds(201, user{}, "Location"), app.Responds(409, httpx.ErrorBody{}))
func Responds(status int, body any, headers ...string) RouteOption {
	return responds(status, false, "", reflect.TypeOf(body), headers)
}

// RespondsAs is [Responds] for a reply whose media type the body's type
// cannot tell: a stream of Server-Sent Events, a CSV export, a file.
// body may be nil: the reply still has a body, of that media type. For a
// stream of items — text/event-stream, application/jsonl,
// application/x-ndjson, application/json-seq (IsSequential) — body is one
// item, the JSON of an event's data or one JSON record (nil: events whose
// data is any text); its type is the response's Item.
//
//	s.Get("/events", events, app.RespondsAs(200, "text/event-stream", tick{}))
//	s.Get("/export", export, app.RespondsAs(200, "text/csv", nil, "Content-Disposition"))
//	s.Get("/files/*", file, app.RespondsAs(200, "application/octet-stream", nil))
func RespondsAs(status int, mediaType string, body any, headers ...string) RouteOption {
	return responds(status, true, mediaType, reflect.TypeOf(body), headers)
}

// IsSequential reports whether mediaType (without parameters) is a
// stream of items a client reads one at a time, each described by the
// same schema (OpenAPI 3.2's sequential media types): Server-Sent Events,
// JSON Lines (application/jsonl, application/x-ndjson) and JSON text
// sequences (application/json-seq).
func IsSequential(mediaType string) bool {
	switch mediaType {
	case "text/event-stream", "application/jsonl", "application/x-ndjson", "application/json-seq":
		return true
	}
	return false
}

func responds(status int, as bool, mediaType string, body reflect.Type, headers []string) RouteOption {
	return func(r *routeDef) {
		if status < 100 || status > 599 {
			r.fail(errkind.New(ErrInvalidHandler, "declares a response with status %d, which is not an HTTP status (100-599)", status))
			return
		}
		res := ResponseInfo{Status: status, Headers: slices.Clone(headers), Type: body}
		if as {
			mt, params, err := mime.ParseMediaType(mediaType)
			if err != nil || len(params) > 0 || !strings.Contains(mt, "/") || strings.Contains(mt, "*") {
				r.fail(errkind.New(ErrInvalidHandler, "declares a response with media type %q, which is not a media type such as text/csv", mediaType))
				return
			}
			if status == http.StatusNoContent || status == http.StatusNotModified {
				r.fail(errkind.New(ErrInvalidHandler, "declares a %d response with media type %s, but a %d has no body", status, mt, status))
				return
			}
			res.MediaType = mt
			if IsSequential(mt) {
				res.Type, res.Item = nil, body
			}
		}
		for i := range res.Headers {
			res.Headers[i] = http.CanonicalHeaderKey(strings.TrimSpace(res.Headers[i]))
		}
		m := r.describe()
		m.responses = slices.DeleteFunc(m.responses, func(x ResponseInfo) bool { return x.Status == status })
		m.responses = append(m.responses, res)
	}
}

// Upgrades declares that the route switches the connection to protocol
// (the Upgrade header's token, "websocket") with a 101 Switching
// Protocols reply, and then exchanges messages: receive is one the
// client sends, send one the server sends, each given as a value of its
// type (nil: not declared). A plugin serving such routes declares it (the
// websocket plugin does); OpenAPI describes the upgrade, and the
// messages as an extension, since it has no word for them.
func Upgrades(protocol string, receive, send any) RouteOption {
	return func(r *routeDef) {
		if protocol == "" || !token.Valid(protocol) {
			r.fail(errkind.New(ErrInvalidHandler, "declares an upgrade to %q, which is not a protocol token such as websocket", protocol))
			return
		}
		m := r.describe()
		m.upgrade = &UpgradeInfo{Protocol: protocol, Receive: reflect.TypeOf(receive), Send: reflect.TypeOf(send)}
		m.responses = slices.DeleteFunc(m.responses, func(x ResponseInfo) bool { return x.Status == http.StatusSwitchingProtocols })
		m.responses = append(m.responses, ResponseInfo{Status: http.StatusSwitchingProtocols, Headers: []string{"Connection", "Upgrade"}})
	}
}

// RouteOption configures one route as Route registers it. Like every
// option type of Burrow's, it is a function that only Burrow's
// constructors make; one given a bad argument records the error, which
// the call taking it (here Route) returns: the first one's, when several
// fail.
type RouteOption func(*routeDef)

// fail records err unless an earlier option failed: an error names its
// subject once, and a second one joined below it would not.
func (r *routeDef) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// WithHook adds a route-level hook, which runs after every context hook of
// the same kind.
func WithHook(kind Hook, fn any, opts ...HookOption) RouteOption {
	return func(r *routeDef) {
		d, err := newHookDef(kind, fn, opts)
		if err != nil {
			r.fail(fmt.Errorf("has an invalid %v hook: %w", kind, err))
			return
		}
		r.hooks = append(r.hooks, d)
	}
}

// BodyLimit sets the body limit of one route.
func BodyLimit(n int64) RouteOption {
	return func(r *routeDef) {
		if n <= 0 {
			r.fail(errkind.New(ErrInvalidInput, "has an invalid body limit %d", n))
			return
		}
		r.bodyLimit = n
	}
}

// WithConfig gives the route v, a value a plugin reads when the route is
// compiled (Fastify's routeOptions.config): a CORS policy of its own, a
// rate limit, a switch turning a plugin off for this route. The plugin's
// OnRoute hook reads it with RouteConfig, its middleware per request with
// RouteConfigOf. A route holds any number of values, one per type: the
// plugin's package defines the type, so two plugins never read each
// other's. Ready fails with ErrUnreadConfig when no OnRoute hook of the
// route's contexts read a value (the plugin it is meant for is not
// registered there, so the route would silently go without it), and
// PrintRoutes lists each value under its route.
func WithConfig(v any) RouteOption {
	return func(r *routeDef) {
		if v == nil {
			r.fail(errkind.New(ErrInvalidHandler, "has a nil config value"))
			return
		}
		if r.config == nil {
			r.config = &routeConfig{}
		}
		t := reflect.TypeOf(v)
		for _, have := range r.config.values {
			if reflect.TypeOf(have) == t {
				r.fail(errkind.New(ErrInvalidHandler, "has two config values of type %v: a route holds one per type", t))
				return
			}
		}
		r.config.values = append(r.config.values, v)
		r.config.read = append(r.config.read, false)
	}
}

// Status makes a typed route (Get, Post, … Handle) answer its Out with
// code, a success status (200 to 299, not 204, which has no body: use
// NoContent) instead of 200; or, for a route whose Out is [Redirect],
// with the redirect status code (301, 302, 307 or 308) instead of 303.
func Status(code int) RouteOption {
	return func(r *routeDef) {
		if (code < 200 || code > 299 || code == http.StatusNoContent) && !redirectStatus(code) {
			r.fail(errkind.New(ErrInvalidHandler, "has an invalid status %d: Status takes a success status with a body, 200 to 299 but 204, or a Redirect's status, 301, 302, 303, 307 or 308", code))
			return
		}
		r.status = code
	}
}
