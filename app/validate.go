package app

import (
	"strings"

	"github.com/burrow-go/burrow/httpx"
)

// validationError is the 400 for failing fields.
func validationError(fields []httpx.FieldError) error {
	n := 0
	for _, f := range fields {
		n += len(", ") + len(f.Path) + len(" ") + len(f.Message)
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
	return &httpx.Error{
		StatusCode: 400, Code: "FST_ERR_VALIDATION",
		Message: msg.String(), Validation: fields,
	}
}
