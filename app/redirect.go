package app

import (
	"errors"
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Redirect is the Out of a route that sends the client to another
// address: it answers with no body, Location as the Location header, and
// the route's redirect status, 303 See Other unless the route option
// [Status] gives 301, 302, 307 or 308. A route's description lists that
// status with its Location header, and no other success.
//
//	app.Post(s, "/login", logIn) // 303: the browser GETs Location
//	app.Get(s, "/old/:id", moved, app.Status(http.StatusPermanentRedirect)) // 308: for good
//
// Location is a path of this site, with its query and fragment if any:
// "/todos?page=2"; a byte outside ASCII is sent percent-encoded, as a
// URI holds it ("/tags/café" goes as "/tags/caf%C3%A9"). A path is what
// a redirect after a form post wants, and it keeps a Location built from
// the request (a ?next= parameter) from sending the client to another
// site, an open redirect. External lets Location also be an absolute
// http or https URL, to another site (an identity provider's log-in
// page). Anything else fails the reply — a relative path ("edit",
// "../list"), which would resolve against an address the client sees
// and a proxy may have changed; a path that begins "//" or "/\", which a
// browser reads as another host; another scheme; text that does not
// parse as a URL; a control character (CR, LF: header injection) — and
// the route answers 500, logging an error that wraps [ErrInvalidRedirect].
type Redirect struct {
	Location string
	// External allows an absolute http or https URL as Location.
	External bool
}

// ErrInvalidRedirect is matched by the error of a route whose Redirect
// has a Location it cannot send.
var ErrInvalidRedirect = errors.New("invalid redirect")

// defaultRedirect is the status of a Redirect on a route without Status:
// See Other, which makes every client follow with a GET, so that a
// form's POST is never sent again.
const defaultRedirect = http.StatusSeeOther

// redirectStatus reports whether code is a status a Redirect answers with.
func redirectStatus(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func (r Redirect) reply(rep *httpx.Reply, status int) error {
	if err := r.check(); err != nil {
		return err
	}
	if status == 0 {
		status = defaultRedirect
	}
	h := rep.Header()
	h.Set("Location", asciiLocation(r.Location))
	err := rep.Code(status).Send(nil)
	if err != nil && !rep.Sent() {
		h.Del("Location") // the error reply sends the client nowhere
	}
	return err
}

// asciiLocation is loc with every byte outside ASCII percent-encoded: a
// Location is a URI (RFC 9110 §10.2.2), which is ASCII, and a client
// reading raw UTF-8 in a header may take it for Latin-1.
func asciiLocation(loc string) string {
	i := 0
	for i < len(loc) && loc[i] < utf8.RuneSelf {
		i++
	}
	if i == len(loc) {
		return loc
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, i, len(loc)+16)
	copy(b, loc)
	for ; i < len(loc); i++ {
		if c := loc[i]; c >= utf8.RuneSelf {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// check refuses a Location the reply cannot send.
func (r Redirect) check() error {
	loc := r.Location
	if loc == "" {
		return errkind.New(ErrInvalidRedirect, "the redirect has no location")
	}
	for i := range len(loc) {
		if c := loc[i]; c < 0x20 || c == 0x7f {
			return errkind.New(ErrInvalidRedirect, "the redirect location %q holds a control character", loc)
		}
	}
	u, err := url.Parse(loc)
	if err != nil {
		return errkind.New(ErrInvalidRedirect, "the redirect location %q is not a URL: %w", loc, err)
	}
	switch {
	case loc[0] == '/' && (len(loc) == 1 || (loc[1] != '/' && loc[1] != '\\')):
		return nil // a path of this site
	case !r.External:
		return errkind.New(ErrInvalidRedirect, "the redirect location %q is not a path of this site (one that begins with a single /): set External to send the client to an absolute URL", loc)
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
		return nil
	}
	return errkind.New(ErrInvalidRedirect, "the redirect location %q is neither a path of this site nor an absolute http or https URL", loc)
}
