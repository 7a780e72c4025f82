package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strconv"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
)

// panicError is a recovered panic. A panic is a bug in the server and its
// value may say anything about it (a path, a query, a secret), so it never
// reaches the client: the error answers a bare 500, whatever the value.
// Its message, "panic: <value>", is for logs and error handlers, and
// "%+v" adds the stack, which is what zap logs as errorVerbose.
type panicError struct {
	value any
	stack []byte
}

// errInternal is what a panic answers. It comes first in what a
// panicError unwraps to, so errors.As finds it before an *httpx.Error the
// value may be.
var errInternal = httpx.NewError(http.StatusInternalServerError, "", http.StatusText(http.StatusInternalServerError))

// internalReply is errInternal's body, for a 500 written outside any
// reply.
var internalReply = func() []byte {
	b, err := json.Marshal(httpx.BodyOf(errInternal))
	if err != nil {
		panic(err)
	}
	return b
}()

// writeInternal answers r with a bare 500 on w, which nothing was written
// to, outside any reply: what a panic answers, in format f.
func writeInternal(w http.ResponseWriter, r *http.Request, f httpx.ErrorFormat) {
	body := errorBytes(internalReply, f, errInternal, r)
	h := w.Header()
	delete(h, "Content-Encoding") // the body is not what a middleware was encoding
	h["Content-Type"] = []string{f.ContentType()}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusInternalServerError)
	if r.Method != http.MethodHead {
		// The body is JSON, sent as JSON: the request's path in it (a
		// problem's instance) is a JSON string, not markup.
		_, _ = w.Write(body) // #nosec G705 -- JSON under a JSON content type
	}
}

// errorBytes is err's reply to r in format f, for an answer written
// outside any reply: prepared, the default body, or else encoded now.
func errorBytes(prepared []byte, f httpx.ErrorFormat, err error, r *http.Request) []byte {
	if !f.Problems {
		return prepared
	}
	_, body := f.Body(err, r)
	b, jerr := json.Marshal(body)
	if jerr != nil { // a Problem of strings and an int: cannot happen
		return prepared
	}
	return b
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// Unwrap returns the 500 the panic answers and, when the value is an
// error, the value, so errors.Is and errors.As still find it.
func (e *panicError) Unwrap() []error {
	if err, ok := e.value.(error); ok {
		return []error{errInternal, err}
	}
	return []error{errInternal}
}

// Format writes the message; "%+v" adds the stack of the panic.
func (e *panicError) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "%s\n\n%s", e.Error(), e.stack)
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	default:
		_, _ = io.WriteString(f, e.Error())
	}
}

// recoverError is every recovery of the framework's: deferred directly
// (recover only works there), it turns a panic into *err. With keepAbort,
// http.ErrAbortHandler panics on, as net/http's signal to drop the
// connection; code that runs where nothing above it would recover, such
// as a goroutine of its own, recovers that one too.
func recoverError(err *error, keepAbort bool) {
	if p := recover(); p != nil {
		if keepAbort && p == http.ErrAbortHandler {
			panic(p)
		}
		*err = errorOf(p)
	}
}

// protectCall runs fn, turning any panic into an error.
func protectCall(fn func() error) (err error) {
	defer recoverError(&err, false)
	return fn()
}

// logPanic logs err once to req's logger, at error level with its
// stack, when it is a recovered panic; it reports whether it was.
func logPanic(req *httpx.Request, err error) bool {
	if _, ok := err.(*panicError); !ok { // this error itself: one it wraps was logged when it came
		return false
	}
	req.Log().Error(err.Error(), zap.Error(err))
	return true
}

// recovered reports whether err is or wraps a recovered panic.
func recovered(err error) bool {
	var pe *panicError
	return errors.As(err, &pe)
}

// errorOf recovers a panic value as an error, with the stack of the
// panic; it must be called from the deferred function that recovered p.
func errorOf(p any) error {
	return &panicError{value: p, stack: debug.Stack()}
}
