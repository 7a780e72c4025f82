package app_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// serve starts s on a loopback port and returns its address; the server
// is closed when the test ends.
func serve(t *testing.T, s *app.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveOn(t, s, ln)
}

// serveInBackground starts s on a loopback port and returns its address
// and the channel Serve's result comes on, for a test that closes s
// itself and checks how Serve ends.
func serveInBackground(t *testing.T, s *app.Server) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	return ln.Addr().String(), served
}

// serveOn is serve on a listener the test made.
func serveOn(t *testing.T, s *app.Server, ln net.Listener) string {
	t.Helper()
	require.NoError(t, s.Ready())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		// A test that closed the server itself checks its own Close's
		// result (it may have cut the close short on purpose).
		if s.IsReady() {
			ctx, cancel := contextWithTimeout(2 * time.Second)
			defer cancel()
			assert.NoError(t, s.Close(ctx))
		}
		assert.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// dial opens a raw connection to addr, for requests no client would
// send; its deadline ends a read or write that only a broken server
// would leave hanging.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	return c
}

// readAnswer reads one response from a raw connection and returns it with
// its body read (and closed). A body cut short is not an error here: the
// caller's check of the body sees it.
func readAnswer(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// roundTrip sends req with the headers given as name, value pairs over a
// real socket, so that net/http's own client and server frame it, and
// returns the response with its body read (and closed). A name given
// twice is sent on two lines, as apptest.Do sends it through Inject.
func roundTrip(t *testing.T, req *http.Request, header ...string) (*http.Response, string) {
	t.Helper()
	require.Zero(t, len(header)%2, "headers come in name, value pairs")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func TestServeAndCloseDrainsInFlightRequests(t *testing.T) {
	s := app.New()
	started := make(chan struct{}, 100)
	s.Get("/slow", func() (string, error) {
		started <- struct{}{}
		time.Sleep(200 * time.Millisecond)
		return "done", nil
	})
	s.Get("/fast", func() (string, error) { return "fast", nil })
	require.NoError(t, s.Ready())
	addr, served := serveInBackground(t, s)
	url := "http://" + addr

	const clients = 50
	var wg sync.WaitGroup
	results := make(chan string, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(url + "/slow")
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			results <- fmt.Sprintf("%d %s", res.StatusCode, b)
		}()
	}
	for range clients {
		<-started
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }()

	// New connections are refused once Close has begun.
	// A request that still gets in before the listener closes is answered
	// and its body closed, so that its connection does not outlive the test.
	require.Eventually(t, func() bool {
		res, err := http.Get(url + "/fast")
		if err != nil {
			return true
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return false
	}, 2*time.Second, 10*time.Millisecond)

	wg.Wait()
	close(results)
	for r := range results {
		assert.Equal(t, "200 done", r, "every request accepted before Close completes")
	}
	require.NoError(t, <-closed)
	require.NoError(t, <-served, "Serve returns nil after a graceful Close")
	assert.NoError(t, s.Close(ctx), "Close twice is safe")

	// After Close the server answers 503 with connection: close.
	w := &headerRecorder{h: http.Header{}}
	s.ServeHTTP(w, mustRequest(t, "GET", "/fast"))
	assert.Equal(t, http.StatusServiceUnavailable, w.status)
	assert.Equal(t, "close", w.h.Get("Connection"))
	_, err := s.Inject(mustRequest(t, "GET", "/fast"))
	assert.ErrorIs(t, err, app.ErrClosed)
}

type headerRecorder struct {
	h      http.Header
	status int
}

func (w *headerRecorder) Header() http.Header         { return w.h }
func (w *headerRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (w *headerRecorder) WriteHeader(s int)           { w.status = s }

func mustRequest(t *testing.T, method, target string) *http.Request {
	req, err := http.NewRequest(method, "http://example.test"+target, nil)
	require.NoError(t, err)
	req.RequestURI = target
	return req
}

func TestListenReportsBootErrors(t *testing.T) {
	s := app.New()
	s.Get("/", func(*int) {})
	err := s.Listen("127.0.0.1:0")
	require.Error(t, err)
	var re *app.RouteError
	assert.ErrorAs(t, err, &re)
}

func TestDefaultHeaderLimitAnswers431(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Get("/", func() (string, error) { return "ok", nil })
	addr := serve(t, s)
	tests := []struct {
		name   string
		size   int
		status int
	}{
		{"well under the 16 KiB default", 8 << 10, http.StatusOK},
		{"over it (net/http allows 4 KiB of slack)", 24 << 10, http.StatusRequestHeaderFieldsTooLarge},
		{"net/http's own 1 MiB default", 1 << 20, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", "http://"+addr+"/", nil)
			require.NoError(t, err)
			req.Header.Set("X-Big", strings.Repeat("a", tt.size))
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, tt.status, res.StatusCode)
		})
	}
}

func TestReadHeaderTimeoutCutsSlowClients(t *testing.T) {
	s := app.New(app.WithTimeouts(150*time.Millisecond, 0, 0, time.Second))
	s.Get("/", func() (string, error) { return "ok", nil })
	addr := serve(t, s)

	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")) // never finishes the headers
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(3*time.Second)))
	start := time.Now()
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server closes the connection; the client's deadline is not what ends the read")
	assert.Less(t, time.Since(start), 2*time.Second)

	// A client that finishes in time is served.
	conn2, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn2.Close()
	_, err = conn2.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn2), nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

