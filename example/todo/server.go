package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// maxBody bounds a request body in the todos context. The largest valid
// body, a batch of 50 todos whose 200-character titles are written as
// JSON escapes of characters outside the BMP (12 bytes a character), is
// about 120 KB; anything longer is not a todo request.
const maxBody = 256 << 10

// newServer assembles the service: GET /healthz at the root, the
// database as a service of the root (plugin "db"), and the todos plugin,
// guarded by bearer-auth (plugin "auth") in its own context. users are
// added to the database first, so each keeps its todos in a database
// file from one run to the next.
//
// t guards it (rate limits, readiness checks; nil guards nothing). With
// an admin listener (t.checks), GET /healthz is served there instead.
func newServer(ctx context.Context, db *sql.DB, users []user, t *traffic, opts ...app.Option) (*app.Server, error) {
	if t == nil {
		t = &traffic{}
	}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.name
	}
	ids, err := addUsers(ctx, db, names)
	if err != nil {
		return nil, err
	}
	s := app.New(opts...)
	if t.checks == nil {
		app.Get(s, "/healthz", health)
	}
	s.Register(t.guardRoot(db, t.checks == nil))
	// GET /openapi.json, /openapi-3.0.json and /docs, without a token: the
	// document of every route, bearer's requirement on the todos.
	s.Register(openapi.Plugin(apiInfo))
	s.Register(dbPlugin(db))
	s.Register(todosPlugin(users, ids, t), app.Name("todos"), app.DependsOn("db"))
	return s, nil
}

// apiInfo heads the service's OpenAPI document.
var apiInfo = openapi.Info{Title: "Todos", Version: "1.0.0",
	Description: "A todo list per user, behind a bearer token (see -users)."}

// printOpenAPI writes the OpenAPI document of s, once Ready, to w: what
// GET /openapi.json serves.
func printOpenAPI(w io.Writer, s *app.Server) error {
	doc, err := openapi.Build(s.Routes(), apiInfo)
	if err != nil {
		return err
	}
	_, err = w.Write(doc.JSON())
	return err
}

// status is GET /healthz's answer.
type status struct {
	Status string `json:"status"`
}

// health answers GET /healthz, the one route without a token.
func health(context.Context, struct{}) (status, error) { return status{Status: "ok"}, nil }

// dbPlugin provides the database to the context that registers it and
// its descendants: the *sql.DB as a service, and a transaction per
// request that asks for one. It is wrapped, so what it provides is
// visible beside it.
func dbPlugin(db *sql.DB) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Decorate(db); err != nil {
			return err
		}
		if err := s.Decorate(dialect(postgres(db))); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(beginTx))
	}, app.Name("db"))
}

// dialect is true on PostgreSQL: a service, so that the store's
// statements are written for the database once, at start-up.
type dialect bool

// txIn is what beginning a request's transaction takes.
type txIn struct {
	app.In
	Req *httpx.Request
	DB  *sql.DB
}

// beginTx is the request's transaction, begun the first time the request
// needs it (a request refused before its handler begins none). Its
// cleanup commits when the request succeeded and rolls back otherwise:
// the handler returned an error (a title conflict halfway through a
// batch), panicked, or answered 400 or more. The cleanup runs before the
// reply is written, so a commit that fails answers 500 instead of a
// success that did not happen.
//
// GET and HEAD begin a read-only (deferred) transaction: on a database
// file in WAL mode it takes no write lock and does not wait for writers.
// Other methods begin IMMEDIATE (the pool's _txlock), taking the write
// lock at once, so two writers queue instead of failing on an upgrade.
func beginTx(ctx context.Context, in txIn) (*sql.Tx, func(failed bool) error, error) {
	readOnly := in.Req.Method() == http.MethodGet || in.Req.Method() == http.MethodHead
	tx, err := in.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("beginning the request's transaction: %w", err)
	}
	return tx, func(failed bool) error {
		if failed {
			return tx.Rollback()
		}
		return tx.Commit()
	}, nil
}

