package session_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/session"
)

// Start-up errors name what the user wrote — the plugin, its options,
// the contexts — never the plugin's own decorator.
func TestStartUpErrorsNameWhatTheUserWrote(t *testing.T) {
	t.Parallel()
	type data struct{ N int }
	tests := []struct {
		name     string
		register func(s *app.Server) error
		is       error
		want     string
	}{
		{"registered in a context and below it", func(s *app.Server) error {
			s.Register(session.Plugin[data](session.NewMemoryStore()))
			return s.Register(func(s *app.Server) error {
				return s.Register(session.Plugin[data](session.NewMemoryStore()))
			}, app.Name("api"))
		}, app.ErrDuplicatePlugin, "plugin session (root > api) is already registered in root, an ancestor, and applies to this context already"},
		{"registered twice in one context", func(s *app.Server) error {
			s.Register(session.Plugin[data](session.NewMemoryStore()))
			return s.Register(session.Plugin[data](session.NewMemoryStore()))
		}, app.ErrDuplicatePlugin, "plugin session (root) is already registered in root"},
		{"time-outs", func(s *app.Server) error {
			return s.Register(session.Plugin[data](session.NewMemoryStore(), session.IdleTimeout(-time.Second)))
		}, nil, "session.IdleTimeout and session.AbsoluteTimeout take positive durations, not -1s and"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			_ = tt.register(s)
			err := s.Ready()
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "burrow.session")
		})
	}
}
