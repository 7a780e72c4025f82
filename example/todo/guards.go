package main

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/auth"
	"github.com/burrow-go/burrow/plugins/session"
)

// apiPolicies are what Ready proves of every route of the API context
// (POST and DELETE /session, the todos): each requires authentication
// but the two of /session, marked public; and each that a cookie can
// authenticate refuses cross-site requests. The third proof, that the
// per-user rate limit runs after the hook that finds the user, is
// Burrow's own check of the hooks' order, always on.
func apiPolicies() []app.Policy {
	return []app.Policy{app.RequireAuth(), app.RequireCSRF()}
}

// guardPlugin guards the todos: the first credential the request
// carries decides, among the bearer token of a configured user and the
// session cookie POST /session sets (auth.AnyOf). A wrong token is
// refused even with a live session beside it; a request with neither is
// answered as bearer-auth answers a missing token; an unsafe request the
// cookie authenticates is refused when another site sent it. Whichever
// way, the request's user is one request value, userID.
func guardPlugin(a *accounts, sessions session.Store, ways ...auth.Method[userID]) *app.Plugin {
	tokens := make([]string, len(a.users))
	for i, u := range a.users {
		tokens[i] = u.token
	}
	ways = append(ways,
		bearer.Method(a.byKey, bearer.Keys(tokens...)),
		session.Method(sessions, a.bySession, session.Cookie(sessionCookie)))
	return auth.AnyOf(ways...)
}

// byKey is the user whose token matched.
func (a *accounts) byKey(id bearer.Identity) (userID, error) {
	return userID(a.ids[id.Index]), nil
}

// bySession is the user of a live session: one still configured, with
// the token they logged in with.
func (a *accounts) bySession(acc account, live bool) (userID, error) {
	i, known := a.find(acc)
	if !live || !known {
		return 0, errSessionEnded
	}
	return userID(a.ids[i]), nil
}

// errSessionEnded answers a session cookie that names no live session:
// changed, logged out, expired, or of a user whose token changed.
var errSessionEnded = httpx.NewError(http.StatusUnauthorized, "TODO_SESSION_ENDED", "the session has ended: log in again")
