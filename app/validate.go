package app

import (
	"strings"

	"github.com/burrow-go/burrow/httpx"
)

// validationError is the 400 for failing fields.
func validationError(fields []httpx.FieldError) error {
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Path + " " + f.Message
	}
	return &httpx.Error{
		StatusCode: 400, Code: "FST_ERR_VALIDATION",
		Message: strings.Join(msgs, ", "), Validation: fields,
	}
}
