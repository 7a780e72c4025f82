// Package burrowfx runs a Burrow server in an uber-go/fx application.
//
//	fx.New(
//		burrowfx.Module,
//		fx.Supply(burrowfx.Config{Addr: ":8080"}),
//		fx.Provide(burrowfx.AsPlugin(newTodoPlugin)),   // plugins and routes, from a value group
//		fx.Provide(burrowfx.AsService(newStore)),       // fx-built services, for Burrow's root context
//	).Run()
//
// Module provides the *app.Server. Its OnStart hook boots the server
// (Ready: every dependency of every handler is checked then, as
// always) and opens the listener synchronously, so a port in use fails
// fx's Start instead of being logged from a goroutine nobody waits for;
// then it serves in the background. A serving error after that shuts
// the application down (fx.Shutdowner). Its OnStop hook is Close, within
// fx's stop time-out: readiness flips, in-flight requests drain, late
// ones get 503.
//
// Plugins come from the value group PluginGroup, registered in the root
// in the order of their Order, then of their Name: the order fx collects
// a group in is not one to rely on. Services come from ServiceGroup and
// are decorated in the root context before any plugin, so handlers in
// every context see them, and a handler asking for one nobody provided
// fails Ready, hence Start, with Burrow's usual error. A service for one
// plugin's context only is a parameter of that plugin's constructor,
// decorated in its body.
//
// When the fx graph has a *zap.Logger, Burrow logs with it, and
// EventLogger makes fx log its own events there too.
package burrowfx
