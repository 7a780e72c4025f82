package app

import (
	"net/http"
	"net/url"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/urlpath"
)

// lookup finds the route that serves r, filling ps with its parameters.
// When no route may serve it, lookup answers itself (400 for a request
// target it cannot read, 405) and returns nil; an unknown path gets the
// not-found route of its prefix.
func (a *instance) lookup(w http.ResponseWriter, r *http.Request, ps *httpx.Params) *route {
	if tooManyQueryParams(r.URL.RawQuery) {
		writeJSON(w, http.StatusBadRequest, errTooManyQueryParams)
		return nil
	}
	path, escaped, valid := routingPath(r.URL)
	if !valid {
		writeJSON(w, http.StatusBadRequest, httpx.ErrorBody{
			StatusCode: http.StatusBadRequest, Code: "FST_ERR_BAD_URL",
			Error: http.StatusText(http.StatusBadRequest), Message: "'" + path + "' is not a valid url component",
		})
		return nil
	}
	var rt *route
	var allow string
	var match httpx.Match
	if escaped {
		rt, allow, match = a.router.LookupEscaped(r.Method, path, ps)
	} else {
		rt, allow, match = a.router.Lookup(r.Method, path, ps)
	}
	switch match {
	case httpx.Found:
		return rt
	case httpx.MethodNotAllowed:
		w.Header().Set("Allow", allow)
		body := methodNotAllowed
		body.Message = "Route " + r.Method + ":" + r.RequestURI + " not allowed"
		writeJSON(w, http.StatusMethodNotAllowed, body)
		return nil
	}
	return a.findNotFound(path, escaped)
}

// routingPath is the path a request is routed on, and whether it is still
// escaped. Burrow routes on each segment's decoded text, with an escaped
// slash (%2F) kept inside its segment rather than read as a separator.
//
// Without URL.RawPath, the client's escaping was the canonical one, so
// URL.Path (decoded) holds no slash that was sent as %2F and is matched as
// it is: the common case, and the fast one. Otherwise the router gets
// RawPath and decodes it segment by segment. A RawPath that is not an
// encoding of Path (a middleware rewrote Path and left it behind) is
// ignored, as url.URL.EscapedPath ignores it. valid is false for a
// malformed escape, which only a hand-built request can hold: net/http
// refuses one on the wire.
func routingPath(u *url.URL) (path string, escaped, valid bool) {
	raw := u.RawPath
	switch {
	case raw == "":
		return u.Path, false, true
	case !urlpath.Valid(raw):
		return raw, false, false
	case urlpath.Decodes(raw, u.Path):
		return raw, true, true
	}
	return u.Path, false, true
}
