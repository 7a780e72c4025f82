package main

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/example/todo/ui"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/idempotency"
	"github.com/burrow-go/burrow/plugins/pubsub"
	"github.com/burrow-go/burrow/plugins/session"
	"github.com/burrow-go/burrow/plugins/sqldb"
	"github.com/burrow-go/burrow/plugins/static"
)

// maxBody bounds a request body in the todos context. The largest valid
// body, a batch of 50 todos whose 200-character titles are written as
// JSON escapes of characters outside the BMP (12 bytes a character), is
// about 120 KB; anything longer is not a todo request.
const maxBody = 256 << 10

// setup is what the service is assembled from, besides its database:
// what the flags and the environment say.
type setup struct {
	users []user
	// origins are the web origins allowed to call the API from their
	// pages (-cors-origins); none: no CORS at all.
	origins []string
	// sessions keeps the browsers' sessions: Redis (-redis) or the
	// process's memory.
	sessions session.Store
	// traffic guards the service: rate limits, readiness checks (nil:
	// none). With an admin listener, GET /healthz is served there.
	traffic *traffic
	// obs observes every request: metrics, traces (nil: none).
	obs *observability
	// oidc is log-in through an identity provider (zero: none).
	oidc oidcConfig
	// keys keeps the Idempotency-Key records (newServer sets it, for
	// the database).
	keys idempotency.Store
	// bus carries the changes to the live routes: through Redis
	// (-redis) to every instance, or this one's only (nil).
	bus *pubsub.Bus
	// requireIfMatch makes PATCH and DELETE /todos/:id answer 428
	// without If-Match (-require-if-match).
	requireIfMatch bool
}

// newServer assembles the service. At the root: the edge (security
// headers, compression, CORS), the browser page (plugin "static"),
// GET /healthz, the OpenAPI description and the database as a service
// (plugin "db"). Below it the API context (plugin "api"): sessions,
// CSRF, POST and DELETE /session, and the todos plugin, whose routes
// take a bearer token or a session cookie (auth.AnyOf). users are
// added to the database first, so each keeps its todos in a database
// file from one run to the next.
func newServer(ctx context.Context, db *sql.DB, st setup, opts ...app.Option) (*app.Server, error) {
	names := make([]string, len(st.users))
	for i, u := range st.users {
		names[i] = u.name
	}
	ids, err := addUsers(ctx, db, names)
	if err != nil {
		return nil, err
	}
	if st.sessions == nil {
		st.sessions = session.NewMemoryStore()
	}
	if st.traffic == nil {
		st.traffic = &traffic{}
	}
	if st.bus == nil {
		st.bus = pubsub.New()
	}
	s := app.New(opts...)
	if st.obs != nil {
		s.Register(st.obs.plugin())
	}
	s.Register(st.traffic.guardRoot(db, ui.FS()))
	s.Register(edgePlugin(st.origins))
	// The page: / and its assets, and the shell for a browser navigation
	// to any other path outside the API.
	s.Register(static.Plugin(ui.FS(), static.Fallback("index.html")))
	if st.traffic.checks == nil {
		app.Get(s, "/healthz", health)
	}
	// GET /openapi.json, /openapi-3.2.json, /openapi-3.0.json and /docs,
	// without a token: the document of every route, bearer's requirement
	// on the todos.
	s.Register(openapi.Plugin(apiInfo))
	s.Register(livePlugin(st.bus))
	s.Register(dbPlugin(db, st.obs))
	st.keys = idempotency.SQL(keysDialect(db))
	s.Register(apiPlugin(st, ids), app.Name("api"), app.DependsOn("db"))
	return s, nil
}

// apiInfo heads the service's OpenAPI document.
var apiInfo = openapi.Info{Title: "Todos", Version: "1.0.0",
	Description: "A todo list per user, behind a bearer token (see -users) or the session cookie that POST /session sets (the browser page's way)."}

