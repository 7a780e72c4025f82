package oidctest

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// User and Password log in on the provider's log-in page: a user of its
// example storage, whose ID tokens have the sub "id2" and, for a web
// client, the preferred_username "test-user2".
const (
	User     = "test-user2"
	Password = "verysecure"
)

// authRequestID is the hidden field of the log-in form naming the
// authorization request.
var authRequestID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// LogIn plays the browser at the provider: from authURL (where an
// application's log-in sent the browser) it follows the provider's
// redirects to its log-in page, logs in as User, and follows on until
// the provider sends the browser elsewhere; it returns that URL (the
// application's redirect URI with code and state), not visited. client
// must keep cookies and follow no redirect.
func LogIn(tb testing.TB, client *http.Client, authURL string) string {
	tb.Helper()
	target, page := authURL, ""
	for i := 0; ; i++ {
		next, body := fetch(tb, client, "GET", target, nil)
		if next == "" {
			page = body
			break
		}
		if i == 10 {
			tb.Fatalf("oidctest: no log-in page on the way from %s", authURL)
		}
		target = next
	}
	m := authRequestID.FindStringSubmatch(page)
	if m == nil {
		tb.Fatalf("oidctest: the provider's log-in page has no request id: %s", page)
	}
	form := url.Values{"id": {m[1]}, "username": {User}, "password": {Password}}
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	post, _ := u.Parse("/login/username")
	next, body := fetch(tb, client, "POST", post.String(), form)
	for range 10 {
		if next == "" {
			tb.Fatalf("oidctest: the log-in was not accepted: %s", body)
		}
		n, err := url.Parse(next)
		if err != nil {
			tb.Fatal(err)
		}
		if n.Host != u.Host {
			return next
		}
		next, body = fetch(tb, client, "GET", next, nil)
	}
	tb.Fatalf("oidctest: the provider never sent the browser back")
	return ""
}

// fetch sends one request and returns where a redirect points (resolved
// against target; "" for an answer that is no redirect) and the body.
func fetch(tb testing.TB, client *http.Client, method, target string, form url.Values) (string, string) {
	tb.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		tb.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode/100 != 3 {
		return "", string(b)
	}
	loc, err := res.Location()
	if err != nil {
		tb.Fatalf("oidctest: a %d without a Location: %v", res.StatusCode, err)
	}
	return loc.String(), string(b)
}
