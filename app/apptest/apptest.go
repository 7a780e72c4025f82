// Package apptest helps test a Burrow server: a server closed when the
// test ends (made here, or by the application's own constructor), a
// request answered in one line with its body read, a client that keeps
// cookies from one request to the next, multipart bodies, and a check
// that no test leaves a goroutine behind.
//
//	func TestHello(t *testing.T) {
//		s := apptest.New(t)
//		s.Get("/hello", func() (string, error) { return "hi", nil })
//		res := apptest.Get(t, s, "/hello")
//		if res.StatusCode != 200 || res.Body != "hi" {
//			t.Fatalf("got %d %q", res.StatusCode, res.Body)
//		}
//	}
//
// Requests go through Server.Inject: no socket, the whole request path
// (routing, hooks, typed input, the error handler) as a client meets it.
// Serve and Fetch do the same over a real socket, for what only a
// connection shows (framing, flushes arriving, compressed bodies).
// ReadEvent reads a streamed answer's server-sent events one by one.
// A Client sends requests one way or the other and keeps the cookies
// the answers set, as a browser does; a Multipart builds an upload.
//
// The helpers fail the test themselves when the request cannot be made
// and leave every assertion to the caller: they import no assertion
// library, only the standard library, Burrow and goleak.
package apptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/app"
)

// closeTimeout bounds how long the Close that ends a test made with New
// waits for the server's in-flight requests and OnClose hooks.
const closeTimeout = 10 * time.Second

// New returns a server made with opts, closed when tb and its subtests
// end; a Close that fails fails tb. It is Own(tb, app.New(opts...)).
func New(tb testing.TB, opts ...app.Option) *app.Server {
	tb.Helper()
	return Own(tb, app.New(opts...))
}

// Own makes tb the owner of s, a server made elsewhere — by the
// application's own constructor, with the options it runs with in
// production — as New's servers are: s is closed when tb and its
// subtests end, and a Close that fails fails tb. It returns s, so a test
// reads
//
//	s := apptest.Own(t, newServer(cfg))
//
// and then tests the server it ships, not one assembled for the test.
func Own(tb testing.TB, s *app.Server) *app.Server {
	tb.Helper()
	if s == nil {
		tb.Fatalf("apptest: Own got a nil server")
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			tb.Errorf("apptest: closing the server: %v", err)
		}
	})
	return s
}

// Serve serves s on a fresh loopback port until tb ends and returns its
// base URL ("http://127.0.0.1:port"), for tests that need a real socket:
// a client's own framing, streaming as it arrives, compression
// negotiated by a real transport. The server is closed by New's cleanup
// when s comes from New, and by Serve's otherwise.
func Serve(tb testing.TB, s *app.Server) string {
	tb.Helper()
	if err := s.Ready(); err != nil {
		tb.Fatalf("apptest: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("apptest: listening: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		_ = s.Close(ctx) // a second Close (New's) returns at once
		<-done
	})
	return "http://" + ln.Addr().String()
}

// Response is an answer with its body read.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       string
}

// JSON decodes the body into v, failing tb when it is not JSON that
// fits v.
func (r *Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		tb.Fatalf("apptest: decoding the %d answer %q into %T: %v", r.StatusCode, r.Body, v, err)
	}
}

// Do sends method target to s with body (nil for none) and the headers
// given as name, value pairs, and returns the answer. A request s cannot
// answer (s fails Ready, say) fails tb.
func Do(tb testing.TB, s *app.Server, method, target string, body io.Reader, header ...string) *Response {
	tb.Helper()
	if len(header)%2 != 0 {
		tb.Fatalf("apptest: headers come in name, value pairs; %q has no value", header[len(header)-1])
	}
	req := httptest.NewRequest(method, target, body)
	for i := 0; i < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return Inject(tb, s, req)
}

// Get is Do with method GET and no body.
func Get(tb testing.TB, s *app.Server, target string, header ...string) *Response {
	tb.Helper()
	return Do(tb, s, http.MethodGet, target, nil, header...)
}

// Fetch sends method url, with the headers given as name, value pairs,
// over a real connection (to a Serve URL, say) and returns the answer
// as it came: the client follows no redirect, asks for no compression
// of its own and decodes none, so a request without Accept-Encoding
// sends none and an encoded body stays encoded.
func Fetch(tb testing.TB, method, url string, header ...string) *Response {
	tb.Helper()
	if len(header)%2 != 0 {
		tb.Fatalf("apptest: headers come in name, value pairs; %q has no value", header[len(header)-1])
	}
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		tb.Fatalf("apptest: %v", err)
	}
	for i := 0; i < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	res, err := fetchClient.Do(req)
	if err != nil {
		tb.Fatalf("apptest: %s %s: %v", method, url, err)
	}
	return readAnswer(tb, req, res)
}

// fetchClient is Fetch's: net/http's default transport would add
// "Accept-Encoding: gzip" to a request without one and decode the answer.
var fetchClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true, Proxy: nil},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Inject sends req to s as it is and returns the answer.
func Inject(tb testing.TB, s *app.Server, req *http.Request) *Response {
	tb.Helper()
	res, err := s.Inject(req)
	if err != nil {
		tb.Fatalf("apptest: %s %s: %v", req.Method, req.URL, err)
	}
	return readAnswer(tb, req, res)
}

// readAnswer reads and closes the body of res, the answer to req.
func readAnswer(tb testing.TB, req *http.Request, res *http.Response) *Response {
	tb.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("apptest: reading the answer to %s %s: %v", req.Method, req.URL, err)
	}
	return &Response{StatusCode: res.StatusCode, Header: res.Header, Body: string(b)}
}

// ReadEvent reads the next server-sent event from r, the body of a
// streamed answer (from Server.Inject or a client): its lines, each with
// its "\n", up to the blank line that ends the event, which is left out.
// A block of comments (EventStream.Comment's ": ping", a heartbeat) is
// returned like an event, as ": ping\n", so a test sees a stream's
// heartbeats and can wait for them as for its events. A stream that ends
// or fails first fails tb, naming the line it was cut in, if any. Like
// every helper here it must be called from the test's own goroutine.
func ReadEvent(tb testing.TB, r *bufio.Reader) string {
	tb.Helper()
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil && line != "" {
			tb.Fatalf("apptest: reading an event after %q: the stream ended in the line %q: %v", b.String(), line, err)
		}
		if err != nil {
			tb.Fatalf("apptest: reading an event after %q: %v", b.String(), err)
		}
		if line == "\n" {
			return b.String()
		}
		b.WriteString(line)
	}
}

// Main runs a package's tests and fails the package if any goroutine is
// left running after them: a server not closed, a hook still running, a
// watcher not stopped. Call it from TestMain:
//
//	func TestMain(m *testing.M) { apptest.Main(m) }
//
// The idle keep-alive connections of http.DefaultClient are closed first:
// they belong to the tests' client, not to a server, and their goroutines
// would otherwise end only when each connection notices its server
// closed, which on a loaded machine can take longer than the check waits.
func Main(m *testing.M) {
	code := m.Run()
	if code == 0 {
		http.DefaultClient.CloseIdleConnections()
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on a successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
