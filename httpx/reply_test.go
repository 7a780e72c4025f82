package httpx_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/compiled"
)

// plan is what the app package gives a request to run with: here, send
// hooks.
type plan = compiled.Route[httpx.Request, httpx.Reply]

// newReply is a Reply to a GET request, written to w and run with hooks,
// as the framework begins one.
func newReply(w http.ResponseWriter, hooks *plan) *httpx.Reply {
	_, rep := new(httpx.Exchange).Begin(w, httptest.NewRequest(http.MethodGet, "/", nil), nil, hooks, 1, "", nil)
	return rep
}

func send(t *testing.T, setup func(*httpx.Reply), v any, hooks *plan) (*httptest.ResponseRecorder, error) {
	t.Helper()
	w := httptest.NewRecorder()
	rep := newReply(w, hooks)
	if setup != nil {
		setup(rep)
	}
	err := rep.Send(v)
	return w, err
}

func TestSendChoosesTheBodyAndType(t *testing.T) {
	big := strings.Repeat("y", 3000)
	tests := []struct {
		name   string
		setup  func(*httpx.Reply)
		v      any
		status int
		ctype  string
		body   string
		length string // expected Content-Length header set by Send ("" = left to net/http)
	}{
		{"struct", nil, struct {
			A int    `json:"a"`
			B string `json:"b,omitempty"`
		}{A: 1}, 200, "application/json; charset=utf-8", `{"a":1}`, ""},
		{"map", nil, map[string]int{"x": 1}, 200, "application/json; charset=utf-8", `{"x":1}`, ""},
		{"slice", nil, []int{1, 2}, 200, "application/json; charset=utf-8", `[1,2]`, ""},
		{"no HTML escaping", nil, map[string]string{"h": "<b>&"}, 200, "application/json; charset=utf-8", `{"h":"<b>&"}`, ""},
		{"number", nil, 42, 200, "application/json; charset=utf-8", `42`, ""},
		{"string", nil, "hi", 200, "text/plain; charset=utf-8", "hi", ""},
		{"bytes", nil, []byte{1, 2}, 200, "application/octet-stream", "\x01\x02", ""},
		{"raw JSON", nil, json.RawMessage(`{"r":1}`), 200, "application/json; charset=utf-8", `{"r":1}`, ""},
		// net/http itself answers "content-length: 0" when nothing was written.
		{"nil", nil, nil, 200, "", "", ""},
		{"empty string", nil, "", 200, "", "", ""},
		{"type wins", func(r *httpx.Reply) { r.Type("text/html") }, "<p>", 200, "text/html", "<p>", ""},
		{"JSON type gets a charset", func(r *httpx.Reply) { r.Type("application/json") }, `{"s":1}`, 200, "application/json; charset=utf-8", `{"s":1}`, ""},
		{"code", func(r *httpx.Reply) { r.Code(201) }, "made", 201, "text/plain; charset=utf-8", "made", ""},
		{"204 has no body", func(r *httpx.Reply) { r.Code(204) }, map[string]int{"x": 1}, 204, "", "", ""},
		{"large body gets its length", nil, big, 200, "text/plain; charset=utf-8", big, strconv.Itoa(len(big))},
		{"JSONAppender writes itself", nil, point{X: 1, Label: `a"b`}, 200, "application/json; charset=utf-8", `{"x":1,"label":"a\"b"}`, ""},
		{"JSONAppender by pointer", nil, &point{X: 2}, 200, "application/json; charset=utf-8", `{"x":2}`, ""},
		{"nil JSONAppender pointer is null", nil, (*point)(nil), 200, "application/json; charset=utf-8", `null`, ""},
		{"large JSONAppender gets its length", nil, point{Label: big}, 200, "application/json; charset=utf-8", `{"x":0,"label":"` + big + `"}`, strconv.Itoa(len(big) + 18)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := send(t, tt.setup, tt.v, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.ctype, w.Header().Get("Content-Type"))
			assert.Equal(t, tt.body, w.Body.String())
			assert.Equal(t, tt.length, w.Header().Get("Content-Length"))
		})
	}
}

// An empty reply to HEAD states its length: net/http cannot tell an empty
// GET body from a HEAD that omits one.
func TestTypeSetsCommonTypesWithoutAllocating(t *testing.T) {
	tests := []struct {
		set, want string
		allocs    float64
	}{
		{"application/json", "application/json; charset=utf-8", 0},
		{"application/json; charset=utf-8", "application/json; charset=utf-8", 0},
		{"text/plain; charset=utf-8", "text/plain; charset=utf-8", 0},
		{"text/html; charset=utf-8", "text/html; charset=utf-8", 0},
		{"text/html", "text/html", 1},
		{"application/problem+json", "application/problem+json; charset=utf-8", 2},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		rep := newReply(w, nil)
		allocs := testing.AllocsPerRun(100, func() { rep.Type(tt.set) })
		assert.Equal(t, tt.allocs, allocs, tt.set)
		assert.Equal(t, []string{tt.want}, w.Header()["Content-Type"], tt.set)
		// Shared values are not changed by what a later Add appends.
		w.Header().Add("Content-Type", "x")
		rep.Type(tt.set)
		assert.Equal(t, []string{tt.want}, w.Header()["Content-Type"], tt.set)
	}
}

