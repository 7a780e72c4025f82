package cors_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/cors"
)

func TestAllowsNamesOnlyTheOriginsAPolicyNames(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	allows := func(req *httpx.Request) (string, error) { return strconv.FormatBool(cors.Allows(req.Raw())), nil }
	require.NoError(t, s.Get("/none", allows))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(
			s.Register(cors.Plugin(cors.Origins("https://a.example"), cors.OriginPattern(`^https://[a-z]+\.b\.example$`))),
			s.Get("/named", allows),
			s.Get("/off", allows, cors.Off()),
		)
	}))
	require.NoError(t, s.Register(func(s *app.Server) error {
		return errors.Join(s.Register(cors.Plugin(cors.Origins("*"))), s.Get("/", allows))
	}, app.Prefix("/any")))
	for _, tc := range []struct {
		path, origin string
		want         bool
	}{
		{"/named", "https://a.example", true},
		{"/named", "https://x.b.example", true},
		{"/named", "https://c.example", false},
		{"/named", "", false},
		{"/named", "null", false},
		{"/off", "https://a.example", false},
		{"/none", "https://a.example", false},
		{"/any", "https://a.example", false},
	} {
		var h []string
		if tc.origin != "" {
			h = []string{"Origin", tc.origin}
		}
		res := apptest.Get(t, s, tc.path, h...)
		require.Equal(t, 200, res.StatusCode, tc.path)
		assert.Equal(t, strconv.FormatBool(tc.want), res.Body, "%s from %q", tc.path, tc.origin)
	}
}
