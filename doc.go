// Package burrow is a Go web framework built on Fastify's encapsulation
// model: everything but the root context is a plugin, every plugin gets a
// child context backed by its own dig.Scope, and what a context declares
// is visible to it and its descendants only.
//
// The packages:
//
//   - app: the server and plugin API users touch (New, Register, Wrap,
//     Describe, DecorateRequest, Decorate, Route, AddHook, Body/Query/Params,
//     Ready, Listen, Close, Inject).
//   - scope: the context tree over dig and its registry of declarations.
//   - httpx: Request, Reply, the router and the error type.
//   - bearer: the bearer-auth plugin.
//
// This package holds no code; its tests (scope_test.go) check the
// encapsulation rules through the public API.
package burrow
