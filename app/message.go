package app

import (
	"fmt"
	"reflect"

	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Decoder decodes JSON messages of type T by the rules of a request body
// (Body[T], a body:"" field): strict JSON — empty, duplicate or
// case-folded keys, too deep, trailing data and mistyped fields are
// refused — then T's validate and pattern tags. It is for messages that
// do not come as a request's body, such as a WebSocket's: a plugin makes
// one per message type when its route is registered, so that a bad tag
// stops start-up. Its errors are the 400 *httpx.Error a body would get,
// field paths included ("body/text is required"). It is safe for
// concurrent use.
type Decoder[T any] struct {
	js *jsonBody
	v  *validate.Validator // nil when T has no rules
}

// NewDecoder compiles the decoder of T, or returns an error wrapping
// ErrInvalidConstraint for a rule that cannot apply.
func NewDecoder[T any]() (*Decoder[T], error) {
	t := reflect.TypeFor[T]()
	v, err := validate.Compile(t, "json")
	if err != nil {
		return nil, fmt.Errorf("message type %v: %w", t, errkind.New(ErrInvalidConstraint, "%w", err))
	}
	return &Decoder[T]{js: defaultParsers(t)[0].json, v: v}, nil
}

// Decode decodes data into a T and validates it.
func (d *Decoder[T]) Decode(data []byte) (T, error) {
	var v T
	if err := d.js.decode(data, &v); err != nil {
		var zero T
		return zero, err
	}
	if d.v == nil {
		return v, nil
	}
	scratch := getFieldErrors()
	bad := d.v.Validate(reflect.ValueOf(&v).Elem(), "body", *scratch)
	var err error
	if len(bad) > 0 {
		err = validationError(bad)
	}
	putFieldErrors(scratch, bad)
	return v, err
}

// CheckEncodable reports, at start-up, why encoding/json cannot encode a
// T — a channel, a function, a complex number anywhere in it, a map with
// keys it cannot write — or nil: what a typed route checks of its reply
// type, for a plugin sending values of its own (a WebSocket's messages).
func CheckEncodable[T any]() error { return checkEncodable(reflect.TypeFor[T]()) }