// The header and idle time-outs hold with and without whole-request read
// and write time-outs (net/http derives one from the other when unset).
func TestConnectionTimeouts(t *testing.T) {
	for _, mode := range []struct {
		name        string
		read, write time.Duration
	}{{"no whole-request time-outs", 0, 0}, {"with read and write time-outs", 5 * time.Second, 5 * time.Second}} {
		t.Run(mode.name, func(t *testing.T) {
			s := app.New(app.WithTimeouts(200*time.Millisecond, mode.read, mode.write, 300*time.Millisecond))
			s.Get("/", func() (string, error) { return "ok", nil })
			s.Get("/slow", func() (string, error) { time.Sleep(600 * time.Millisecond); return "slow", nil })
			addr := serve(t, s)

			t.Run("a silent new connection is cut after the header time-out", func(t *testing.T) {
				closedWithin(t, dial(t, addr), 150*time.Millisecond, 1500*time.Millisecond)
			})
			t.Run("an idle kept-alive connection is cut after the idle time-out", func(t *testing.T) {
				c := dial(t, addr)
				br := bufio.NewReader(c)
				for range 2 { // a second request keeps the connection in use
					_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
					require.NoError(t, err)
					res, err := http.ReadResponse(br, nil)
					require.NoError(t, err)
					res.Body.Close()
					require.Equal(t, 200, res.StatusCode)
				}
				closedWithin(t, br, 250*time.Millisecond, 1500*time.Millisecond)
			})
			t.Run("a request in progress is never cut", func(t *testing.T) {
				c := dial(t, addr)
				_, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
				require.NoError(t, err)
				_, b := readAnswer(t, bufio.NewReader(c))
				assert.Equal(t, "slow", b)
			})
		})
	}
}

// A header or idle time-out two seconds or more away is armed by the
// listener's sweeper shortly before it comes, not by a timer per request:
// it cuts a silent connection and an idle kept-alive one all the same,
// and not before it.
func TestLongConnectionTimeoutsCutToo(t *testing.T) {
	t.Parallel()
	const d = 2500 * time.Millisecond
	s := app.New(app.WithTimeouts(d, 0, 0, d))
	s.Get("/", func() (string, error) { return "ok", nil })
	addr := serve(t, s)
	t.Run("a silent new connection", func(t *testing.T) {
		t.Parallel()
		c := dial(t, addr)
		require.NoError(t, c.SetDeadline(time.Now().Add(15*time.Second)))
		closedWithin(t, c, d-500*time.Millisecond, 12*time.Second)
	})
	t.Run("an idle kept-alive connection", func(t *testing.T) {
		t.Parallel()
		c := dial(t, addr)
		require.NoError(t, c.SetDeadline(time.Now().Add(15*time.Second)))
		br := bufio.NewReader(c)
		_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		res, b := readAnswer(t, br)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "ok", b)
		closedWithin(t, br, d-500*time.Millisecond, 12*time.Second)
	})
}

// closedWithin reads r until the server closes the connection, and checks
// that it took between lo and hi: not before the time-out, not much after.
func closedWithin(t *testing.T, r io.Reader, lo, hi time.Duration) {
	t.Helper()
	start := time.Now()
	_, err := io.ReadAll(r)
	require.NoError(t, err, "the server closes; the client's own deadline is not what ends the read")
	assert.Less(t, time.Since(start), hi)
	assert.GreaterOrEqual(t, time.Since(start), lo)
}

