package apptest

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/burrow-go/burrow/app"
)

// Client sends requests to one server and keeps the cookies its answers
// set, sending them with the next requests as a browser would: a log-in
// then the pages behind it, a session and its CSRF token. It goes
// through Server.Inject when Server is set, in process as Do does, and
// over a real connection to URL (a Serve URL) as Fetch does otherwise.
// Either way it follows no redirect, asks for no compression and
// decodes none: answers come as they were sent.
//
//	c := &apptest.Client{Server: s}
//	c.Do(t, "POST", "/session", strings.NewReader("user=ann&token=t"), "Content-Type", "application/x-www-form-urlencoded")
//	res := c.Get(t, "/todos") // with the session cookie the log-in set
//
// Cookies follow the rules of net/http/cookiejar (domain, path, expiry,
// Max-Age); Secure ones are kept and sent as a browser does for
// localhost, so a server with its production cookie settings logs in
// under test. The zero Client is not usable: set Server or URL. A Client
// may be used by several goroutines, and must not be copied after its
// first request.
type Client struct {
	// Server answers in process, through Inject.
	Server *app.Server
	// URL is the base URL of a server on a socket, "http://127.0.0.1:port",
	// used when Server is nil.
	URL string

	once sync.Once
	jar  *cookiejar.Jar
}

// Do sends method target (a path, with its query) with body (nil for
// none) and the headers given as name, value pairs, and the client's
// cookies for target; keeps the cookies the answer sets; and returns the
// answer. A Cookie header given here is sent too, before the client's.
func (c *Client) Do(tb testing.TB, method, target string, body io.Reader, header ...string) *Response {
	tb.Helper()
	if len(header)%2 != 0 {
		tb.Fatalf("apptest: headers come in name, value pairs; %q has no value", header[len(header)-1])
	}
	if !strings.HasPrefix(target, "/") {
		tb.Fatalf("apptest: a Client's target is a path, not %q", target)
	}
	c.once.Do(c.init)
	var req *http.Request
	switch {
	case c.Server != nil:
		req = httptest.NewRequest(method, target, body)
	case c.URL != "":
		var err error
		if req, err = http.NewRequest(method, strings.TrimSuffix(c.URL, "/")+target, body); err != nil {
			tb.Fatalf("apptest: %v", err)
		}
	default:
		tb.Fatalf("apptest: the Client has neither a Server nor a URL")
	}
	for i := 0; i < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	at := jarURL(req.URL, req.Host)
	for _, ck := range c.jar.Cookies(at) {
		req.AddCookie(ck)
	}
	var res *http.Response
	var err error
	if c.Server != nil {
		res, err = c.Server.Inject(req)
	} else {
		res, err = fetchClient.Do(req)
	}
	if err != nil {
		tb.Fatalf("apptest: %s %s: %v", req.Method, req.URL, err)
	}
	c.jar.SetCookies(at, res.Cookies())
	return readAnswer(tb, req, res)
}

// Get is Do with method GET and no body.
func (c *Client) Get(tb testing.TB, target string, header ...string) *Response {
	tb.Helper()
	return c.Do(tb, http.MethodGet, target, nil, header...)
}

// Cookies returns the cookies the client would send to path, by name
// and value (as a request carries them).
func (c *Client) Cookies(path string) []*http.Cookie {
	c.once.Do(c.init)
	// The host of httptest.NewRequest, which Do uses in process.
	host := "example.com"
	if c.Server == nil {
		if u, err := url.Parse(c.URL); err == nil {
			host = u.Host
		}
	}
	return c.jar.Cookies(jarURL(&url.URL{Path: path}, host))
}

// jarURL is the address the cookie jar files a request's cookies under:
// its host and path over https, so that Secure cookies are kept and
// sent. A browser treats localhost as secure; a test's server, in
// process or on a loopback port, is that.
func jarURL(u *url.URL, host string) *url.URL {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return &url.URL{Scheme: "https", Host: host, Path: u.Path}
}

// init makes the cookie jar, at the first request; cookiejar.New fails
// only on options, and takes none here.
func (c *Client) init() { c.jar, _ = cookiejar.New(nil) }
