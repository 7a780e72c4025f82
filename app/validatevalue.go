package app

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Validate checks v against the validate and pattern tags of its type,
// as a request body is checked: the same rules, the same error. It
// returns nil when v breaks no rule, and otherwise the 400 a route
// would answer, an *httpx.Error with the code FST_ERR_VALIDATION whose
// Validation lists every failure (up to 100). Fields are named as a
// body's are, by their json tags; each path begins with root:
//
//	app.Validate(row, "body/file/3") // body/file/3/title must NOT have more than 200 characters
//	app.Validate(msg, "")            // items/0/qty must be >= 1
//
// So a handler may return the error as it is, and a CSV row, a queued
// message or any other value read outside a route is judged by the rules
// its type already carries. v may be a struct, a pointer to one, or a
// slice, array or map of them; a nil pointer is a value not given, whose
// rules do not apply. A type whose tags Burrow cannot apply is an error
// wrapping ErrInvalidConstraint, not a 400. Each type's rules are read
// once, on its first Validate, and kept.
func Validate(v any, root string) error {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	vd, err := valueValidator(rv.Type())
	if vd == nil {
		return err
	}
	scratch := getFieldErrors()
	bad := vd.Validate(rv, root, *scratch)
	if root == "" {
		for i := range bad {
			// The validator spells a path under its root, "root/name":
			// under none, the name begins it.
			bad[i].Path = strings.TrimPrefix(bad[i].Path, "/")
		}
	}
	if len(bad) > 0 {
		err = validationError(bad) // a copy: bad goes back to the pool
	}
	putFieldErrors(scratch, bad)
	return err
}

// valueValidators caches Validate's validators by type: a *validate.Validator
// (nil for a type without rules) or the error its tags gave.
var valueValidators sync.Map // reflect.Type → valueRules

type valueRules struct {
	vd  *validate.Validator
	err error
}

// valueValidator is the validator of type t, compiled on its first use.
func valueValidator(t reflect.Type) (*validate.Validator, error) {
	if r, ok := valueValidators.Load(t); ok {
		return r.(valueRules).vd, r.(valueRules).err
	}
	vd, err := validate.Compile(t, "json")
	if err != nil {
		err = fmt.Errorf("Validate of %v: %w", t, errkind.New(ErrInvalidConstraint, "%w", err))
		vd = nil
	}
	r, _ := valueValidators.LoadOrStore(t, valueRules{vd, err})
	return r.(valueRules).vd, r.(valueRules).err
}