func TestEmptyHeadReplyStatesItsLength(t *testing.T) {
	var x httpx.Exchange
	w := httptest.NewRecorder()
	_, rep := x.Begin(w, httptest.NewRequest(http.MethodHead, "/", nil), nil, nil, 1, "", nil)
	require.NoError(t, rep.Send(nil))
	assert.Equal(t, "0", w.Header().Get("Content-Length"))
}

func TestSendErrors(t *testing.T) {
	w := httptest.NewRecorder()
	rep := newReply(w, nil)
	require.NoError(t, rep.Send("once"))
	assert.ErrorIs(t, rep.Send("twice"), httpx.ErrAlreadySent)
	assert.Equal(t, "once", w.Body.String())

	w2, err := send(t, nil, make(chan int), nil)
	require.Error(t, err, "a channel cannot be encoded")
	assert.Empty(t, w2.Body.String())

	w3 := httptest.NewRecorder()
	rep3 := newReply(w3, nil)
	require.Error(t, rep3.Send(make(chan int)))
	assert.False(t, rep3.Sent(), "nothing was written, so the error handler may still answer")
	require.NoError(t, rep3.SendError(errors.New("encode failed")))
	assert.Equal(t, 500, w3.Code)
}

// point writes its own JSON, as a reply type with a known shape may.
type point struct {
	X     int    `json:"x"`
	Label string `json:"label,omitempty"`
	Fail  bool   `json:"-"`
}

func (p point) AppendJSON(dst []byte) ([]byte, error) {
	if p.Fail {
		return dst, errors.New("cannot encode point")
	}
	dst = append(dst, `{"x":`...)
	dst = strconv.AppendInt(dst, int64(p.X), 10)
	if p.Label != "" {
		dst = append(dst, `,"label":`...)
		dst = httpx.AppendJSONString(dst, p.Label)
	}
	return append(dst, '}'), nil
}

// The hand-written encoding of point says what encoding/json says.
func TestPointMatchesEncodingJSON(t *testing.T) {
	for _, p := range []point{{}, {X: -3}, {X: 7, Label: "<é>\n\u2028\x01"}} {
		want, err := json.Marshal(p)
		require.NoError(t, err)
		got, err := p.AppendJSON(nil)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got))
	}
}

func TestJSONAppenderErrorsAndHooks(t *testing.T) {
	w := httptest.NewRecorder()
	rep := newReply(w, nil)
	require.EqualError(t, rep.Send(point{Fail: true}), "cannot encode point")
	assert.False(t, rep.Sent(), "nothing was written, so the error handler may still answer")
	assert.Empty(t, w.Body.String())

	// preSerialization sees the value itself and may replace it.
	var seen any
	hooks := &plan{PreSerialization: []func(*httpx.Request, *httpx.Reply, any) (any, error){
		func(_ *httpx.Request, r *httpx.Reply, p any) (any, error) {
			seen = p
			return point{X: p.(point).X + 1}, nil
		},
	}}
	w, err := send(t, nil, point{X: 1}, hooks)
	require.NoError(t, err)
	assert.Equal(t, point{X: 1}, seen)
	assert.Equal(t, `{"x":2}`, w.Body.String())
}

func TestSendHooks(t *testing.T) {
	hooks := &plan{
		PreSerialization: []func(*httpx.Request, *httpx.Reply, any) (any, error){
			func(_ *httpx.Request, _ *httpx.Reply, p any) (any, error) { return map[string]any{"wrapped": p}, nil },
		},
		OnSend: []func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error){
			func(_ *httpx.Request, _ *httpx.Reply, b []byte) ([]byte, error) {
				return append([]byte("x"), b...), nil
			},
		},
	}
	w, err := send(t, nil, []int{1}, hooks)
	require.NoError(t, err)
	assert.Equal(t, `x{"wrapped":[1]}`, w.Body.String())

	w, err = send(t, nil, "text", hooks)
	require.NoError(t, err)
	assert.Equal(t, "xtext", w.Body.String(), "strings skip preSerialization")

	failing := &plan{OnSend: []func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error){
		func(*httpx.Request, *httpx.Reply, []byte) ([]byte, error) { return nil, errors.New("no") },
	}}
	w, err = send(t, nil, "text", failing)
	require.EqualError(t, err, "no")
	assert.Empty(t, w.Body.String())
}

