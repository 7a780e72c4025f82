package compress

import (
	"net/http"

	"github.com/burrow-go/burrow/app"
)

// skip is the route config Skip gives.
type skip struct{}

func (skip) String() string { return "skip" }

// Skip leaves a route's answers uncompressed (with app.WithConfig
// underneath): a route that reflects user input next to a secret
// (BREACH), or one whose bodies are compressed already. Ready fails when
// no plugin (Plugin or Off) is registered in the route's contexts.
func Skip() app.RouteOption { return app.WithConfig(skip{}) }

// readSkip marks a route's Skip read, for Ready's check that some
// plugin applies it.
func readSkip(spec *app.RouteSpec) error {
	app.RouteConfig[skip](spec)
	return nil
}

// skipped reports whether r's route has Skip.
func skipped(r *http.Request) bool {
	_, ok := app.RouteConfigOf[skip](r)
	return ok
}
