package app

import (
	"errors"
	"fmt"
)

// Sentinel errors. Start-up failures wrap one of these (or one from the
// scope and httpx packages), so callers test them with errors.Is.
var (
	// ErrAlreadyStarted is returned by every mutating call made after Ready.
	ErrAlreadyStarted = errors.New("burrow: server already started")
	// ErrBootFailed is returned by calls made after Ready failed.
	ErrBootFailed = errors.New("burrow: boot failed")
	// ErrClosed is returned by Ready and registrations once Close has
	// begun, and by Inject once the drain delay is over (Listen and Serve
	// return nil then).
	ErrClosed = errors.New("burrow: server closed")
	// ErrInvalidPlugin is returned by Register for a value that is not a
	// plugin.
	ErrInvalidPlugin = errors.New("burrow: invalid plugin")
	// ErrPlugin wraps an error returned (or a panic raised) by a plugin
	// body.
	ErrPlugin = errors.New("burrow: plugin failed")
	// ErrPluginTimeout is returned when a plugin body does not return within
	// the plugin time-out.
	ErrPluginTimeout = errors.New("burrow: plugin timed out")
	// ErrInvalidHandler is returned for a handler or hook whose signature
	// Burrow cannot call.
	ErrInvalidHandler = errors.New("burrow: invalid handler")
	// ErrDecoratorType is returned when a handler asks for a request
	// decorator with a type its value does not have.
	ErrDecoratorType = errors.New("burrow: decorator type mismatch")
	// ErrInvalidDecorator is returned for a malformed decorator
	// declaration.
	ErrInvalidDecorator = errors.New("burrow: invalid decorator")
	// ErrInvalidConstraint is returned at Ready for a validate or pattern
	// tag Burrow cannot apply.
	ErrInvalidConstraint = errors.New("burrow: invalid constraint")
	// ErrInvalidInput is returned at Ready for a Body, Query or Params
	// parameter Burrow cannot fill.
	ErrInvalidInput = errors.New("burrow: invalid input type")
)

// RouteError is a start-up error about one route (or one of its hooks).
type RouteError struct {
	Method, Path string
	Context      string // context path, e.g. "root > publicContext"
	Err          error
}

func (e *RouteError) Error() string {
	// Causes are phrased to follow the route: "needs request decorator …",
	// "has an invalid handler: …".
	return fmt.Sprintf("route %s %s (%s) %v", e.Method, e.Path, e.Context, e.Err)
}

// Unwrap returns the cause: a *scope.NotVisibleError, or an error wrapping
// ErrDecoratorType or ErrInvalidHandler.
func (e *RouteError) Unwrap() error { return e.Err }

// PluginError is a start-up error raised while loading a plugin.
type PluginError struct {
	Plugin  string
	Context string
	Err     error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s (%s): %v", e.Plugin, e.Context, e.Err)
}

// Unwrap returns the cause.
func (e *PluginError) Unwrap() error { return e.Err }
