package app

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/burrow-go/burrow/httpx"
)

// WriteError answers r on w with err's error reply in the server's error
// format (WithProblemDetails, WithServerErrorText): the body
// Reply.SendError sends, for a middleware (Use), which has no Reply. The
// status is err's (an *httpx.Error's, 500 otherwise); a HEAD request gets
// the status and headers only. Headers set on w before stay (a
// Retry-After). The context's error handler is not run: a middleware
// answers before the lifecycle it belongs to. For a request that is not
// one of a Burrow server's, the default format.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var f httpx.ErrorFormat
	if c, _ := r.Context().Value(callKey{}).(*call); c != nil && c.x != nil {
		f = c.x.ErrorFormat()
	}
	status, body := f.Body(err, r)
	b, jerr := json.Marshal(body)
	if jerr != nil { // an ErrorBody or a Problem of strings, ints and field errors: cannot happen
		status, b = http.StatusInternalServerError, internalReply
	}
	h := w.Header()
	h["Content-Type"] = []string{f.ContentType()}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		// JSON under a JSON content type: the request's path in it (a
		// problem's instance) is a JSON string, not markup.
		_, _ = w.Write(b) // #nosec G705 -- JSON under a JSON content type
	}
}
