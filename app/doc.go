// Package app is the Burrow server: contexts, plugins, routes, typed
// input, services and request values, hooks. Each section below shows the
// code first; the rules are in the doc comments of the functions named, and
// the guides by task are in the repository's docs/ directory.
//
// # Encapsulation
//
// [New] makes the root context. [Server.Register] records a plugin, a
// func(*Server) error, which gets a child context when it loads. What a
// context declares — request decorators, services, request values, hooks,
// middleware, routes, plugins, the error handler — is visible to it and
// its descendants only; a sibling never sees it. A plugin made with [Wrap]
// gets no context: it declares into the one that registers it.
//
//	type values struct {
//		app.In
//		Answer int    `name:"answer"`
//		Foo    string `name:"foo"` // required: Ready fails where it is invisible
//	}
//	reply := func(_ context.Context, v values) (string, error) { return v.Foo, nil }
//
//	s := app.New()
//	s.DecorateRequest("answer", 42) // the root's: visible everywhere
//	s.Register(func(s *app.Server) error {
//		return app.Get(s, "/one", reply) // cannot see foo
//	}, app.Name("authenticatedContext"))
//	s.Register(func(s *app.Server) error {
//		s.DecorateRequest("foo", "foo") // visible here and below
//		return app.Get(s, "/two", reply)
//	}, app.Name("publicContext"))
//
//	err := s.Ready()
//	// route GET /one (root > authenticatedContext) needs request decorator
//	// "foo", which is only provided in sibling context root > publicContext
//	errors.Is(err, scope.ErrNotVisible) // true
//
// Every dependency is resolved at [Server.Ready], through the route's
// context; after it, no request touches dig.
//
// # Handlers
//
// A route's handler is a typed function, func(context.Context, In) (Out,
// error), registered with [Get], [Post], [Put], [Patch], [Delete],
// [QueryRoute] (the QUERY method: a safe read whose question is its body)
// or [Handle]. Go instantiates the call where it is written, so Burrow calls
// it directly.
//
//	type todo struct {
//		ID    int64  `json:"id"`
//		Title string `json:"title"`
//	}
//	type byID struct {
//		app.In
//		ID int64 `path:"id" validate:"min=1"`
//	}
//	app.Get(s, "/todos/:id", func(ctx context.Context, in byID) (todo, error) {
//		return todo{ID: in.ID}, nil // 200, as JSON
//	})
//	app.Delete(s, "/todos/:id", func(ctx context.Context, in byID) (app.NoContent, error) {
//		return app.NoContent{}, nil // 204
//	})
//	app.Put(s, "/jobs/:id", putJob, app.Status(202))
//
// Out is sent with 200, or as [Status], [NoContent], [Created] or
// [Redirect] say; an error goes to the error handler. The flexible form, [Server.Get] and
// [Server.Route], takes any function whose parameters Burrow can supply; it
// is for handlers that write the reply themselves (streams), hooks and
// http.Handler routes:
//
//	s.Get("/plain", func(rep *httpx.Reply) error { return rep.Send("text") })
//
// A stream that needs more than the reply is a typed route whose input
// struct has a *httpx.Reply field; its result is not sent once the
// handler has answered. ([Typed] and [TypedValue] are deprecated.)
//
// The *httpx.Request and *httpx.Reply belong to their request: once the
// handler and its hooks return, every method of them panics. A goroutine
// that outlives the handler takes what it needs first.
//
// After Ready, [Server.Routes] describes each route ([RouteInfo]): its
// input, its replies (from the signature, [Responds] and [RespondsAs]), its metadata
// ([OperationID], [Summary], [Tags]) and the security schemes its context
// sees ([Server.DeclareSecurity]). Package app/openapi makes an OpenAPI
// document of it.
//
// # Input
//
// The input struct embeds [In]; each field's tag says where its value
// comes from. Burrow checks every field at Ready and fills the struct per
// request from a pool.
//
//	type search struct {
//		app.In
//		Org   string   `path:"org"`
//		Limit int      `query:"limit" default:"20" validate:"min=1,max=100"`
//		Tags  []string `query:"tag"` // repeated keys
//		Trace string   `header:"X-Trace-Id"`
//		Sid   string   `cookie:"sid"`
//		Body  filter   `body:""` // decoded (JSON by default) and validated
//		User  *User    `name:"user"` // a request decorator
//		Store *Store   // a service or request value, by type
//	}
//
// Rules are struct tags, on the body's type and on path, query, header and
// cookie fields:
//
//	validate:"required,min=1,max=64,len=8,enum=a|b,format=email"
//	pattern:"^[a-z]+$"
//
// A URL others will see as a link or an image takes format=weblink (http
// or https, with a host), not format=uri, which is JSON Schema's and takes
// any scheme, javascript: included.
//
// A value that does not convert or breaks a rule is a 400 listing every
// failing field (the first 100), and the handler does not run. The body is
// read only for routes that take one, after the OnRequest and PreParsing
// hooks, up to [WithMaxBodyBytes] (1 MiB; [Server.SetBodyLimit],
// [BodyLimit]); beyond it, a 413. [Server.AddContentTypeParser] adds media
// types. [Body], [Query] and [Params] carry the same input as parameters of
// a flexible handler. [Validate] applies the same rules, with the same
// 400, to any other value: a row of an uploaded file, a queued message.
//
// In structs compose: a field tagged with a source and no name (query:"",
// header:"", path:"", cookie:"") is a group read from that source, and an
// embedded struct of tagged fields is flattened, as encoding/json
// flattens one; both are planned at Ready as a flat struct is. A body
// field's own rules apply to the body itself (a 400 naming body):
//
//	type page struct {
//		Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
//		Offset int `query:"offset"`
//	}
//	type batch struct {
//		app.In
//		Page page      `query:""` // or embed page
//		Body []newTodo `body:"" validate:"required,min=1,max=50"`
//	}
//
// # Forms and uploads
//
// In struct fields tagged form:"name" read a form body — urlencoded or
// multipart/form-data — with the query's decoding, defaults and rules;
// their errors are under body/name, and form:"" makes a group. The same
// values may come as an application/json object (a number or a boolean
// as its text, an array as a repeated name), so one route serves a
// browser's form and a program's JSON. A field of type *[File] takes a
// file part (nil when absent), []*File every part of its name; a route
// with one takes multipart bodies only. An In struct cannot have form
// fields and a body field at once: Ready says so. Any other media type
// is a 415. A multipart body is read as a
// stream, part by part, after the OnRequest and PreParsing hooks, within
// the body limit and [MultipartLimits] ([Server.SetMultipartLimits],
// [WithMultipartLimits]: 1 MiB a file, 64 KiB a value, 1000 parts):
// past one, a 413, and nothing more is read. Files are kept in memory
// up to 1 MiB a request, in temporary files past it, which are removed
// when the request ends, however it ends:
//
//	type importTodos struct {
//		app.In
//		File *app.File `form:"file" validate:"required"`
//	}
//	app.Post(s, "/todos/import", func(ctx context.Context, in importTodos) (created, error) { … in.File.Open() … })
//
// # Services and request values
//
// A service is one value shared by every request: [Server.Decorate] with
// a value or a dig constructor. A request decorator is a named value every
// request starts with, which a hook may replace for its request. A request
// value is built by a constructor at most once per request that needs it,
// and cleaned up when the request ends:
//
//	s.Decorate(db) // *sql.DB
//	s.DecorateRequest("user", "")
//	type txIn struct {
//		app.In
//		DB *sql.DB
//	}
//	s.ProvideRequest(app.Provider(func(ctx context.Context, in txIn) (*sql.Tx, func(failed bool) error, error) {
//		tx, err := in.DB.BeginTx(ctx, nil)
//		if err != nil {
//			return nil, nil, err
//		}
//		return tx, func(failed bool) error {
//			if failed {
//				return tx.Rollback()
//			}
//			return tx.Commit() // a failure answers 500
//		}, nil
//	}))
//	type create struct {
//		app.In
//		Tx   *sql.Tx
//		User string `name:"user"`
//	}
//
// All three are taken by type (or name), checked at Ready and encapsulated.
// [As] provides one as an interface too; [HasService], [HasRequestValue]
// and [Server.HasDecorator] ask what a context sees.
//
// # Plugins
//
// A plugin meant to be shared says what it needs, so that Ready refuses to
// start, with a sentence, when its needs are not met:
//
//	func Plugin() *app.Plugin {
//		return app.Wrap(func(s *app.Server) error {
//			return s.AddHook(app.OnResponse, audit)
//		},
//			app.Name("audit"),
//			app.DependsOn("session"),       // registered before it, here or above
//			app.NeedsDecorators("user"),    // visible where it is registered
//			app.NeedsService[*sql.DB](),    // services, by type
//			app.Supports(">=0.6.0 <1.0.0"), // Burrow versions
//		)
//	}
//
//	s.Register(Plugin())
//	s.Register(api, app.Name("api"), app.Prefix("/v1"))
//
// [Describe] takes the same options for a plugin with a context of its own.
// [Server.PrintPlugins], [Server.PrintRoutes], [Server.PrintVisibility]
// and [Server.DOT] show what Ready built.
//
// # Hooks
//
// Request hooks take the same parameters as handlers. They run ancestors
// first, then in the order of the calls in a context, route hooks
// ([WithHook]) last:
//
//	OnRequest → PreParsing → PreValidation → PreHandler → handler →
//	PreSerialization → OnSend → (write) → OnResponse
//
//	s.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
//		if req.Header("X-Key") == "" {
//			return rep.Code(401).Send(map[string]string{"error": "no key"}) // ends the chain
//		}
//		return nil
//	})
//	s.OnClose(func(ctx context.Context) error { return db.Close() })
//
// OnError sees every error before the error handler; OnTimeout and
// OnRequestAbort run beside the handler. Application hooks
// ([Server.OnRegister], [Server.OnRoute], [Server.OnReady],
// [Server.OnListen], [Server.PreClose], [Server.OnClose]) follow the
// server rather than a request.
//
// # Errors
//
// A handler returns an error; [httpx.NewError] and [httpx.Errorf] carry a
// status and a code, found through any wrapping. Any other error is a 500.
//
//	var errNotFound = httpx.NewError(404, "TODO_NOT_FOUND", "todo not found")
//	return todo{}, fmt.Errorf("todo %d: %w", id, errNotFound)
//	// 404 {"statusCode":404,"code":"TODO_NOT_FOUND","error":"Not Found","message":"todo not found"}
//
// [Server.SetErrorHandler] replaces a context's error handler; if it
// fails, its parent's gets the new error. A panic is a 500 whose value is
// never sent. A 5xx answering an error that is not an *httpx.Error says
// its status text, not its message, which was written for logs
// ([WithServerErrorText] sends it, for development).
// [WithProblemDetails] answers every error as RFC 9457 problem details;
// a middleware answers an error in the server's format with [WriteError].
//
// Start-up errors name their subject once and read as one sentence:
// sentinels ([ErrAlreadyStarted], [ErrMissingDependency], scope.ErrNotVisible,
// …) classify, for errors.Is, and the outermost error names what failed —
// a route ([RouteError]), a plugin ([PluginError]), a context, or an
// option as Go code ("bearer.Keys: empty key").
//
// # HTTP caching
//
// A route with [ETag] tags its 200 replies, with the reply's own tag
// ([Tagged]) or a hash of the body, and answers a GET whose
// If-None-Match holds the tag 304 Not Modified, with no body; with
// [CacheControl] its 200 and 304 say how long a cache keeps them.
//
//	app.Get(s, "/todos/:id", get, app.ETag(), app.CacheControl("private, no-cache"))
//
// An unsafe route takes the request's If-Match as [Preconditions], a
// header group of its input, and checks it against the resource's
// current tag ([TagOf]) before changing it: 412 when it changed since the
// client read it. [RequireIfMatch] answers 428 to a request without one.
// The route's description lists ETag, 304, 412 and 428 where they apply.
//
// # Lifecycle
//
//	s := app.New(
//		app.WithLogger(logger),
//		app.WithDrainDelay(2*time.Second),
//		app.WithRequestTimeout(30*time.Second),
//	)
//	// Until SIGTERM, then s.Close: readiness off, drain, PreClose,
//	// in-flight requests, OnClose; then admin's; then the database.
//	err := app.Run(ctx, app.Serving(s, ":8000"), app.Serving(admin, "127.0.0.1:9090"), app.Closing(db))
//	os.Exit(app.ExitCode(err))
//
// [Run] is a service's main loop around [Server.Serve] and
// [Server.Close]; package config loads the flags and variables it
// serves with. Registration only records; [Server.Ready] (called by [Server.Listen],
// [Server.ListenTLS], [Server.Serve] and [Server.Inject]) loads the plugins
// and compiles the routes, after which the tree is frozen. Time-outs for
// headers, bodies, replies and idle connections have safe defaults
// ([WithTimeouts], [WithBodyTimeout], [WithReplyTimeout]).
//
// # net/http
//
// The server is an http.Handler. [Server.Use] adds a standard middleware
// to a context, encapsulated as hooks are; [Server.Mount] serves a prefix
// with an http.Handler; a route's handler may be one.
//
//	s.Register(func(s *app.Server) error {
//		s.Use(cors)                                             // this context and below
//		s.Mount("/static", http.FileServer(http.Dir("public"))) // every method under /static
//		return s.Get("/vars", expvar.Handler())
//	})
//
// A middleware's *http.Request carries the route in Pattern
// ("GET /items/{id}") and the path parameters through PathValue.
// [httpx.Request.Raw] and [httpx.Reply.Raw] are net/http's request and
// writer.
//
// # Logging and observing
//
// Burrow logs with zap ([WithLogger]): each context through a child
// carrying its path, each request through one carrying its id as well,
// reqId ([WithRequestIDHeader] trusts a proxy's, within limits;
// [WithRequestIDResponseHeader] echoes it). [Server.Slog] and
// httpx.Request.Slog are the same loggers as *slog.Logger, and
// [WithSlogHandler] makes Burrow log to a log/slog handler (package
// slogzap bridges the two). [Server.Observe] adds an [Observer] that
// hears of each request of a context — its route's pattern, the context
// answering, the status, the duration — may give it a context (a span)
// and fields every log line of the request carries (trace ids): what
// the metrics and tracing plugins build on.
//
// # Route config and client address
//
// [WithConfig] gives a route typed values that plugins read: at Ready in
// an OnRoute hook ([RouteConfig], [SetRouteConfig] to resolve them), per
// request in a middleware ([RouteConfigOf]) — a route that turns a
// plugin off or sets its own limit. A value no OnRoute hook of the
// route's contexts reads fails Ready ([ErrUnreadConfig]); PrintRoutes
// lists them. [WithTrustedProxies] names the proxies whose
// X-Forwarded-For (or, with [WithClientIPHeader], Forwarded) header is
// believed: [httpx.Request.ClientIP] (and [ClientIP] in a middleware) is
// then the right-most address of it that no trusted proxy holds, and the
// peer's address for any other peer. A CORS preflight goes through the
// middleware of the context whose route serves the method it announces
// ([Preflight]), so per-context CORS judges each by the right policy.
//
//	s.Get("/feed", feed, cors.Off()) // a plugin's route option wraps WithConfig
//
// # Guards and policies
//
// A plugin that guards routes declares what it enforces where its hook
// lands ([Server.DeclareGuard]: authentication by a scheme, CSRF, a
// rate-limit policy, CORS, shedding); Ready computes each route's
// [RouteInfo].Guards, which PrintRoutes lists (and prints as JSON with
// [AsJSON]). A context's policies ([Server.Policy], [RequireAuth],
// [RequireCSRF]) make Ready fail for a route they do not cover, with
// [ErrPolicy] naming the route; [Public] marks an open route.
//
//	s.Register(func(s *app.Server) error {
//		s.Policy(app.RequireAuth(), app.RequireCSRF())
//		s.Register(auth.AnyOf(bearer.Method(toUser, bearer.Keys(key)))) // declares its guard
//		app.Post(s, "/login", login, app.Public())
//		return app.Get(s, "/todos", list)
//	}, app.Name("api"))
//
// # Streaming
//
//	s.Get("/events", func(rep *httpx.Reply) error {
//		es, err := rep.SSE()
//		if err != nil {
//			return err
//		}
//		for n := 1; es.Context().Err() == nil; n++ {
//			if err := es.Send(httpx.Event{Event: "tick", Data: strconv.Itoa(n)}); err != nil {
//				return err
//			}
//			time.Sleep(time.Second)
//		}
//		return nil // the client left, or the server is closing
//	})
//
// [httpx.Reply.SSE], [httpx.Reply.Stream] and [httpx.Reply.ServeContent]
// begin the reply themselves. A stream's context ends when the client
// leaves, at the request time-out and at the start of [Server.Close] (cause
// httpx.ErrServerClosing). [Events] is the typed form of an event stream:
// events of one Go type, the client's Last-Event-ID, heartbeats.
// [Server.Closing] tells a connection that outlives its request (a
// WebSocket's) of the close.
//
// # Testing
//
// [Server.Inject] answers an *http.Request in process, through the whole
// request path; package [github.com/burrow-go/burrow/app/apptest] wraps it
// for tests:
//
//	func TestMain(m *testing.M) { apptest.Main(m) } // no leaked goroutines
//
//	func TestHello(t *testing.T) {
//		s := apptest.New(t) // closed when the test ends
//		app.Get(s, "/hello", func(context.Context, struct{}) (string, error) { return "hi", nil })
//		res := apptest.Get(t, s, "/hello")
//		assert.Equal(t, "hi", res.Body)
//	}
//
// A streamed reply is returned at its first flush; apptest.ReadEvent reads
// its events one at a time.
package app
