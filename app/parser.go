package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/burrow-go/burrow/app/internal/jsonscan"
	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Parser decodes a request body into v, a pointer to the type the route
// asked for with Body[T]. body is limited to the route's body limit; a
// read past it fails with an error matching ErrBodyTooLarge. An
// *httpx.Error chooses the answer; any other error is a 400 showing its
// message.
type Parser func(req *httpx.Request, body io.Reader, v any) error

// DefaultBodyLimit is the body limit when none is set.
const DefaultBodyLimit = 1 << 20

// maxJSONDepth bounds nesting in JSON bodies: deeper is refused before
// decoding, so a few bytes of "[[[[" cannot make the decoder recurse.
const maxJSONDepth = validate.MaxDepth

var (
	errTooLarge = &httpx.Error{StatusCode: http.StatusRequestEntityTooLarge, Code: "FST_ERR_CTP_BODY_TOO_LARGE",
		Message: "Request body is too large", Err: ErrBodyTooLarge}
	errEmptyJSON = httpx.NewError(http.StatusBadRequest, "FST_ERR_CTP_EMPTY_JSON_BODY",
		"Body cannot be empty when content-type is set to 'application/json'")
)

func errMediaType(mt string) error {
	if mt == "" {
		mt = "none"
	}
	return httpx.NewError(http.StatusUnsupportedMediaType, "FST_ERR_CTP_INVALID_MEDIA_TYPE", "Unsupported Media Type: "+mt)
}

type parserDef struct {
	pattern string    // "type/subtype", "type/*+suffix", "type/*" or "*/*"
	fn      Parser    // a parser added with AddContentTypeParser, or
	json    *jsonBody // the default JSON parser, which reads into a pooled buffer
}

// defaultParsers apply after every parser a route's contexts declare; the
// JSON parser knows the body's type t (nil when the route takes no body):
// its field names for the strict checks and its fast decoder.
func defaultParsers(t reflect.Type) []parserDef {
	js := &jsonBody{}
	if t != nil {
		js.names = jsonscan.Compile(t)
		js.fast = jsonscan.CompileDecoder(t, maxJSONDepth)
	}
	return []parserDef{
		{pattern: "application/json", json: js},
		{pattern: "application/*+json", json: js},
		{pattern: "text/plain", fn: parseText},
	}
}

// AddContentTypeParser makes this context (and its descendants) decode
// bodies of mediaType with p: "application/xml", "application/*+xml"
// (any subtype with that suffix), "text/*" or "*/*". The nearest
// context's parser wins, then the order added; the defaults (JSON for
// application/json and application/*+json, text for text/plain) come
// last. A sibling's parser is not visible here.
func (s *Server) AddContentTypeParser(mediaType string, p Parser) error {
	return s.mutate(fmt.Sprintf("content-type parser %q", mediaType), func() error {
		mt := strings.ToLower(strings.TrimSpace(mediaType))
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok || typ == "" || sub == "" || strings.ContainsAny(mt, " ;,") || (typ == "*" && sub != "*") {
			return errkind.New(ErrInvalidInput, "invalid parser in %s: bad media type %q", s.Path(), mediaType)
		}
		if p == nil {
			return errkind.New(ErrInvalidInput, "invalid parser for %q in %s: nil", mediaType, s.Path())
		}
		for _, d := range s.n.parsers {
			if d.pattern == mt {
				return errkind.New(ErrInvalidInput, "invalid parser for %q in %s: one is already added", mt, s.Path())
			}
		}
		s.n.parsers = append(s.n.parsers, parserDef{pattern: mt, fn: p})
		return nil
	})
}

// SetBodyLimit sets the body limit of this context's routes and its
// descendants' (unless they set their own).
func (s *Server) SetBodyLimit(n int64) error {
	return s.mutate("body limit", func() error {
		if n <= 0 {
			return errkind.New(ErrInvalidInput, "invalid body limit %d in %s", n, s.Path())
		}
		s.n.bodyLimit = n
		return nil
	})
}

