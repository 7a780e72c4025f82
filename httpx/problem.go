package httpx

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/burrow-go/burrow/internal/echo"
)

// ContentTypeProblem is the content type of problem details (RFC 9457).
const ContentTypeProblem = "application/problem+json"

// problemType is Send's content type for a Problem; shared, never changed.
var problemType = []string{ContentTypeProblem}

// Problem is an error reply as RFC 9457 problem details, the body a
// server answers errors with when it is told to (ErrorFormat.Problems,
// app.WithProblemDetails): Send writes it as application/problem+json.
// Code and Validation are extension members carrying what ErrorBody
// carries; empty ones are left out, as are an empty Detail and Instance.
type Problem struct {
	// Type is a URI reference naming the kind of problem; "about:blank"
	// when the error names none, which makes Title the status text.
	Type string `json:"type"`
	// Title is the status text.
	Title string `json:"title"`
	// Status is the HTTP status.
	Status int `json:"status"`
	// Detail is the error's message.
	Detail string `json:"detail,omitempty"`
	// Instance is the path of the request answered (its first 1 KiB).
	Instance   string       `json:"instance,omitempty"`
	Code       string       `json:"code,omitempty"`
	Validation []FieldError `json:"validation,omitempty"`
}

// DefaultProblemType is a Problem's type when its error names none.
const DefaultProblemType = "about:blank"

// ErrorFormat is how a server writes its error replies: the default error
// handler's, Reply.SendError's and the framework's own refusals (404,
// 405, 413, …). The zero value is the production default: an ErrorBody,
// with the message of a 5xx error that is not an *Error, or of an *Error
// whose message repeats its cause's text, replaced by the status text.
type ErrorFormat struct {
	// Problems answers with a Problem instead of an ErrorBody.
	Problems bool
	// ServerMessages sends the message of a 5xx error that is not an
	// *Error too, and that of an *Error repeating its cause's text (as
	// Errorf's %w makes it). Such text was written for logs, not for
	// clients: a driver's or a dial's error names tables, hosts, paths.
	// Any other *Error's message was chosen for the client, so it is
	// always sent.
	ServerMessages bool
}

// Body is err's error reply in this format: its status, and the value to
// send, an ErrorBody or a Problem about r.
func (f ErrorFormat) Body(err error, r *http.Request) (int, any) {
	he, ok := err.(*Error) // what the framework's own refusals are: no walk
	if !ok {
		he = asError(err)
	}
	var b ErrorBody
	typ := ""
	if he == nil {
		b = ErrorBody{StatusCode: http.StatusInternalServerError, Error: http.StatusText(http.StatusInternalServerError)}
		b.Message = b.Error
		if f.ServerMessages {
			b.Message = err.Error()
		}
	} else {
		b = bodyOf(he)
		typ = he.Type
		if b.StatusCode >= 500 && !f.ServerMessages && he.repeatsCause() {
			b.Message = b.Error
		}
	}
	if f.Problems {
		return b.StatusCode, b.problem(typ, r)
	}
	return b.StatusCode, b
}

// Render is b as this format writes it: b itself, or the Problem it
// makes about r.
func (f ErrorFormat) Render(b ErrorBody, r *http.Request) any {
	if f.Problems {
		return b.problem("", r)
	}
	return b
}

// NotFound is the default 404's body for r in this format.
func (f ErrorFormat) NotFound(r *http.Request) any {
	nf := NotFound(r)
	if f.Problems {
		return ErrorBody{StatusCode: nf.StatusCode, Error: nf.Error, Message: nf.Message}.problem("", r)
	}
	return nf
}

// ContentType is the content type of this format's error replies.
func (f ErrorFormat) ContentType() string {
	if f.Problems {
		return ContentTypeProblem
	}
	return ContentTypeJSON
}

// problem is b as problem details of type typ (DefaultProblemType when
// empty) about r.
func (b ErrorBody) problem(typ string, r *http.Request) Problem {
	if typ == "" {
		typ = DefaultProblemType
	}
	return Problem{
		Type: typ, Title: b.Error, Status: b.StatusCode, Detail: b.Message, Instance: instance(r),
		Code: b.Code, Validation: b.Validation,
	}
}

// instance is the path of the target r was sent with, cut after its
// first 1 KiB as every echo of it is. The query is left out: it says
// what was asked, not where, and may carry what a log should not keep.
func instance(r *http.Request) string {
	if r == nil {
		return ""
	}
	p := r.RequestURI
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if p == "" && r.URL != nil {
		p = r.URL.EscapedPath()
	}
	return echo.Cut(p, echo.Max)
}

// appendJSON appends p as Send's encoder writes it, without reflection,
// as ErrorBody's does.
func (p Problem) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendJSONString(dst, p.Type)
	dst = append(dst, `,"title":`...)
	dst = AppendJSONString(dst, p.Title)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(p.Status), 10)
	if p.Detail != "" {
		dst = append(dst, `,"detail":`...)
		dst = AppendJSONString(dst, p.Detail)
	}
	if p.Instance != "" {
		dst = append(dst, `,"instance":`...)
		dst = AppendJSONString(dst, p.Instance)
	}
	if p.Code != "" {
		dst = append(dst, `,"code":`...)
		dst = AppendJSONString(dst, p.Code)
	}
	if len(p.Validation) > 0 {
		dst = appendFieldErrors(append(dst, `,"validation":`...), p.Validation)
	}
	return append(dst, '}')
}
