package shed_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/shed"
)

// Registered twice, a shedder's plugins say where, in the words the user
// wrote: never the bulkhead's own decorator.
func TestRegisteredTwiceNamesTheContexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		register func(s *app.Server, sh *shed.Shedder, bh *app.Plugin)
		is       error
		want     string
	}{
		{"shedder in two siblings", func(s *app.Server, sh *shed.Shedder, _ *app.Plugin) {
			s.Register(func(s *app.Server) error { return s.Register(sh.Plugin()) }, app.Name("a"))
			s.Register(func(s *app.Server) error { return s.Register(sh.Plugin()) }, app.Name("b"))
		}, nil, "plugin shed (root > b) failed: the shedder's Plugin is already registered in root > a"},
		{"bulkhead in a context and below it", func(s *app.Server, _ *shed.Shedder, bh *app.Plugin) {
			s.Register(bh)
			s.Register(func(s *app.Server) error { return s.Register(bh) }, app.Name("api"))
		}, app.ErrDuplicatePlugin, "plugin shed-bulkhead (root > api) is already registered in root, an ancestor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sh := shed.New(shed.WithSource(&source{}))
			s := app.New()
			tt.register(s, sh, sh.Bulkhead(4))
			s.Get("/", ok)
			err := s.Ready()
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "shed.inflight")
			t.Cleanup(func() { _ = s.Close(t.Context()) })
		})
	}
}
