package main

import (
	"context"
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/session"
)

// sessionCookie is the name of the cookie that carries a browser's
// session: a random token naming the session in the store, never the
// user's bearer token.
const sessionCookie = "todo_session"

// maxLoginBody bounds a POST /session body: a user name and a token.
const maxLoginBody = 8 << 10

// loginIn is what POST /session takes: the credentials, as a form
// (application/x-www-form-urlencoded, what the page sends) or as the
// same values in a JSON object, and the request's session.
type loginIn struct {
	app.In
	User    string `form:"user" validate:"required,max=200"`
	Token   string `form:"token" validate:"required,max=1000"`
	Session *session.Session[account]
}

type logoutIn struct {
	app.In
	Session *session.Session[account]
}

// errLogin answers credentials that name no user, or a wrong token: the
// same answer for both, so that it does not say which users exist.
var errLogin = httpx.NewError(http.StatusUnauthorized, "TODO_LOGIN_FAILED", "unknown user or wrong token")

// logIn starts a session for the user whose token the body holds: a new
// session token (Regenerate), so that a token planted in the browser
// before cannot follow the user in.
func (a *accounts) logIn(_ context.Context, in loginIn) (app.NoContent, error) {
	i, ok := a.login(in.User, in.Token)
	if !ok {
		return app.NoContent{}, errLogin
	}
	in.Session.Regenerate()
	in.Session.Set(account{User: a.users[i].name, Key: a.fingerprint(i)})
	return app.NoContent{}, nil
}

// logOut ends the request's session, if it has one: the store forgets
// it and the cookie is cleared.
func logOut(_ context.Context, in logoutIn) (app.NoContent, error) {
	in.Session.Destroy()
	return app.NoContent{}, nil
}

// sessionPlugin serves POST and DELETE /session.
func sessionPlugin(a *accounts) func(*app.Server) error {
	return func(s *app.Server) error {
		s.SetBodyLimit(maxLoginBody)
		app.Post(s, "/session", a.logIn, app.Public(),
			app.Responds(http.StatusUnauthorized, httpx.ErrorBody{}),
			app.Summary("Log in: start a browser session (cookie todo_session)"),
			app.Description("The body is JSON or a form (application/x-www-form-urlencoded) with the same fields."))
		return app.Delete(s, "/session", logOut, app.Public(), app.Summary("Log out: end the browser session"))
	}
}
