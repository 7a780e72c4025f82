package httpx

import "net/http"

// Cookie returns the request cookie called name, or http.ErrNoCookie.
// Cookies are parsed as net/http parses them: malformed pairs (a name
// that is not a token, a value with a byte RFC 6265 forbids) are
// skipped, and a value in double quotes is unquoted.
func (r *Request) Cookie(name string) (*http.Cookie, error) {
	return r.live().raw.Cookie(name)
}

// Cookies are all the request's well-formed cookies, in the order they
// were sent; the slice is new on every call.
func (r *Request) Cookies() []*http.Cookie { return r.live().raw.Cookies() }

// SetCookie adds a Set-Cookie header for c, as net/http's SetCookie
// does, and so with its rules for a cookie it cannot send as given: a nil
// cookie or one whose name is not a token adds nothing, bytes a value or
// path may not hold are dropped, an invalid domain is left out (the last
// two logged by net/http through the standard log package). Check
// c.Valid first to refuse such a cookie yourself. Like every header, it
// must be set before the reply is sent.
func (rp *Reply) SetCookie(c *http.Cookie) *Reply {
	http.SetCookie(rp.live().w, c)
	return rp
}
