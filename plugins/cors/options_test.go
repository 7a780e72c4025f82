package cors_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/cors"
)

func TestInvalidOptionsFailRegister(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []cors.Option
		want string
	}{
		{"no origin", nil, "cors: no origin configured"},
		{"only methods", []cors.Option{cors.Methods("GET")}, "cors: no origin configured"},
		{"a path", []cors.Option{cors.Origins("https://a.example/")}, `cors.Origins: "https://a.example/" is not an origin`},
		{"no scheme", []cors.Option{cors.Origins("a.example")}, `"a.example" is not an origin`},
		{"a query", []cors.Option{cors.Origins("https://a.example?x")}, "is not an origin"},
		{"user info", []cors.Option{cors.Origins("https://u@a.example")}, "is not an origin"},
		{"null", []cors.Option{cors.Origins("null")}, `"null" is the origin of sandboxed frames`},
		{"credentials for any origin", []cors.Option{cors.Origins("*"), cors.Credentials()}, "cors.Credentials cannot be combined with cors.Origins(\"*\")"},
		{"bad pattern", []cors.Option{cors.OriginPattern("(")}, "cors.OriginPattern: error parsing regexp"},
		{"nil function", []cors.Option{cors.OriginFunc(nil)}, "cors.OriginFunc: nil function"},
		{"bad method", []cors.Option{cors.Origins("*"), cors.Methods("GET POST")}, `cors.Methods: "GET POST" is not a method`},
		{"bad header", []cors.Option{cors.Origins("*"), cors.AllowHeaders("x a")}, `cors.AllowHeaders: "x a" is not a header name`},
		{"bad exposed header", []cors.Option{cors.Origins("*"), cors.ExposeHeaders("")}, `cors.ExposeHeaders: "" is not a header name`},
		{"negative max age", []cors.Option{cors.Origins("*"), cors.MaxAge(-1)}, "cors.MaxAge: negative duration"},
		{"status", []cors.Option{cors.Origins("*"), cors.SuccessStatus(301)}, "cors.SuccessStatus: 301 is not a 2xx status"},
		{"nil option", []cors.Option{cors.Origins("*"), nil}, "cors: nil option"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			err := s.Register(cors.Plugin(tc.opts...))
			require.Error(t, err)
			var pe *app.PluginError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), "cors")
			assert.Contains(t, err.Error(), tc.want)
			require.Error(t, s.Ready())
		})
	}
}

func TestInvalidOverrideFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(cors.Plugin(cors.Origins("https://a.example"), cors.Credentials())))
	require.NoError(t, s.Get("/x", ok, cors.Override(cors.Origins("*"))))
	err := s.Ready()
	require.Error(t, err)
	var re *app.RouteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "/x", re.Path)
	assert.Contains(t, err.Error(), "cors.Credentials cannot be combined")
}

func TestRouteSettingWithoutThePluginFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Register(func(s *app.Server) error {
		return s.Register(cors.Plugin(cors.Origins("*")))
	}, app.Name("api")))
	require.NoError(t, s.Get("/x", ok, cors.Off()))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrUnreadConfig)
	assert.Regexp(t, regexp.MustCompile(`route GET /x \(root\) has config \*cors.Route off, which no OnRoute hook`), err.Error())
}