func TestSendErrorBodies(t *testing.T) {
	t.Parallel()
	problems := httpx.ErrorFormat{Problems: true}
	shown := httpx.ErrorFormat{ServerMessages: true}
	tests := []struct {
		name   string
		format httpx.ErrorFormat
		err    error
		status int
		ctype  string
		body   string
	}{
		{"an *Error", httpx.ErrorFormat{}, httpx.NewError(409, "E_TAKEN", "taken"), 409, httpx.ContentTypeJSON,
			`{"statusCode":409,"code":"E_TAKEN","error":"Conflict","message":"taken"}`},
		{"a plain error's text is hidden", httpx.ErrorFormat{}, errors.New("boom"), 500, httpx.ContentTypeJSON,
			`{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`},
		{"or shown when asked", shown, errors.New("boom"), 500, httpx.ContentTypeJSON,
			`{"statusCode":500,"error":"Internal Server Error","message":"boom"}`},
		{"an *Error's 5xx message is its author's", httpx.ErrorFormat{}, httpx.NewError(503, "E_DB", "database unavailable"), 503, httpx.ContentTypeJSON,
			`{"statusCode":503,"code":"E_DB","error":"Service Unavailable","message":"database unavailable"}`},
		{"a status below 400", httpx.ErrorFormat{}, httpx.NewError(301, "", "moved"), 500, httpx.ContentTypeJSON,
			`{"statusCode":500,"error":"Internal Server Error","message":"moved"}`},
		{"a wrapped *Error", httpx.ErrorFormat{}, fmt.Errorf("ctx: %w", httpx.NewError(404, "", "gone")), 404, httpx.ContentTypeJSON,
			`{"statusCode":404,"error":"Not Found","message":"gone"}`},
		{"Errorf", httpx.ErrorFormat{}, httpx.Errorf(400, "bad %s: %w", "input", io.EOF), 400, httpx.ContentTypeJSON,
			`{"statusCode":400,"error":"Bad Request","message":"bad input: EOF"}`},
		{"problem: an *Error", problems, httpx.NewError(409, "E_TAKEN", "taken"), 409, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Conflict","status":409,"detail":"taken","instance":"/a/b","code":"E_TAKEN"}`},
		{"problem: an *Error of its own type", problems, &httpx.Error{StatusCode: 402, Message: "top up", Type: "https://example.com/credit"}, 402, httpx.ContentTypeProblem,
			`{"type":"https://example.com/credit","title":"Payment Required","status":402,"detail":"top up","instance":"/a/b"}`},
		{"problem: a plain error's text is hidden", problems, errors.New("boom"), 500, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error","instance":"/a/b"}`},
		{"problem: or shown when asked", httpx.ErrorFormat{Problems: true, ServerMessages: true}, errors.New("boom"), 500, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"boom","instance":"/a/b"}`},
		{"problem: a validation error", problems, &httpx.Error{StatusCode: 400, Code: "V", Message: "m",
			Validation: []httpx.FieldError{{Path: "body/a", Rule: "required", Message: "is required"}}}, 400, httpx.ContentTypeProblem,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"m","instance":"/a/b","code":"V","validation":[{"path":"body/a","rule":"required","message":"is required"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			x := new(httpx.Exchange)
			x.SetErrorFormat(tt.format)
			_, rep := x.Begin(w, httptest.NewRequest(http.MethodGet, "/a/b?secret=1", nil), nil, nil, 1, "", nil)
			require.NoError(t, rep.SendError(tt.err))
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.ctype, w.Header().Get("Content-Type"))
			assert.Equal(t, tt.body, w.Body.String())
		})
	}
	assert.ErrorIs(t, httpx.Errorf(400, "wrap: %w", io.EOF), io.EOF)
}

func TestNotFoundBodyNamesTheTargetAsSent(t *testing.T) {
	req := httptest.NewRequest("GET", "/four?x=1", nil)
	b, err := json.Marshal(httpx.NotFound(req))
	require.NoError(t, err)
	assert.Equal(t, `{"message":"Route GET:/four?x=1 not found","error":"Not Found","statusCode":404}`, string(b))
}

// The 404 and 405 messages repeat at most the first 1 KiB of the target,
// cut where a character starts and marked with "…".
func TestErrorMessagesCutLongTargets(t *testing.T) {
	t.Parallel()
	e := "\u00e9" // é, two bytes
	tests := []struct {
		name, target, echoed string
	}{
		{"exactly 1 KiB", "/" + strings.Repeat("a", 1023), "/" + strings.Repeat("a", 1023)},
		{"one byte more", "/" + strings.Repeat("a", 1024), "/" + strings.Repeat("a", 1023) + "…"},
		{"a character across the cut", "/" + strings.Repeat("a", 1022) + e + "tail", "/" + strings.Repeat("a", 1022) + "…"},
		{"a character ending at the cut", "/" + strings.Repeat("a", 1021) + e + "tail", "/" + strings.Repeat("a", 1021) + e + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("PUT", tt.target, nil)
			assert.Equal(t, "Route PUT:"+tt.echoed+" not found", httpx.NotFound(req).Message)
			assert.Equal(t, "Route PUT:"+tt.echoed+" not allowed", httpx.NotAllowed(req).Message)
		})
	}
}

// Send leaves Content-Length of small bodies to net/http; this checks that
// net/http does set it, exactly, over a real connection.
func TestSmallBodyLengthOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := newReply(w, nil)
		_ = rep.Send(map[string]string{"k": strings.Repeat("v", 100)})
	}))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, int64(len(b)), res.ContentLength)
	assert.Empty(t, res.TransferEncoding)
}
