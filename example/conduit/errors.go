package main

import (
	"errors"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
)

// The API answers every error in RealWorld's shape,
//
//	{"errors": {"email": ["has already been taken"]}}
//
// with 422 for input it refuses and the error's own status otherwise.
// The shape is the API context's choice: its error and not-found
// handlers are set there, and the routes outside /api (/healthz, the
// documentation) keep Burrow's.

// apiErrors is RealWorld's error body.
type apiErrors struct {
	Errors map[string][]string `json:"errors"`
}

// conflict is a 422 naming the fields whose values are taken.
func conflict(fields ...string) error {
	return conflictLike(strings.Join(fields, " and "), "has already been taken", fields...)
}

// conflictLike is a 422 saying msg of each field (of what, when none is
// given).
func conflictLike(what, msg string, fields ...string) *httpx.Error {
	if len(fields) == 0 {
		fields = []string{what}
	}
	e := &httpx.Error{StatusCode: http.StatusUnprocessableEntity, Message: what + " " + msg}
	for _, f := range fields {
		e.Validation = append(e.Validation, httpx.FieldError{Path: "body/" + f, Rule: "invalid", Message: msg})
	}
	return e
}

var (
	errForbidden = httpx.NewError(http.StatusForbidden, "FORBIDDEN", "not yours")
	errNotFound  = httpx.NewError(http.StatusNotFound, "NOT_FOUND", "not found")
)

// answerError is the API context's error handler.
func answerError(err error, req *httpx.Request, rep *httpx.Reply) error {
	var he *httpx.Error
	if !errors.As(err, &he) || he.StatusCode >= 500 {
		req.Log().Error("request failed", zap.Error(err))
		return rep.Code(http.StatusInternalServerError).Send(apiErrors{Errors: map[string][]string{"body": {"internal server error"}}})
	}
	body := apiErrors{Errors: map[string][]string{}}
	status := he.StatusCode
	switch {
	case len(he.Validation) > 0:
		status = http.StatusUnprocessableEntity
		for _, f := range he.Validation {
			name := f.Path[strings.LastIndexByte(f.Path, '/')+1:]
			msg := f.Message
			if f.Rule == "required" {
				msg = "can't be empty"
			}
			body.Errors[name] = append(body.Errors[name], msg)
		}
	case status == http.StatusBadRequest, status == http.StatusUnsupportedMediaType:
		status = http.StatusUnprocessableEntity // RealWorld has one status for input it refuses
		body.Errors["body"] = []string{he.Message}
	default:
		body.Errors["body"] = []string{he.Message}
	}
	return rep.Code(status).Send(body)
}

// notFound is the API context's not-found handler.
func notFound(rep *httpx.Reply) error {
	return rep.Code(http.StatusNotFound).Send(apiErrors{Errors: map[string][]string{"body": {"not found"}}})
}
