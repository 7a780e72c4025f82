package app

import (
	"strconv"
	"strings"
	"sync"

	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/httpx"
)

// leftOut ends the message of a validation error that lists only the
// first validate.MaxFailures failures.
var leftOut = "; more failures were left out: at most " + strconv.Itoa(validate.MaxFailures) + " are reported"

// validationError is the 400 for failing fields. It keeps a copy of
// fields, so the caller may reuse them; the usual single failure costs
// one allocation for the error and its field together. Past
// validate.MaxFailures, the rest are dropped and the message says so;
// as a path is at most 1 KiB (validate cuts the client's keys), the
// answer has a bound whatever the body holds.
func validationError(fields []httpx.FieldError) error {
	more := len(fields) > validate.MaxFailures
	if more {
		fields = fields[:validate.MaxFailures]
	}
	n := 0
	for _, f := range fields {
		n += len(", ") + len(f.Path) + len(" ") + len(f.Message)
	}
	if more {
		n += len(leftOut)
	}
	var msg strings.Builder
	msg.Grow(n)
	for i, f := range fields {
		if i > 0 {
			msg.WriteString(", ")
		}
		msg.WriteString(f.Path)
		msg.WriteByte(' ')
		msg.WriteString(f.Message)
	}
	if more {
		msg.WriteString(leftOut)
	}
	if len(fields) == 1 {
		one := &struct {
			err   httpx.Error
			field [1]httpx.FieldError
		}{field: [1]httpx.FieldError{fields[0]}}
		one.err = httpx.Error{StatusCode: 400, Code: "FST_ERR_VALIDATION", Message: msg.String(), Validation: one.field[:]}
		return &one.err
	}
	return &httpx.Error{StatusCode: 400, Code: "FST_ERR_VALIDATION", Message: msg.String(),
		Validation: append([]httpx.FieldError(nil), fields...)}
}

// fieldErrors holds the slices validation collects failures in: the
// error gets a copy, so a request that fails allocates only what it
// hands out.
var fieldErrors = sync.Pool{New: func() any { return new([]httpx.FieldError) }}

func getFieldErrors() *[]httpx.FieldError { return fieldErrors.Get().(*[]httpx.FieldError) }

// putFieldErrors returns the scratch slice, now used, to the pool; one
// that grew large is dropped.
func putFieldErrors(scratch *[]httpx.FieldError, used []httpx.FieldError) {
	if cap(used) > 64 {
		return
	}
	clear(used) // the failures name the client's keys
	*scratch = used[:0]
	fieldErrors.Put(scratch)
}