// identityName is the request decorator bearer-auth fills with the
// index of the token that matched.
const identityName = "identity"

// userIDs maps the index of a matched token (the order of the tokens
// given to bearer.Keys) to its user's row id.
type userIDs []int64

// userID is the row id of the request's authenticated user: a request
// value, built from bearer-auth's identity.
type userID int64

// identity is what finding the request's user takes: the request
// decorator bearer-auth fills, and the users' row ids.
type identity struct {
	app.In
	Identity bearer.Identity `name:"identity"`
	IDs      userIDs
}

// currentUser is the user whose token the request carries.
func currentUser(_ context.Context, in identity) (userID, func(bool) error, error) {
	i := in.Identity.Index
	if !in.Identity.Authenticated || i < 0 || i >= len(in.IDs) {
		// Only a request that bearer-auth did not check could get here.
		return 0, nil, errors.New("the request has no authenticated user")
	}
	return userID(in.IDs[i]), nil, nil
}

// authPlugin guards the context that registers it: a request without the
// token of a configured user is answered 401 before any body is read.
// It is wrapped so its hook lands in that context, and provides there
// the request's user (userID).
func authPlugin(users []user, ids []int64) *app.Plugin {
	tokens := make([]string, len(users))
	for i, u := range users {
		tokens[i] = u.token
	}
	return app.Wrap(func(s *app.Server) error {
		if err := s.Register(bearer.Plugin(bearer.Keys(tokens...), bearer.ExposeIdentity(identityName))); err != nil {
			return err
		}
		if err := s.Decorate(userIDs(ids)); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(currentUser))
	}, app.Name("auth"))
}

// userTodosIn is what the request's todos take.
type userTodosIn struct {
	app.In
	Tx       *sql.Tx
	User     userID
	Postgres dialect
}

// userTodos is the request's user's todos, in the request's transaction:
// what every todo handler takes.
func userTodos(_ context.Context, in userTodosIn) (todos, func(bool) error, error) {
	return todos{q: in.Tx, user: int64(in.User), postgres: bool(in.Postgres)}, nil, nil
}

// todosPlugin serves the todo routes for the users it is given.
func todosPlugin(users []user, ids []int64, t *traffic) func(*app.Server) error {
	return func(s *app.Server) error {
		s.Register(authPlugin(users, ids))
		s.Register(t.guardUsers()) // after authentication: the per-user limit
		s.ProvideRequest(app.Provider(userTodos))
		s.SetBodyLimit(maxBody)
		s.SetErrorHandler(app.Typed(storeErrors))
		app.Get(s, "/todos", list)
		conflict := app.Responds(http.StatusConflict, httpx.ErrorBody{}) // storeErrors' answer to a title in use
		app.Post(s, "/todos", create, conflict)
		app.Post(s, "/todos/batch", batch, app.Status(http.StatusCreated), conflict)
		app.Get(s, "/todos/:id", get)
		app.Patch(s, "/todos/:id", patch, conflict)
		return app.Delete(s, "/todos/:id", remove)
	}
}

// storeErrors answers the store's refusals: a todo that is not the
// caller's is 404, a title already used 409. Other errors go on to the
// default handler (a 500 that is logged).
func storeErrors(rep *httpx.Reply, err error) error {
	var he *httpx.Error
	switch {
	case errors.Is(err, errNotFound):
		he = &httpx.Error{StatusCode: http.StatusNotFound, Code: "TODO_NOT_FOUND", Message: err.Error(), Err: err}
	case errors.Is(err, errConflict):
		he = &httpx.Error{StatusCode: http.StatusConflict, Code: "TODO_TITLE_CONFLICT", Message: err.Error(), Err: err}
	default:
		return err
	}
	return rep.SendError(he) // in the server's error format, as the default handler's
}
