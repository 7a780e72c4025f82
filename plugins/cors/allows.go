package cors

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
)

// Allows reports whether the CORS policy of r's route names the origin r
// comes from (its one Origin header): one of Origins, or one OriginPattern
// or OriginFunc accepts. It is false when r has no Origin, when the route
// has no policy (no plugin in its contexts, or Off), and for Origins("*"):
// a plugin admitting cross-site requests that CORS does not guard (a
// WebSocket handshake, which a browser sends with the user's cookies and
// no preflight) asks it, and "any origin" there would let every site act
// as the user.
func Allows(r *http.Request) bool {
	route, ok := app.RouteConfigOf[*Route](r)
	if !ok || route.pol == nil {
		return false
	}
	origin := r.Header[hOrigin]
	return len(origin) == 1 && route.pol.names(origin[0])
}
