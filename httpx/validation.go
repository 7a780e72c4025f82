package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/burrow-go/burrow/internal/etag"
)

// Validation is what a route's 200 replies carry for caches, which the
// framework arms per request with Exchange.Validate.
type Validation struct {
	// ETag tags the reply: with the tag Validate gives, or else the
	// strong tag of the body as sent (after the send hooks). A GET or
	// HEAD whose If-None-Match matches it is then answered 304, with the
	// same headers and no body.
	ETag bool
	// CacheControl is the reply's Cache-Control field, and its 304's;
	// nil for none.
	CacheControl []string
}

// Validate arms v for the reply's next Send, if it answers 200. tag, when
// not empty, is the reply's entity tag, quoted ("\"v42\""), which saves
// hashing the body.
func (x *Exchange) Validate(v *Validation, tag string) { x.rep.validate, x.rep.tag = v, tag }

// validated sets the reply's validators and returns the body to write:
// none, with the status 304, when the request's If-None-Match matches
// the tag. The send hooks have run once, as for the 200, and the commit
// is done: a 304 is the same answer, told in fewer bytes.
func (r *reply) validated(body []byte) []byte {
	v := r.validate
	h := r.w.Header()
	if v.CacheControl != nil {
		h["Cache-Control"] = v.CacheControl
	}
	if !v.ETag {
		return body
	}
	tag := r.tag
	if tag == "" {
		tag = etag.Of(body)
	}
	h["Etag"] = []string{tag}
	if raw := r.req.Raw(); raw.Method == http.MethodGet || raw.Method == http.MethodHead {
		if inm := raw.Header["If-None-Match"]; inm != nil && etag.MatchWeak(inm, tag) {
			r.status = http.StatusNotModified
			return nil
		}
	}
	return body
}

// Encode is the body Send writes for v when no send hook changes it: a
// string's or a []byte's bytes, a json.RawMessage as it is, nil as
// nothing, anything else as JSON. The bytes are the caller's.
func Encode(v any) ([]byte, error) {
	switch p := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(p), nil
	case []byte:
		return bytes.Clone(p), nil
	case json.RawMessage:
		return bytes.Clone(p), nil
	}
	var e encoding
	body, _, err := e.encode(v)
	return body, err
}