// printOpenAPI writes the OpenAPI document of s, once Ready, to w, in
// the rendition version ("3.1", "3.2" or "3.0"): what GET /openapi.json,
// /openapi-3.2.json or /openapi-3.0.json serves.
func printOpenAPI(w io.Writer, s *app.Server, version string) error {
	doc, err := openapi.Build(s.Routes(), apiInfo)
	if err != nil {
		return err
	}
	out := doc.JSON()
	switch version {
	case "3.2":
		out = doc.JSON32()
	case "3.0":
		out = doc.JSON30()
	}
	_, err = w.Write(out)
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
// request that asks for one (plugins/sqldb), committed when the request
// succeeds and rolled back otherwise — a title conflict halfway through a
// batch, a panic, a 400 or more, a client gone. GET and HEAD begin a
// read-only (deferred) transaction: on a database file in WAL mode it
// takes no write lock and does not wait for writers; other methods begin
// IMMEDIATE (the pool's _txlock), so two writers queue instead of failing
// on an upgrade. It is wrapped, so what it provides is visible beside it.
// The pool stays the caller's to close (run closes it after the server).
//
// With tracing on, each transaction is a span of its request's trace,
// and the pool's connections are OpenTelemetry metrics.
func dbPlugin(db *sql.DB, obs *observability) *app.Plugin {
	opts := []sqldb.Option{sqldb.TxOptions(sqldb.ReadOnlyReads), sqldb.KeepOpen()}
	if obs != nil && obs.tracing {
		opts = append(opts, sqldb.Tracing(otel.GetTracerProvider()), sqldb.Metrics(otel.GetMeterProvider(), "todo"))
	}
	return app.Wrap(func(s *app.Server) error {
		if err := s.Register(sqldb.Plugin(db, opts...)); err != nil {
			return err
		}
		return s.Decorate(dialect(postgres(db)))
	}, app.Name("db"))
}

// dialect is true on PostgreSQL: a service, so that the store's
// statements are written for the database once, at start-up.
type dialect bool

// userTodosIn is what the request's todos take.
type userTodosIn struct {
	app.In
	Tx       *sql.Tx
	User     userID
	Postgres dialect
	Changes  *changes
}

// userTodos is the request's user's todos, in the request's transaction:
// what every todo handler takes.
func userTodos(_ context.Context, in userTodosIn) (todos, func(bool) error, error) {
	return todos{q: in.Tx, user: int64(in.User), postgres: bool(in.Postgres), changes: in.Changes}, nil, nil
}

// todosPlugin serves the todo routes, to a request that authenticates
// (guardPlugin).
func todosPlugin(auth *app.Plugin, t *traffic, keys idempotency.Store, requireIfMatch bool) func(*app.Server) error {
	return func(s *app.Server) error {
		s.Register(auth)
		s.Register(t.guardUsers()) // after authentication: the per-user limit
		s.AddHook(app.OnRequest, collectChanges)
		// Idempotency-Key on the creations, a user's keys apart from
		// another's, recorded in the request's transaction.
		s.Register(idempotency.Plugin(keys, idempotency.IdentityOf(keyOwner)))
		s.ProvideRequest(app.Provider(userTodos))
		s.SetBodyLimit(maxBody)
		s.SetErrorHandler(storeErrors)
		app.Get(s, "/todos", list, readCaching()...)
		conflict := app.Responds(http.StatusConflict, httpx.ErrorBody{}) // storeErrors' answer to a title in use
		app.Post(s, "/todos", create, conflict, idempotency.Route())
		app.Post(s, "/todos/batch", batch, app.Status(http.StatusCreated), conflict, idempotency.Route())
		importRoute(s, conflict)
		app.Get(s, "/todos/:id", get, readCaching()...)
		app.Patch(s, "/todos/:id", patch, writeCaching(requireIfMatch, conflict)...)
		app.Delete(s, "/todos/:id", remove, writeCaching(requireIfMatch)...)
		return liveRoutes(s)
	}
}

// keyOwner is whose an Idempotency-Key is: the request's user.
func keyOwner(u userID) string { return strconv.FormatInt(int64(u), 10) }

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
