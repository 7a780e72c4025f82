package app_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// framingCases are raw HTTP/1 requests around request smuggling and
// header abuse. Framing is net/http's job: Burrow must answer each
// exactly as a bare net/http server does, and run no handler for the
// ones it rejects. Both handlers drain the body and answer 400 when the
// body's framing turns out bad midway (the chunk-extension flood).
var framingCases = []struct {
	name string
	raw  string
	want int // what net/http 1.26 answers, as measured in shared/reference
}{
	{"plain", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", 204},
	{"TE chunked and CL", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2\r\nhi\r\n0\r\n\r\n", 204},
	{"two different CL", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi!", 400},
	{"two equal CL", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi", 204},
	{"TE twice", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501},
	{"TE gzip, chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
	{"TE xchunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 501},
	{"space before colon", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400},
	{"obs-fold", "GET /echo HTTP/1.1\r\nHost: x\r\nX-Long: a\r\n b\r\n\r\n", 204},
	{"no Host on HTTP/1.1", "GET /echo HTTP/1.1\r\n\r\n", 400},
	{"two Host fields", "GET /echo HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
	{"CL -1", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
	{"CL +2", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\nhi", 400},
	{"bare LF", "GET /echo HTTP/1.1\nHost: x\n\n", 204},
	{"TE chunked on HTTP/1.0", "POST /echo HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", 204},
	{"chunk-extension flood", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("1;"+strings.Repeat("e", 1000)+"\r\na\r\n", 40) + "0\r\n\r\n", 400},
	{"bad version", "GET /echo HTTP/9.9\r\nHost: x\r\n\r\n", 505},
	{"bad request line", "GET\r\nHost: x\r\n\r\n", 400},
	{"CTL in a header value", "GET /echo HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400},
	{"oversized headers", "GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", 431},
	{"bad percent-encoding", "GET /ec%zzho HTTP/1.1\r\nHost: x\r\n\r\n", 400},
}

type answer struct {
	code int // 0 when the server closed the connection without answering
	body string
}

// rawExchange writes raw to addr as is (no client-side cleaning or
// framing) and reads one response. The write runs beside the read, as a
// server may answer (431, 400) before it has read everything.
func rawExchange(t *testing.T, addr, raw string) answer {
	c := dial(t, addr)
	go io.WriteString(c, raw)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return answer{}
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return answer{res.StatusCode, string(b)}
}

func TestFramingMatchesNetHTTP(t *testing.T) {
	var bareCalls, burrowCalls atomic.Int64
	bare := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bareCalls.Add(1)
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	bare.Config.MaxHeaderBytes = 64 << 10
	bare.Start()
	defer bare.Close()

	s := app.New(app.WithMaxHeaderBytes(64 << 10))
	handler := func(req *httpx.Request, rep *httpx.Reply) error {
		burrowCalls.Add(1)
		if _, err := io.Copy(io.Discard, req.Raw().Body); err != nil {
			return rep.Code(http.StatusBadRequest).Send(nil)
		}
		return rep.Code(http.StatusNoContent).Send(nil)
	}
	s.Get("/echo", handler)
	s.Post("/echo", handler)
	require.NoError(t, s.Ready())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go s.Serve(ln)
	defer s.Close(t.Context())

	for _, tc := range framingCases {
		t.Run(tc.name, func(t *testing.T) {
			bareCalls.Store(0)
			burrowCalls.Store(0)
			want := rawExchange(t, bare.Listener.Addr().String(), tc.raw).code
			require.Equal(t, tc.want, want, "bare net/http's answer changed; update the table")
			got := rawExchange(t, ln.Addr().String(), tc.raw).code
			assert.Equal(t, want, got, "net/http answered %d", want)
			assert.Equal(t, bareCalls.Load(), burrowCalls.Load(), "the handler runs exactly when net/http's does")
		})
	}
}

// A smuggling attempt followed by a pipelined request: the second request
// must be read as the client framed it, by Burrow as by net/http.
func TestPipelinedRequestAfterSmuggleAttempt(t *testing.T) {
	s := app.New()
	var paths []string
	s.Post("/a", func(req *httpx.Request) (string, error) { paths = append(paths, "/a"); return "a", nil })
	s.Get("/b", func() (string, error) { paths = append(paths, "/b"); return "b", nil })
	require.NoError(t, s.Ready())
	c := dial(t, serve(t, s))
	// TE wins over CL (RFC 9112 §6.1): the body is the empty chunked one,
	// and "GET /b" is a second request, not body bytes.
	_, err := io.WriteString(c, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n"+
		"GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	for _, want := range []string{"a", "b"} {
		_, b := readAnswer(t, br)
		assert.Equal(t, want, b)
	}
	assert.Equal(t, []string{"/a", "/b"}, paths)
}