// matches reports whether media type mt (lower case, no parameters)
// falls under pattern.
func (d parserDef) matches(mt string) bool {
	if d.pattern == mt || d.pattern == "*/*" {
		return true
	}
	ptyp, psub, _ := strings.Cut(d.pattern, "/")
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || ptyp != typ {
		return false
	}
	if psub == "*" {
		return true
	}
	if suffix, ok := strings.CutPrefix(psub, "*"); ok {
		return strings.HasSuffix(sub, suffix)
	}
	return false
}

// mediaType is the media type of a Content-Type value: parameters
// dropped, lower case.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// limitedReader fails with errTooLarge once more than n bytes are read.
//
// It is not http.MaxBytesReader because the error is the contract: a
// Parser is promised an error matching ErrBodyTooLarge, and this one is
// the 413 itself, so a parser that wraps or returns it answers 413.
// MaxBytesReader's *http.MaxBytesError matches neither, and it wants an
// io.ReadCloser, which a stream set by SetBodyReader (a decompressor)
// need not be. Its one side effect — telling net/http's own writer to
// close the connection — parseBody gets by answering "connection: close",
// which works for Inject's writer and for a limit met by decompressed
// bytes alike.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	if l.n < int64(len(p)) {
		p = p[:l.n+1] // one byte more than allowed tells "too large" from "exactly the limit"
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return n, errTooLarge
	}
	return n, err
}

// jsonBody is the default JSON parser of one body type.
type jsonBody struct {
	names *jsonscan.Names
	fast  *jsonscan.Decoder // nil when the type needs encoding/json
}

// decode decodes data into v, strict where encoding/json is lenient:
// empty, duplicate keys, keys that name a field only by folding case, too
// deep, invalid, trailing data and mistyped fields are each a 400 (a
// mistyped field as a validation error naming it). The fast decoder reads
// the bodies it can in one pass; any other body, and any it gives up on,
// takes the strict scan and encoding/json, which word every refusal.
func (js *jsonBody) decode(data []byte, v any) error {
	if js.fast != nil {
		rv := reflect.ValueOf(v).Elem()
		if js.fast.Decode(data, rv) {
			return nil
		}
		rv.SetZero() // what it filled before giving up
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return errEmptyJSON
	}
	if err := jsonscan.Check(data, maxJSONDepth, js.names); err != nil {
		return httpx.NewError(http.StatusBadRequest, "FST_ERR_CTP_INVALID_JSON_BODY", err.Error())
	}
	if err := json.Unmarshal(data, v); err != nil {
		return jsonError(data, err)
	}
	return nil
}

// jsonError is the 400 for encoding/json's error decoding data. A type
// error's path is Burrow's, found from the error's offset, so that it
// names the element ("body/items/0/qty") as a validation failure does, on
// every toolchain: encoding/json's own names it on Go 1.27 and leaves the
// index out on Go 1.26 ("items.qty").
func jsonError(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := "body"
		if at, ok := jsonscan.PathAt(data, int(te.Offset)-1); ok {
			if at != "" {
				path += "/" + at
			}
		} else if te.Field != "" {
			path += "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return validationError([]httpx.FieldError{{Path: path, Rule: "type", Message: "must be " + jsonKind(te)}})
	}
	return httpx.NewError(http.StatusBadRequest, "FST_ERR_CTP_INVALID_JSON_BODY", err.Error())
}

// jsonKind names the JSON type a Go type expects, for messages.
func jsonKind(te *json.UnmarshalTypeError) string {
	switch k := te.Type.Kind().String(); {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "integer"
	case strings.HasPrefix(k, "float"):
		return "number"
	case k == "bool":
		return "boolean"
	case k == "string":
		return "string"
	case k == "slice", k == "array":
		return "array"
	case k == "struct", k == "map":
		return "object"
	}
	return te.Type.String()
}

// parseText is the default text/plain parser: it fills a string or
// []byte body.
func parseText(req *httpx.Request, body io.Reader, v any) error {
	switch p := v.(type) {
	case *string:
		buf := getBodyBuf()
		defer buf.release()
		if err := buf.read(body, req.Raw().ContentLength); err != nil {
			return err
		}
		*p = buf.String()
		return nil
	case *[]byte:
		b, err := io.ReadAll(body)
		*p = b
		return err
	}
	return errMediaType("text/plain")
}
