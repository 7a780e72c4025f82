package app

import (
	"net/http"
	"net/url"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/urlpath"
)

// requestPath is the path r is routed on, and whether it is still
// escaped (see routingPath): Router.Lookup takes the first kind,
// Router.LookupEscaped the second. When r cannot be routed at all — a query
// over the parameter limit, a malformed escape in the path — it answers
// 400 itself, through x, and ok is false.
func (a *instance) requestPath(x *exchange, w http.ResponseWriter, r *http.Request) (path string, escaped, ok bool) {
	if tooManyQueryParams(r.URL.RawQuery) {
		a.writeJSON(x, w, r, http.StatusBadRequest, a.cfg.errors.Render(errTooManyQueryParams, r))
		return "", false, false
	}
	path, escaped, ok = routingPath(r.URL)
	if !ok {
		a.writeJSON(x, w, r, http.StatusBadRequest, a.cfg.errors.Render(httpx.ErrorBody{
			StatusCode: http.StatusBadRequest, Code: "FST_ERR_BAD_URL",
			Error: http.StatusText(http.StatusBadRequest), Message: "'" + path + "' is not a valid url component",
		}, r))
	}
	return path, escaped, ok
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
