// Package app is what Burrow users touch: the server, plugins, decorators,
// routes and hooks.
//
// Every Server value is a handle on one encapsulation context. New returns
// the root; Register records a plugin, which gets a child context of its
// own when it loads (or, when made with Wrap, loads into the context that
// registered it). What a context declares — request decorators, services,
// hooks, routes, plugins — is visible to that context and its descendants
// only.
//
// Register, DecorateRequest, Decorate, Route and AddHook only record.
// Ready loads the plugin tree depth-first in registration order, then
// compiles every route: its hook chain (ancestors first), and a plan for
// each handler parameter, resolved once through the route's dig scope. A
// parameter the route cannot see fails Ready with an error that names the
// route and where the value is provided. After Ready the tree is frozen,
// requests cost no dig call, and every mutating method returns
// ErrAlreadyStarted.
//
// Plugins meant to be shared declare what they need (DependsOn,
// NeedsDecorators, NeedsService, Supports on Wrap or Describe); Ready
// checks it before their bodies run. Request input is typed the same way:
// a parameter Body[T], Query[T] or Params[T] is decoded after the
// preParsing hooks and validated against T's tags after the preValidation
// hooks, so a handler only ever sees input it can trust.
//
// Any function of planned parameters is a handler; one passed through
// Typed or TypedValue is also called without reflection, which matters on
// hot routes.
//
// PrintPlugins, PrintRoutes, PrintVisibility and DOT show what Ready built.
package app
