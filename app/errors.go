package app

import (
	"errors"
	"fmt"
)

// Sentinel errors. Start-up failures match one of these (or one from the
// scope and httpx packages) with errors.Is. Their text carries no package
// prefix and is rarely printed: the error that matches one says what
// failed in its own words (see the package doc, "Errors").
var (
	// ErrAlreadyStarted is returned by every mutating call made after Ready.
	ErrAlreadyStarted = errors.New("server already started")
	// ErrBootFailed is returned by calls made after Ready failed.
	ErrBootFailed = errors.New("boot failed")
	// ErrClosed is returned by Ready and registrations once Close has
	// begun, by Listen, ListenTLS and Serve called after that (a Close
	// that begins during their call ends them with nil), and by Inject
	// once the drain delay is over.
	ErrClosed = errors.New("server closed")
	// ErrInvalidPlugin is returned by Register for a value that is not a
	// plugin.
	ErrInvalidPlugin = errors.New("invalid plugin")
	// ErrPlugin wraps an error returned (or a panic raised) by a plugin
	// body.
	ErrPlugin = errors.New("plugin failed")
	// ErrPluginTimeout is returned when a plugin body does not return within
	// the plugin time-out.
	ErrPluginTimeout = errors.New("plugin timed out")
	// ErrInvalidHandler is returned for a handler or hook whose signature
	// Burrow cannot call, and for a route option given an argument the
	// route cannot take (Status, OperationID, Responds).
	ErrInvalidHandler = errors.New("invalid handler")
	// ErrInvalidDecorator is returned for a malformed decorator
	// declaration.
	ErrInvalidDecorator = errors.New("invalid decorator")
	// ErrInvalidConstraint is returned at Ready for a validate or pattern
	// tag Burrow cannot apply.
	ErrInvalidConstraint = errors.New("invalid constraint")
	// ErrInvalidInput is returned at Ready for a Body, Query or Params
	// parameter Burrow cannot fill.
	ErrInvalidInput = errors.New("invalid input type")
	// ErrInvalidSecurity is returned by DeclareSecurity for a scheme that
	// cannot be described, or that differs from one of the same name its
	// context already sees.
	ErrInvalidSecurity = errors.New("invalid security scheme")
	// ErrInvalidOption is returned by Ready for an option of New given an
	// argument the server cannot take (WithTrustedProxies,
	// WithClientIPHeader).
	ErrInvalidOption = errors.New("invalid option")
	// ErrUnreadConfig is returned by Ready for a route carrying a
	// WithConfig value that no OnRoute hook of its contexts read: the
	// plugin it is meant for is not registered where the route is.
	ErrUnreadConfig = errors.New("route config not read")
	// ErrHookOrder is returned by Ready for a route where a hook declared
	// with ReadsDecorators runs before the hook that sets the decorator
	// (SetsDecorators), or where none does.
	ErrHookOrder = errors.New("hook runs before the hook it depends on")
	// ErrPolicy is returned by Ready for a route that breaks a Policy of
	// its contexts (RequireAuth, RequireCSRF).
	ErrPolicy = errors.New("route breaks a policy")
	// ErrInvalidGuard is returned by DeclareGuard for a guard that cannot
	// be described.
	ErrInvalidGuard = errors.New("invalid guard")
)

// ErrBodyTooLarge is matched by the error a Parser gets when it reads
// past the body limit.
var ErrBodyTooLarge = errors.New("request body is too large")

// ErrHandlerSet is returned when a context sets a second error or
// not-found handler.
var ErrHandlerSet = errors.New("handler already set")

// Errors of the plugin contract. Ready returns them wrapped in a
// *PluginError naming the plugin and the context it is registered in.
var (
	// ErrMissingDependency: a plugin named in DependsOn is not registered
	// in the registering context or an ancestor, before the plugin.
	ErrMissingDependency = errors.New("missing plugin dependency")
	// ErrMissingDecorator: a request decorator or service named in Needs…
	// is not visible from the registering context. The error also wraps a
	// *scope.NotVisibleError saying where the value is provided.
	ErrMissingDecorator = errors.New("missing decorator")
	// ErrVersionMismatch: the plugin does not support this Burrow version.
	ErrVersionMismatch = errors.New("version mismatch")
	// ErrDuplicatePlugin: a wrapped plugin of the same name is already
	// registered in the context.
	ErrDuplicatePlugin = errors.New("duplicate plugin")
)

// RouteError is a start-up error about one route (or one of its hooks).
type RouteError struct {
	Method, Path string
	Context      string // context path, e.g. "root > publicContext"
	Err          error
}

func (e *RouteError) Error() string {
	// Causes are phrased to follow the route: "needs request decorator …",
	// "has an invalid handler: …", "is already registered".
	return fmt.Sprintf("route %s %s (%s) %v", e.Method, e.Path, e.Context, e.Err)
}

// Unwrap returns the cause: a *scope.NotVisibleError, or an error that
// matches httpx.ErrDecoratorType, ErrInvalidHandler, ErrInvalidInput,
// ErrInvalidConstraint or one of httpx's route errors.
func (e *RouteError) Unwrap() error { return e.Err }

// PluginError is a start-up error raised while loading a plugin.
type PluginError struct {
	Plugin  string
	Context string
	Err     error
}

func (e *PluginError) Error() string {
	// Causes are phrased to follow the plugin, as RouteError's are:
	// "failed: …", "timed out after 10s", "needs plugin …".
	return fmt.Sprintf("plugin %s (%s) %v", e.Plugin, e.Context, e.Err)
}

// Unwrap returns the cause.
func (e *PluginError) Unwrap() error { return e.Err }