// testCert is a self-signed certificate for 127.0.0.1 and localhost,
// made for one test: as a tls.Certificate, as PEM, and as the pool a
// client trusts it through.
type testCert struct {
	cert            tls.Certificate
	certPEM, keyPEM []byte
	pool            *x509.CertPool
}

func newTestCert(t *testing.T) testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "burrow test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	tc := testCert{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		pool:    x509.NewCertPool(),
	}
	tc.cert, err = tls.X509KeyPair(tc.certPEM, tc.keyPEM)
	require.NoError(t, err)
	require.True(t, tc.pool.AppendCertsFromPEM(tc.certPEM))
	return tc
}

// files writes the certificate and key to a directory removed when the
// test ends, for ListenTLS.
func (tc testCert) files(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, tc.certPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, tc.keyPEM, 0o600))
	return certFile, keyFile
}

// client trusts tc; http2 says whether it offers h2 (ALPN) besides
// HTTP/1.1. Its idle connections are closed when the test ends.
func (tc testCert) client(t *testing.T, http2 bool) *http.Client {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tc.pool}, ForceAttemptHTTP2: http2}
	if !http2 {
		var p http.Protocols
		p.SetHTTP1(true)
		tr.Protocols = &p
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// protoServer answers GET /proto with the protocol the handler saw.
func protoServer(t *testing.T, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	require.NoError(t, s.Get("/proto", func(req *httpx.Request) (string, error) { return req.Raw().Proto, nil }))
	return s
}

// getProto answers GET url through c: the protocol of the answer and its body.
func getProto(t *testing.T, c *http.Client, url string) (proto int, body string) {
	t.Helper()
	res, err := c.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	return res.ProtoMajor, string(b)
}

// TestServeOnTLSListener: Serve on a tls.NewListener whose NextProtos
// lists "h2" speaks HTTP/2 to a client that offers it (net/http's own
// HTTP/2, which Serve enables because Burrow leaves the http.Server's
// TLSConfig unset), and HTTP/1.1 to one that does not.
func TestServeOnTLSListener(t *testing.T) {
	t.Parallel()
	tc := newTestCert(t)
	s := protoServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := serveOn(t, s, tls.NewListener(ln, &tls.Config{
		Certificates: []tls.Certificate{tc.cert},
		NextProtos:   []string{"h2", "http/1.1"},
	}))
	tests := []struct {
		name  string
		http2 bool
		major int
		proto string
	}{
		{"client offers h2", true, 2, "HTTP/2.0"},
		{"client offers HTTP/1.1 only", false, 1, "HTTP/1.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			major, body := getProto(t, tc.client(t, tt.http2), "https://"+addr+"/proto")
			assert.Equal(t, tt.major, major)
			assert.Equal(t, tt.proto, body, "the protocol the handler saw")
		})
	}
}

// listenTLS runs s.ListenTLS on a loopback port and returns its address
// and what ListenTLS returns, once it has.
func listenTLS(t *testing.T, s *app.Server, certFile, keyFile string) (string, <-chan error) {
	t.Helper()
	addrs := make(chan string, 1)
	require.NoError(t, s.OnListen(func(a net.Addr) error { addrs <- a.String(); return nil }))
	done := make(chan error, 1)
	go func() { done <- s.ListenTLS("127.0.0.1:0", certFile, keyFile) }()
	t.Cleanup(func() { // a test that failed half-way leaves no server behind
		ctx, cancel := contextWithTimeout(10 * time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	select {
	case addr := <-addrs:
		return addr, done
	case err := <-done:
		require.FailNow(t, "ListenTLS returned before listening", "%v", err)
		return "", nil
	}
}

func TestListenTLSServesHTTP2(t *testing.T) {
	t.Parallel()
	tc := newTestCert(t)
	certFile, keyFile := tc.files(t)
	s := protoServer(t)
	addr, done := listenTLS(t, s, certFile, keyFile)

	major, body := getProto(t, tc.client(t, true), "https://"+addr+"/proto")
	assert.Equal(t, 2, major)
	assert.Equal(t, "HTTP/2.0", body)
	major, body = getProto(t, tc.client(t, false), "https://"+addr+"/proto")
	assert.Equal(t, 1, major, "HTTP/1.1 clients are served too")
	assert.Equal(t, "HTTP/1.1", body)

	// Plain HTTP on the TLS port is refused, as net/http refuses it.
	res, err := http.Get("http://" + addr + "/proto")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)

	ctx, cancel := contextWithTimeout(10 * time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	assert.NoError(t, <-done, "ListenTLS returns nil after a graceful Close")
}

func TestListenTLSBadCertificate(t *testing.T) {
	t.Parallel()
	tc := newTestCert(t)
	certFile, keyFile := tc.files(t)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	require.NoError(t, os.WriteFile(garbage, []byte("not a certificate"), 0o600))
	tests := []struct {
		name              string
		certFile, keyFile string
		notExist          bool
	}{
		{"missing certificate", filepath.Join(dir, "none.pem"), keyFile, true},
		{"missing key", certFile, filepath.Join(dir, "none.pem"), true},
		{"not PEM", garbage, keyFile, false},
		{"key of another certificate", certFile, "", false},
	}
	other := newTestCert(t)
	_, otherKey := other.files(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.keyFile == "" {
				tt.keyFile = otherKey
			}
			s := protoServer(t)
			listened := false
			require.NoError(t, s.OnListen(func(net.Addr) error { listened = true; return nil }))
			err := s.ListenTLS("127.0.0.1:0", tt.certFile, tt.keyFile)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "TLS certificate")
			assert.Equal(t, tt.notExist, errors.Is(err, fs.ErrNotExist), "%v", err)
			assert.False(t, listened, "no socket is opened for a certificate that cannot load")
			ctx, cancel := contextWithTimeout(10 * time.Second)
			defer cancel()
			assert.NoError(t, s.Close(ctx))
		})
	}
}

