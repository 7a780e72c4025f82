package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

// accounts are the configured users as the API authenticates them: by
// bearer token (a program) or by a session cookie (the browser page,
// after POST /session).
type accounts struct {
	users  []user
	ids    userIDs        // row id of users[i]
	byName map[string]int // index in users
	keys   [][sha256.Size]byte
	// signedIn[i] is signedIn(i), boxed once: setting the decorator
	// allocates nothing per request.
	signedIn []any
}

func newAccounts(users []user, ids []int64) *accounts {
	a := &accounts{users: users, ids: ids, byName: map[string]int{}}
	for i, u := range users {
		a.byName[u.name] = i
		a.keys = append(a.keys, sha256.Sum256([]byte(u.token)))
		a.signedIn = append(a.signedIn, signedIn(i))
	}
	return a
}

// account is what a session holds: the user, and a fingerprint of the
// token they logged in with, so that a session ends when the user's
// token changes (a restart with another -users).
type account struct {
	User string `json:"user"`
	Key  string `json:"key"`
}

// fingerprint is the account key of users[i]: 64 bits of the token's
// hash, which says nothing usable about the token.
func (a *accounts) fingerprint(i int) string { return hex.EncodeToString(a.keys[i][:8]) }

// login returns the index of the user name whose token is token, or
// false. The token is compared in constant time, and compared at all
// for an unknown name, so the time taken tells neither.
func (a *accounts) login(name, token string) (int, bool) {
	sum := sha256.Sum256([]byte(token))
	i, known := a.byName[name]
	want := [sha256.Size]byte{}
	if known {
		want = a.keys[i]
	}
	if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !known {
		return 0, false
	}
	return i, true
}

// find returns the index of a session's user, or false if the user is no
// longer configured or has another token since.
func (a *accounts) find(acc account) (int, bool) {
	i, ok := a.byName[acc.User]
	if !ok || subtle.ConstantTimeCompare([]byte(a.fingerprint(i)), []byte(acc.Key)) != 1 {
		return 0, false
	}
	return i, true
}

// Names of the request decorators that say who the request's user is:
// bearer-auth's, set for a matching token, and the session check's.
const (
	identityName = "identity"
	signedInName = "signedIn"
)

// signedIn is the index, in the configured users, of the user whose
// session cookie the request carries; -1 when it carries none.
type signedIn int

// userIDs maps the index of a user to its row id.
type userIDs []int64

// userID is the row id of the request's authenticated user: a request
// value, built from what authentication found.
type userID int64

// identity is what finding the request's user takes: the request
// decorators the auth hook fills, and the users' row ids.
type identity struct {
	app.In
	Bearer  bearer.Identity `name:"identity"`
	Session signedIn        `name:"signedIn"`
	IDs     userIDs
}

// currentUser is the user whose token or session the request carries.
func currentUser(_ context.Context, in identity) (userID, func(bool) error, error) {
	i := int(in.Session)
	if in.Bearer.Authenticated {
		i = in.Bearer.Index
	}
	if i < 0 || i >= len(in.IDs) {
		// Only a request that the auth hook did not check could get here.
		return 0, nil, errors.New("the request has no authenticated user")
	}
	return userID(in.IDs[i]), nil, nil
}

// authIn is what the auth hook takes.
type authIn struct {
	app.In
	Req     *httpx.Request
	Session *session.Session[account]
	Bearer  *bearer.Verifier
}

// errSessionEnded answers a session cookie that names no live session:
// changed, logged out, expired, or of a user whose token changed.
var errSessionEnded = httpx.NewError(http.StatusUnauthorized, "TODO_SESSION_ENDED", "the session has ended: log in again")

// bearerRefusal is bearer-auth's answer to a missing or wrong token.
type bearerRefusal struct {
	Error string `json:"error"`
}

// authenticate is the onRequest hook guarding the todos: a request with
// an authorization header is bearer-auth's to judge, and gets its
// answers; one without, but with the session cookie, passes if the
// session is live. Either way the user is known before any body is read.
func (a *accounts) authenticate(rep *httpx.Reply, in authIn) error {
	req := in.Req
	if _, ok := req.Raw().Header["Authorization"]; !ok && hasSessionCookie(req.Raw()) {
		acc, ok := in.Session.Get()
		i, known := a.find(acc)
		if !ok || !known {
			rep.Header()["Www-Authenticate"] = bearerChallenge
			return errSessionEnded
		}
		return req.SetDecorator(signedInName, a.signedIn[i])
	}
	if err := in.Bearer.Verify(req, rep); err != nil {
		return refuseBearer(rep, err)
	}
	return nil
}

// refuseBearer answers a request bearer-auth refused as its own hook
// does, in the body clients know; a failure of the server (err has a
// cause) goes to the error handler, a 500.
func refuseBearer(rep *httpx.Reply, err error) error {
	var refused *httpx.Error
	if !errors.As(err, &refused) || refused.Err != nil {
		return err
	}
	return rep.Code(refused.StatusCode).Send(bearerRefusal{Error: refused.Message})
}

// bearerChallenge is the WWW-Authenticate of a 401 (RFC 9110 §11.6.1).
var bearerChallenge = []string{"Bearer"}

// hasSessionCookie reports whether r carries the session cookie.
func hasSessionCookie(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	return err == nil && c.Value != ""
}

// authPlugin guards the context that registers it: a request without the
// token of a configured user, or the cookie of one's session, is
// answered 401 before any body is read. It is wrapped so its hook lands
// in that context, and provides there the request's user (userID).
func authPlugin(a *accounts) *app.Plugin {
	tokens := make([]string, len(a.users))
	for i, u := range a.users {
		tokens[i] = u.token
	}
	return app.Wrap(func(s *app.Server) error {
		// Manual: the hook below calls the verifier when the request has
		// no session to show.
		if err := s.Register(bearer.Plugin(bearer.Keys(tokens...), bearer.ExposeIdentity(identityName), bearer.Manual())); err != nil {
			return err
		}
		// The routes need a token; the session cookie is the browser
		// page's way of showing one.
		if err := s.DeclareSecurity(app.SecurityScheme{Name: bearer.SchemeName, Type: "http", Scheme: "bearer"}); err != nil {
			return err
		}
		if err := s.DecorateRequest(signedInName, signedIn(-1)); err != nil {
			return err
		}
		if err := s.Decorate(a.ids); err != nil {
			return err
		}
		if err := s.ProvideRequest(app.Provider(currentUser)); err != nil {
			return err
		}
		return s.AddHook(app.OnRequest, a.authenticate, app.SetsDecorators(signedInName))
	}, app.Name("auth"))
}
