package app

import (
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/internal/errkind"
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
	responses    []ResponseInfo // declared with Responds, in call order
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
	return responds(status, false, "", body, headers)
}

// RespondsAs is [Responds] for a reply whose media type the body's type
// cannot tell: a stream of Server-Sent Events, a CSV export, a file.
// body may be nil: the reply still has a body, of that media type.
//
//	s.Get("/events", events, app.RespondsAs(200, "text/event-stream", nil))
//	s.Get("/export", export, app.RespondsAs(200, "text/csv", nil, "Content-Disposition"))
//	s.Get("/files/*", file, app.RespondsAs(200, "application/octet-stream", nil))
func RespondsAs(status int, mediaType string, body any, headers ...string) RouteOption {
	return responds(status, true, mediaType, body, headers)
}

func responds(status int, as bool, mediaType string, body any, headers []string) RouteOption {
	return func(r *routeDef) {
		if status < 100 || status > 599 {
			r.fail(errkind.New(ErrInvalidHandler, "declares a response with status %d, which is not an HTTP status (100-599)", status))
			return
		}
		res := ResponseInfo{Status: status, Headers: slices.Clone(headers)}
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
		}
		if body != nil {
			res.Type = reflect.TypeOf(body)
		}
		for i := range res.Headers {
			res.Headers[i] = http.CanonicalHeaderKey(strings.TrimSpace(res.Headers[i]))
		}
		m := r.describe()
		m.responses = slices.DeleteFunc(m.responses, func(x ResponseInfo) bool { return x.Status == status })
		m.responses = append(m.responses, res)
	}
}
