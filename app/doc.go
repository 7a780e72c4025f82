// Package app is what Burrow users touch: the server, plugins, decorators,
// routes and hooks. This comment is the manual in brief; the README holds
// every behaviour and figure in full.
//
// # Encapsulation
//
// Every [Server] value is a handle on one encapsulation context. [New]
// returns the root; [Server.Register] records a plugin, a
// func(*Server) error, which gets a child context of its own when it
// loads. What a context declares — request decorators, services,
// request values, hooks, middleware, routes, parsers, plugins, the error
// handler, security schemes — is visible to that context and its
// descendants only: a sibling never sees it, a parent never does. A plugin made with [Wrap] gets no context: it loads into
// the one that registered it, which is how a plugin guards or equips its
// parent (an authentication hook, a database service).
//
// A request decorator ([Server.DecorateRequest]) is a named per-request
// value every request starts with; a hook may replace it for one request
// with [httpx.Request.SetDecorator], and a handler reads it through an
// [In] struct field tagged name:"x". A service ([Server.Decorate]) is a
// value or a dig constructor, built once and shared, received as a plain
// parameter of its type. Declaring what an ancestor already declares is
// an error; a child may shadow a service, not a request decorator.
//
// # Handlers
//
// A typed route is the first form to reach for: [Get], [Post], [Put],
// [Patch], [Delete] or [Handle] register a func(context.Context, In)
// (Out, error), called directly, whose In struct takes the route's path,
// query, header, cookie and body values, request decorators and services,
// each field declared by its tag:
//
//	type getTodo struct {
//		app.In
//		ID    int64 `path:"id" validate:"min=1"`
//		Limit int   `query:"limit" default:"20"`
//		Store *Store
//	}
//	app.Get(s, "/todos/:id", func(ctx context.Context, in getTodo) (todo, error) { … })
//
// Out is sent with 200, or as declared: [NoContent], [Created], [Status].
//
// In structs compose. A field tagged with a source and no name
// (query:"", header:"", path:"", cookie:"") is a group of that source's
// values, each of its fields read by its own tag (or Go name), with its
// default and rules; an embedded struct whose fields carry Burrow's
// tags, or an embedded In struct, is flattened into the In struct, as
// encoding/json flattens one. Either is planned at Ready into the same
// flat plan, and described value by value:
//
//	type page struct {
//		Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
//		Offset int `query:"offset"`
//	}
//	type listTodos struct {
//		app.In
//		Page  page `query:""` // or embed page
//		Store *Store
//	}
//
// Any function is also a handler when Burrow can supply each parameter: an In
// struct, a service, [Body], [Query] or [Params], *httpx.Request,
// *httpx.Reply, context.Context (done when the request ends) or
// *zap.Logger (the request's). It returns error, and answers with the
// reply, or (T, error), and T is sent: a string as text, []byte as
// bytes, a struct, map or slice as JSON. Each parameter is resolved once, at [Server.Ready], through the
// route's context; one the route cannot see fails Ready with an error
// that names the route and where the value is provided, so a mistake
// never waits for a request. [Typed] and [TypedValue] wrap a handler so
// it is called without reflection.
//
// The *httpx.Request and *httpx.Reply belong to their request: once the
// handler and its hooks return they serve the next one, and every method
// panics. Take what a goroutine needs before it outlives the handler.
//
// # Request scope
//
// A request value is built by a constructor given to
// [Server.ProvideRequest], at most once per request, the first time a
// handler, hook, error handler or other constructor of that request takes
// it — a request that takes none builds none. The constructor to write
// is a [Provider]: func(ctx, In) (T, func(failed bool) error, error),
// called directly, its In filled as a typed route's from services,
// request decorators, other request values and the request, but no
// input, since a hook may need the value before the body is read. Any
// function returning T, (T, error) or (T, cleanup, error) is accepted
// too, called by reflection. The cleanup runs once the handler, or the
// hook that ended the request, has returned, last built first, with
// failed true after an error, a panic, a status of 400 or more or a
// time-out; it runs before a reply not yet written, so a commit that
// fails answers 500. Request values are taken like services and
// encapsulated like decorators, checked at Ready, cycles included. [As]
// provides a service or a request value as an interface too.
//
// # Plugins
//
// Register, DecorateRequest, Decorate, Route and AddHook only record.
// [Server.Ready] loads the plugin tree depth-first in registration order,
// each body with a time-out ([WithPluginTimeout]), then compiles every
// route. A plugin meant to be shared says what it needs — [Name],
// [DependsOn], [NeedsDecorators], [NeedsService], [Supports] on [Wrap] or
// [Describe] — and Ready checks it before the body runs. Register takes
// the same options, for that registration only: [Name] renames it, and
// [Prefix] puts its routes under a path.
// [Server.PrintPlugins], [Server.PrintRoutes], [Server.PrintVisibility]
// and [Server.DOT] show what Ready built.
//
// # Input
//
// Body[T], Query[T] and Params[T] decode the body (JSON by default, more
// media types with [Server.AddContentTypeParser]), the query string and
// the path parameters into T, and check T's tags:
//
//	validate:"required,min=1,max=64,len=8,enum=a|b,format=email"
//	pattern:"^[a-z]+$"
//
// go-playground/validator's spellings of these rules (email, uuid, url,
// oneof=a b, gte, lte) are read as Burrow's. A client whose input does not
// decode or validate gets a 400 listing the failing fields (the first
// 100), and the handler does not run. The body is read only for routes
// that take Body, after the OnRequest and PreParsing hooks, up to a limit
// ([WithMaxBodyBytes], [Server.SetBodyLimit], [BodyLimit]; 1 MiB by
// default) and a time ([WithBodyTimeout]); beyond it, a 413. An In
// struct's body field carries rules of the body itself, which has no
// field of its own to hold them — an array's or a map's size, or that
// it is required (a request without a body is then a 400 naming body):
//
//	Body []newTodo `body:"" validate:"required,min=1,max=50"`
//
// # Forms and uploads
//
// In struct fields tagged form:"name" read a form body — urlencoded or
// multipart/form-data — with the query's decoding, defaults and rules;
// their errors are under body/name, and form:"" makes a group. A field
// of type *[File] takes a file part (nil when absent), []*File every
// part of its name; a route with one takes multipart bodies only. An In
// struct cannot have form fields and a body field at once: Ready says
// so. Any other media type is a 415. A multipart body is read as a
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
// # Describing routes
//
// After Ready, [Server.Routes] describes the routes of a context's
// subtree ([RouteInfo]): the parameters and body their handlers decode,
// the replies their signatures, [Responds] and [RespondsAs] (with a media
// type: text/event-stream, text/csv) declare, what [OperationID],
// [Summary], [Tags] and the other metadata options say,
// and the security schemes ([Server.DeclareSecurity]) declared where
// they can see them — bearer-auth declares its own. Package
// app/openapi makes an OpenAPI document of it, per context.
//
// # Hooks
//
// [Server.AddHook] adds a request hook to a context, [WithHook] to one
// route. Hooks take the same parameters as handlers and run ancestors
// first, then in the order of the calls, route hooks last:
//
//	OnRequest → PreParsing → PreValidation → PreHandler → handler →
//	PreSerialization → OnSend → (write) → OnResponse
//
// A hook that sends a reply ends the chain (OnSend and OnResponse still
// run); one that returns an error goes to the error handler. OnError sees
// every error first; OnTimeout and OnRequestAbort run beside the handler.
// Application hooks — [Server.OnRegister], [Server.OnRoute],
// [Server.OnReady], [Server.OnListen], [Server.PreClose],
// [Server.OnClose] — follow the server rather than a request.
//
// # net/http interop
//
// [Server.Use] adds a standard func(http.Handler) http.Handler middleware
// to a context. It is encapsulated as hooks are — the routes and
// not-found handlers of that context and its descendants, ancestors'
// middleware outermost, then the order of the calls — and sits between
// routing and the hooks: it wraps the route's whole lifecycle, so it
// may answer (a CORS preflight) before an OnRequest hook refuses, and a
// middleware that does not call next ends the request: no request hook
// and no handler runs, but the access log and the OnResponse hooks, which
// sit outside the middleware, report what it wrote.
// Its *http.Request carries the route in Pattern ("GET /items/{id}") and
// the path parameters through PathValue; the request it passes on is
// the one the hooks and the handler see. [Server.Mount] serves every
// method and path under a prefix with an http.Handler (the context's
// middleware and hooks apply; the prefix is stripped as
// http.StripPrefix does), and a route's handler may itself be an
// http.Handler or a func(http.ResponseWriter, *http.Request). A request
// whose path has routes but none for its method (a 405) goes through the
// middleware of the path's first route's context, and a CORS preflight
// through that of the context whose route serves the method it announces
// ([Preflight]), so per-context CORS judges each preflight by the right
// policy.
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
// believed: [httpx.Request.ClientIP] is then the right-most address of it
// that no trusted proxy holds, and the peer's address for any other peer.
//
// # Streaming
//
// [httpx.Reply.SSE] begins Server-Sent Events and returns an
// [httpx.EventStream] whose Send writes and flushes one event;
// [httpx.Reply.Stream] sends an io.Reader as a chunked body, flushed
// after each read; [httpx.Reply.ServeContent] is http.ServeContent, with
// its ranges and conditional requests. Each begins the reply itself, so
// an error the handler returns afterwards is logged. A stream's context
// ends when the client leaves, at the request time-out (its cause then
// matches context.DeadlineExceeded) and at the start of [Server.Close],
// with the cause httpx.ErrServerClosing, so a handler can send a last
// event rather than hold the drain. To a HEAD request a stream is its
// headers: its context is done once they are sent.
//
// # Errors
//
// [Server.SetErrorHandler] sets a context's error handler, a function of
// handler parameters plus the error. If it fails, the parent context's
// handler gets the new error, up to the default one, which logs it and
// sends Fastify's JSON shape: {"statusCode","code","error","message"}
// ([WithProblemDetails] makes it, and every refusal of the framework's,
// RFC 9457 problem details instead). httpx.NewError and httpx.Errorf make
// errors that carry a status and a code; wrapped, they are still found.
// Any other error is a 500 whose message is the status text, as its own
// text was written for logs ([WithServerErrorMessages] sends it, for
// development). A panic in a handler or hook is a 500 through the same
// path, and the server keeps serving.
//
// Start-up errors name their subject once and read as one sentence.
// Sentinels ([ErrAlreadyStarted], [ErrMissingDependency],
// [ErrInvalidConstraint], scope.ErrNotVisible, …) carry no package
// prefix, nor does any other error or panic of Burrow's: they classify,
// for errors.Is, and the message that matches one does not repeat its
// words. The outermost error names what failed — a
// route ([RouteError]: "route GET / (root) has an invalid onRequest hook
// auth: func(int, ...int) is variadic"), a plugin ([PluginError]: "plugin
// db (root > api) failed: boom"), a context ("invalid request decorator
// in root: empty name"), or, for an option's own argument, the option as
// Go code ("bearer.Keys: empty key") — and what follows never names it
// again.
//
// # Lifecycle
//
// [Server.Listen], [Server.ListenTLS] (HTTP/2 by ALPN; for any other TLS
// setup, Serve a tls.NewListener) or [Server.Serve] (or [Server.Inject],
// for tests) call Ready first. After Ready the tree is frozen: every method that
// would add to it returns ErrAlreadyStarted. [Server.Close] flips
// readiness, serves the drain delay ([WithDrainDelay]), runs PreClose
// hooks, stops accepting, lets in-flight requests finish and waits for
// the handlers of hijacked connections (WebSockets) until its context
// ends, then runs OnClose hooks, last registered first. Time-outs
// for headers, bodies, replies and idle connections have safe defaults
// ([WithTimeouts], [WithBodyTimeout], [WithReplyTimeout]); one for the
// whole request is opt-in ([WithRequestTimeout]). Package
// [github.com/burrow-go/burrow/app/apptest] makes a server closed when a
// test ends and answers requests in one line.
//
// # Performance
//
// Reflection and dig run at Ready only. Per request, a route costs a
// router lookup that allocates nothing, a Request and Reply handle taken
// from a batch of 64, and its parameters filled from plans made at
// start-up; request decorators live in slots,
// not maps. A typed route, or a handler passed through Typed or
// TypedValue, avoids reflect.Value.Call (about 400 ns and two allocations); with it, the
// reference route allocates less than the net/http handler that writes
// the same JSON. Typed input (an In struct's path, query, header, cookie
// and body fields; Body, Query, Params) sets its fields by reflection, on
// the routes that ask for it only.
package app
