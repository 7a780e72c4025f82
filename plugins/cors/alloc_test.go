package cors_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/cors"
)

// discard is a ResponseWriter that keeps the header only.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// TestAllocations checks that the plugin costs an allowed origin's
// request no allocation over a middleware that does nothing (a Vary the
// answer has already costs one, for the longer list).
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop values at random")
	}
	allocs := func(mw func(s *app.Server) error) float64 {
		s := app.New()
		require.NoError(t, mw(s))
		require.NoError(t, s.Get("/", ok))
		require.NoError(t, s.Ready())
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Origin", "https://a.example")
		w := &discard{h: http.Header{}}
		return testing.AllocsPerRun(1000, func() {
			clear(w.h)
			s.ServeHTTP(w, req)
		})
	}
	none := allocs(func(s *app.Server) error { return s.Use(func(next http.Handler) http.Handler { return next }) })
	with := allocs(func(s *app.Server) error { return s.Register(cors.Plugin(cors.Origins("https://a.example"))) })
	assert.Equal(t, none, with, "the plugin allocates nothing of its own per request")
}