// TestCloseWithHTTP2ConnectionsOpen: a graceful Close lets a request in
// flight on an HTTP/2 connection finish, closes idle HTTP/2 connections
// (GOAWAY) rather than waiting for them, and returns nil.
func TestCloseWithHTTP2ConnectionsOpen(t *testing.T) {
	t.Parallel()
	tc := newTestCert(t)
	certFile, keyFile := tc.files(t)
	s := protoServer(t)
	entered, release := make(chan struct{}), make(chan struct{})
	require.NoError(t, s.Get("/slow", func(req *httpx.Request) (string, error) {
		close(entered)
		<-release
		return req.Raw().Proto, nil
	}))
	closing := make(chan struct{})
	require.NoError(t, s.PreClose(func(context.Context) error { close(closing); return nil }))
	addr, done := listenTLS(t, s, certFile, keyFile)

	// One connection idle after a request, one carrying a request that
	// is still being served when Close begins.
	major, _ := getProto(t, tc.client(t, true), "https://"+addr+"/proto")
	require.Equal(t, 2, major)
	type result struct {
		major int
		body  string
	}
	slow := make(chan result, 1)
	busy := tc.client(t, true)
	go func() {
		res, err := busy.Get("https://" + addr + "/slow")
		if !assert.NoError(t, err) {
			slow <- result{}
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		slow <- result{res.ProtoMajor, string(b)}
	}()
	<-entered

	closed := make(chan error, 1)
	go func() {
		ctx, cancel := contextWithTimeout(10 * time.Second)
		defer cancel()
		closed <- s.Close(ctx)
	}()
	<-closing
	close(release)
	assert.Equal(t, result{2, "HTTP/2.0"}, <-slow, "the request in flight is answered")
	assert.NoError(t, <-closed, "Close drains HTTP/2 connections within its deadline")
	assert.NoError(t, <-done)
}

// TestUnencryptedHTTP2: WithProtocols can add HTTP/2 without TLS (h2c,
// with prior knowledge) beside HTTP/1; by default a plain listener speaks
// HTTP/1 only.
func TestUnencryptedHTTP2(t *testing.T) {
	t.Parallel()
	var h2c, both, none http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	both.SetHTTP1(true)
	both.SetUnencryptedHTTP2(true)
	tests := []struct {
		name  string
		opts  []app.Option
		h2c   bool // an h2c client is served (over HTTP/2)
		http1 bool // an HTTP/1 client is served
	}{
		{"default", nil, false, true},
		{"HTTP/1 and h2c", []app.Option{app.WithProtocols(both)}, true, true},
		{"h2c only", []app.Option{app.WithProtocols(h2c)}, true, false},
		{"an empty set is the default", []app.Option{app.WithProtocols(none)}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := serve(t, protoServer(t, tt.opts...))
			for _, c := range []struct {
				h2c   bool
				want  bool
				major int
			}{{true, tt.h2c, 2}, {false, tt.http1, 1}} {
				var p http.Protocols
				p.SetUnencryptedHTTP2(c.h2c)
				p.SetHTTP1(!c.h2c)
				tr := &http.Transport{Protocols: &p}
				res, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/proto")
				if !c.want {
					if err == nil {
						res.Body.Close()
					}
					assert.Error(t, err, "h2c client %v", c.h2c)
					tr.CloseIdleConnections()
					continue
				}
				require.NoError(t, err, "h2c client %v", c.h2c)
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				require.NoError(t, err)
				assert.Equal(t, c.major, res.ProtoMajor)
				assert.Equal(t, res.Proto, string(b))
				tr.CloseIdleConnections()
			}
		})
	}
}

