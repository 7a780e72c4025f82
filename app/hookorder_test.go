package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func TestReadsDecoratorsRunsAfterSetsDecorators(t *testing.T) {
	t.Parallel()
	set := func(req *httpx.Request) error { return req.SetDecorator("tenant", "acme") }
	read := func(req *httpx.Request) error { return nil }
	tests := []struct {
		name  string
		hooks func(s *app.Server) error
		err   string // "" when Ready passes
	}{
		{"setter first", func(s *app.Server) error {
			s.AddHook(app.OnRequest, set, app.SetsDecorators("tenant"))
			return s.AddHook(app.OnRequest, read, app.ReadsDecorators("tenant"))
		}, ""},
		{"setter in the parent, reader in the child", func(s *app.Server) error {
			s.AddHook(app.PreHandler, set, app.SetsDecorators("tenant"))
			return s.Register(func(s *app.Server) error {
				return s.AddHook(app.PreHandler, read, app.ReadsDecorators("tenant"))
			}, app.Name("child"))
		}, ""},
		{"reader first", func(s *app.Server) error {
			s.AddHook(app.OnRequest, read, app.ReadsDecorators("tenant"))
			return s.AddHook(app.OnRequest, set, app.SetsDecorators("tenant"))
		}, `has an onRequest hook (root) that reads request decorator "tenant" before an onRequest hook (root) sets it: register the hook after it`},
		{"reader in an earlier phase", func(s *app.Server) error {
			s.AddHook(app.PreHandler, set, app.SetsDecorators("tenant"))
			return s.AddHook(app.PreParsing, read, app.ReadsDecorators("tenant"))
		}, `a preParsing hook (root) that reads request decorator "tenant" before a preHandler hook (root) sets it`},
		{"no setter declared", func(s *app.Server) error {
			s.AddHook(app.OnRequest, set)
			return s.AddHook(app.PreHandler, read, app.ReadsDecorators("tenant"))
		}, `which no hook before it declares it sets: add the hook that sets it with app.SetsDecorators("tenant")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			require.NoError(t, s.DecorateRequest("tenant", ""))
			require.NoError(t, tt.hooks(s))
			require.NoError(t, s.Get("/", func() (string, error) { return "ok", nil }))
			err := s.Ready()
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, app.ErrHookOrder)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestDecoratorDeclarationsOnlyBeforeTheHandler(t *testing.T) {
	t.Parallel()
	s := app.New()
	err := s.AddHook(app.OnResponse, func() {}, app.SetsDecorators("tenant"))
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "SetsDecorators and ReadsDecorators order the hooks that run before the handler (onRequest, preParsing, preValidation, preHandler), not onResponse")
}
