package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/burrow-go/burrow/internal/echo"
)

// Error is an error with an HTTP status and an optional machine-readable
// code. Handlers and hooks return it (or wrap it) to choose the response;
// any other error becomes a 500.
type Error struct {
	// StatusCode is the HTTP status; values below 400 are sent as 500.
	StatusCode int
	// Code is a stable identifier such as "FST_ERR_NOT_FOUND"; omitted
	// from the body when empty.
	Code string
	// Message is what the client sees; a 5xx whose message repeats the
	// text of its cause (as Errorf's %w makes it) sends its status text
	// instead, unless the server sends server error text (ErrorFormat).
	Message string
	// Err is the cause, kept for logs and errors.Is; never sent.
	Err error
	// Validation lists the failing fields of a validation error; sent as
	// the body's "validation" array.
	Validation []FieldError
	// Type is a URI reference naming the kind of problem, sent as the
	// type of problem details (ErrorFormat.Problems); empty is
	// DefaultProblemType. ErrorBody has no place for it.
	Type string
}

// FieldError is one failing field of a request input: where it is (body,
// querystring or params, then the field's path), the rule it broke, and a
// sentence for people.
type FieldError struct {
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// NewError returns an *Error with the given status, code and message.
func NewError(status int, code, message string) *Error {
	return &Error{StatusCode: status, Code: code, Message: message}
}

// Errorf returns an *Error with status and a formatted message; a %w verb
// wraps its operand as the cause (several %w verbs, all of them). The
// message then holds the cause's text, written for logs: a 4xx sends it
// (strconv's words on a bad number tell the client what to fix), a 5xx
// does not (a driver's name a table or a host) and says its status text,
// while the log keeps the whole message. A 5xx meant to tell the client
// something gives the message and the cause apart:
//
//	&httpx.Error{StatusCode: 503, Message: "database unavailable", Err: err}
func Errorf(status int, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	var cause error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		cause = u.Unwrap()
	case interface{ Unwrap() []error }:
		cause = err // unwraps to every operand
	}
	return &Error{StatusCode: status, Message: err.Error(), Err: cause}
}

// repeatsCause reports whether e's message holds the text of its cause:
// text written for logs, which a 5xx does not send.
func (e *Error) repeatsCause() bool {
	if e.Err == nil {
		return false
	}
	c := e.Err.Error()
	return c != "" && strings.Contains(e.Message, c)
}

func (e *Error) Error() string {
	status := strconv.Itoa(e.StatusCode)
	if e.Code != "" {
		return status + " " + e.Code + ": " + e.Message
	}
	return status + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorBody is the JSON body of an error response, with Fastify's key order.
type ErrorBody struct {
	StatusCode int    `json:"statusCode"`
	Code       string `json:"code,omitempty"`
	Error      string `json:"error"`
	Message    string `json:"message"`
	// Validation is present on validation errors only.
	Validation []FieldError `json:"validation,omitempty"`
}

// BodyOf builds the body for err: the status and code of an *Error in its
// chain, 500 otherwise. It keeps the message of any error, an error that
// is not an *Error too (its Error() text, never a stack): a server's
// replies hide that text unless told otherwise (see ErrorFormat), and a
// handler sending BodyOf's result itself decides what its client reads.
func BodyOf(err error) ErrorBody {
	he, ok := err.(*Error) // what the framework's own refusals are: no walk, no message built
	if !ok {
		he = asError(err)
	}
	if he == nil {
		status := http.StatusInternalServerError
		return ErrorBody{StatusCode: status, Error: http.StatusText(status), Message: err.Error()}
	}
	return bodyOf(he)
}

// bodyOf is he's body; a status outside 400–599 is sent as 500.
func bodyOf(he *Error) ErrorBody {
	status := he.StatusCode
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return ErrorBody{StatusCode: status, Code: he.Code, Error: http.StatusText(status), Message: he.Message, Validation: he.Validation}
}

// asError is the *Error in err's chain, or nil.
func asError(err error) *Error {
	var he *Error
	if errors.As(err, &he) {
		return he
	}
	return nil
}

// NotFoundBody is the body of the default 404, with Fastify's key order
// (which differs from ErrorBody's).
type NotFoundBody struct {
	Message    string `json:"message"`
	Error      string `json:"error"`
	StatusCode int    `json:"statusCode"`
}

// NotFound builds the default 404 body for r: the method and the request
// target as the client sent it, cut after its first 1 KiB.
func NotFound(r *http.Request) NotFoundBody {
	return NotFoundBody{
		Message:    "Route " + r.Method + ":" + echo.Cut(r.RequestURI, echo.Max) + " not found",
		Error:      http.StatusText(http.StatusNotFound),
		StatusCode: http.StatusNotFound,
	}
}

// NotAllowed builds the default 405 body for r, naming the method and
// the request target like NotFound.
func NotAllowed(r *http.Request) ErrorBody {
	return ErrorBody{
		StatusCode: http.StatusMethodNotAllowed,
		Error:      http.StatusText(http.StatusMethodNotAllowed),
		Message:    "Route " + r.Method + ":" + echo.Cut(r.RequestURI, echo.Max) + " not allowed",
	}
}

// Sentinel errors of the request and reply API.
var (
	// ErrAlreadySent is returned by Send when the reply was already sent.
	ErrAlreadySent = errors.New("reply was already sent")
	// ErrInvalidStatus is returned by Send and Stream for a status they
	// cannot write: outside 200–999 (net/http panics on those outside
	// 100–999, and an informational 1xx is not a reply).
	ErrInvalidStatus = errors.New("invalid status code")
	// ErrUnknownDecorator is returned for a request decorator name that the
	// route cannot see.
	ErrUnknownDecorator = errors.New("request decorator not visible from this route")
	// ErrDecoratorType is returned when a value of the wrong type is stored
	// in a request decorator, and (by app, at Ready) when a handler asks
	// for one as a type its value does not have.
	ErrDecoratorType = errors.New("wrong type for request decorator")
)