// TestHTTP2BodyLimit: the body limit holds on HTTP/2 streams, whether the
// client declares the length or streams it, and the connection serves
// the next request after a refusal.
func TestHTTP2BodyLimit(t *testing.T) {
	t.Parallel()
	tc := newTestCert(t)
	certFile, keyFile := tc.files(t)
	s := protoServer(t, app.WithMaxBodyBytes(100))
	require.NoError(t, s.Post("/in", func(b app.Body[string]) (string, error) { return strconv.Itoa(len(b.Value)), nil }))
	addr, done := listenTLS(t, s, certFile, keyFile)
	c := tc.client(t, true)
	tooLarge := `{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`
	tests := []struct {
		name     string
		n        int
		streamed bool // no content-length: the client streams the body
		status   int
		body     string
	}{
		{"under the limit", 50, false, 200, "50"},
		{"declared over the limit", 1000, false, 413, tooLarge},
		{"streamed under the limit", 50, true, 200, "50"},
		{"streamed over the limit", 1 << 20, true, 413, tooLarge},
	}
	for _, tt := range tests {
		var body io.Reader = strings.NewReader(strings.Repeat("a", tt.n))
		if tt.streamed {
			body = io.MultiReader(body) // hides the length
		}
		req, err := http.NewRequest(http.MethodPost, "https://"+addr+"/in", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "text/plain")
		res, err := c.Do(req)
		require.NoError(t, err, tt.name)
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err, tt.name)
		assert.Equal(t, 2, res.ProtoMajor, tt.name)
		assert.Equal(t, tt.status, res.StatusCode, tt.name)
		assert.Equal(t, tt.body, string(b), tt.name)
	}
	major, _ := getProto(t, c, "https://"+addr+"/proto")
	assert.Equal(t, 2, major, "the client still has an HTTP/2 connection")

	ctx, cancel := contextWithTimeout(10 * time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	assert.NoError(t, <-done)
}

// Both transports of eachTransport send the same request: a header given
// twice arrives on two lines, whichever way it went.
func TestTransportsSendRepeatedHeadersAlike(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, start starter) {
		s := app.New()
		require.NoError(t, s.Get("/", func(req *httpx.Request) (string, error) {
			return strings.Join(req.Headers().Values("X-A"), "|"), nil
		}))
		res := start(s)("GET", "/", "X-A", "1", "X-A", "2")
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "1|2", res.Body)
	})
}

// TestCloseLogNamesTheServer: the lines that say a server listens and
// that it closed name the server (its root context) and its addresses,
// so two servers of one process (a public one, an admin one) log lines
// that can be told apart.
func TestCloseLogNamesTheServer(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	log := zap.New(core)
	public := app.New(app.WithLogger(log))
	admin := app.New(app.WithLogger(log), app.WithRootName("admin"))
	pubAddr, pubDone := serveInBackground(t, public)
	admAddr, admDone := serveInBackground(t, admin)
	for _, addr := range []string{pubAddr, admAddr} {
		require.Eventually(t, func() bool {
			return logs.FilterMessage("server listening").FilterField(zap.String("address", addr)).Len() == 1
		}, 10*time.Second, 5*time.Millisecond)
	}
	require.NoError(t, public.Close(context.Background()))
	require.NoError(t, admin.Close(context.Background()))
	require.NoError(t, <-pubDone)
	require.NoError(t, <-admDone)

	var closed []map[string]any
	for _, e := range logs.FilterMessage("server closed").All() {
		closed = append(closed, e.ContextMap())
	}
	assert.ElementsMatch(t, []map[string]any{
		{"server": "root", "addresses": []any{pubAddr}},
		{"server": "admin", "addresses": []any{admAddr}},
	}, closed)
	listening := logs.FilterMessage("server listening").FilterField(zap.String("server", "admin")).All()
	require.Len(t, listening, 1)
	assert.Equal(t, admAddr, listening[0].ContextMap()["address"])
}
