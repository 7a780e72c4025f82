package app

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
	"github.com/burrow-go/burrow/internal/etag"
)

// caching is what a route's options say about its replies to caches.
type caching struct {
	v              httpx.Validation
	requireIfMatch bool
}

// cache is r's caching, made on first use.
func (r *routeDef) cache() *caching {
	if r.caching == nil {
		r.caching = &caching{}
	}
	return r.caching
}

// ETag makes the route's 200 replies carry an entity tag, and answers a
// GET (or HEAD) whose If-None-Match holds it 304 Not Modified, with the
// same ETag, Cache-Control and Vary and no body. The tag is the
// reply's own when its value is [Tagged]; otherwise a strong tag hashed
// from the body as sent (SHA-256, cut to 128 bits), so it changes
// exactly when the body does. Under plugins/compress a compressed reply's
// tag, and a 304's when the request negotiated a coding, is weak, W/"…";
// If-None-Match compares weakly, so either form revalidates.
//
// The 304 is decided once the reply is encoded and its send hooks have
// run: the handler and the hooks run once, as for the 200, and the
// request's work commits. What it saves is the body on the wire.
//
// A route without ETag hashes nothing: the option is per route because
// the hash costs about as much as the encoding.
func ETag() RouteOption {
	return func(r *routeDef) { r.cache().v.ETag = true }
}

// CacheControl sets the Cache-Control field of the route's 200 replies
// and their 304s: "private, no-cache" for an answer a browser keeps but
// revalidates each time (with ETag, one round trip and no body when
// nothing changed), "public, max-age=60" for one any cache may serve for
// a minute. Error replies do not get it. directives must be a non-empty
// header value.
func CacheControl(directives string) RouteOption {
	return func(r *routeDef) {
		d := strings.TrimSpace(directives)
		if d == "" || !validFieldValue(d) {
			r.fail(errkind.New(ErrInvalidHandler, "has an invalid Cache-Control %q: give directives such as \"private, no-cache\"", directives))
			return
		}
		r.cache().v.CacheControl = []string{d}
	}
}

// RequireIfMatch makes the route answer 428 Precondition Required to a
// request without If-Match, before its handler runs (after its hooks and
// input validation): a client must show which version it changes, so
// that no update is lost to another client's. The handler compares the
// tag with [Preconditions].
func RequireIfMatch() RouteOption {
	return func(r *routeDef) {
		if r.method == http.MethodGet || r.method == http.MethodHead {
			r.fail(errkind.New(ErrInvalidHandler, "takes RequireIfMatch, which is for a route that changes the resource (PUT, PATCH, DELETE, POST), not a %s", r.method))
			return
		}
		r.cache().requireIfMatch = true
	}
}

// Tagged is a reply value that knows its entity tag: a version, a
// revision number, a content hash kept with the data. A route with
// [ETag] sends it as the tag instead of hashing the body. ETag returns
// the tag's opaque part, without quotes ("v42" is sent as "\"v42\""):
// printable ASCII but '"' and the space. A Tagged value's tag must
// change whenever its body would.
type Tagged interface {
	ETag() string
}

// ErrInvalidETag is matched by the error of a reply whose [Tagged] value
// returns a tag that cannot be sent.
var ErrInvalidETag = errors.New("invalid entity tag")

// quoted is v's tag as the ETag field holds it.
func quoted(v Tagged) (string, error) {
	t := v.ETag()
	if t == "" || !etag.Opaque(t) {
		return "", errkind.New(ErrInvalidETag, "the entity tag %q of %T is empty or holds a space, a quote or a control character", t, v)
	}
	return `"` + t + `"`, nil
}

// validFieldValue reports whether s may be a header field's value: no
// control character (CR, LF: header injection) but tab.
func validFieldValue(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// preconditionRequired is the 428 of a route with RequireIfMatch.
func preconditionRequired() error {
	return &httpx.Error{StatusCode: http.StatusPreconditionRequired, Code: "ERR_PRECONDITION_REQUIRED",
		Message: "The request must carry If-Match with the entity tag of the resource it changes"}
}

var typePreconditions = reflect.TypeFor[Preconditions]()

// caching describes what c adds to the route's replies: ETag (and
// Cache-Control) on its 200 and, for a GET, the 304; 428 for a route that
// requires If-Match; 412 for one whose input (fields, a struct of them)
// takes Preconditions.
func (d describer) caching(method string, c *caching, fields reflect.Type) {
	ri := d.ri
	errType := reflect.TypeFor[httpx.ErrorBody]()
	if ri.ProblemDetails {
		errType = reflect.TypeFor[httpx.Problem]()
	}
	add := func(res ResponseInfo) {
		if !slices.ContainsFunc(ri.Responses, func(x ResponseInfo) bool { return x.Status == res.Status }) {
			ri.Responses = append(ri.Responses, res)
		}
	}
	if fields != nil && takes(fields, typePreconditions, 0) {
		add(ResponseInfo{Status: http.StatusPreconditionFailed, Type: errType})
	}
	if c == nil {
		return
	}
	var headers []string
	if c.v.ETag {
		headers = append(headers, "ETag")
	}
	if c.v.CacheControl != nil {
		headers = append(headers, "Cache-Control")
	}
	if len(headers) > 0 {
		for i := range ri.Responses {
			if x := &ri.Responses[i]; x.Status == http.StatusOK {
				for _, h := range headers {
					if !slices.Contains(x.Headers, h) {
						x.Headers = append(x.Headers, h)
					}
				}
			}
		}
	}
	if c.v.ETag && method == http.MethodGet {
		add(ResponseInfo{Status: http.StatusNotModified, Headers: headers})
	}
	if c.requireIfMatch {
		add(ResponseInfo{Status: http.StatusPreconditionRequired, Type: errType})
	}
}

// takes reports whether struct t has a field of type want, itself or in
// a struct field, depth levels down at most 8.
func takes(t reflect.Type, want reflect.Type, depth int) bool {
	if t.Kind() != reflect.Struct || depth > 8 {
		return false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Type == want || takes(f.Type, want, depth+1) {
			return true
		}
	}
	return false
}
