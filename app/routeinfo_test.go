package app_test

import (
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

type infoPage struct {
	Limit int    `query:"limit" validate:"min=1"`
	Sort  string `query:"sort,omitempty" validate:"required"`
}

type infoIDs struct {
	ID int `param:"id"`
}

type infoBody struct {
	Name string `json:"name"`
}

// TestRoutesDescribeTheSubtree: Routes lists a context's routes and its
// descendants', in registration order, only once Ready has compiled them,
// and without HEAD twins or mounts.
func TestRoutesDescribeTheSubtree(t *testing.T) {
	t.Parallel()
	s := app.New()
	var child *app.Server
	s.Get("/a", func() error { return nil })
	s.Register(func(s *app.Server) error {
		child = s
		s.Post("/c/b", func(b app.Body[infoBody]) (infoBody, error) { return b.Value, nil })
		return s.Register(func(s *app.Server) error { return s.Get("/deep/:x", func() error { return nil }) })
	}, app.Name("c"), app.Prefix("/c"))
	s.Register(func(s *app.Server) error { return s.Mount("/static", httpNoop{}) }, app.Name("files"))
	assert.Nil(t, s.Routes(), "nothing before Ready")
	var inOnReady []app.RouteInfo
	s.OnReady(func() error { inOnReady = s.Routes(); return nil })
	require.NoError(t, s.Ready())
	defer s.Close(t.Context())

	type row struct{ method, path, ctx, id string }
	var got []row
	for _, r := range s.Routes() {
		got = append(got, row{r.Method, r.Path, r.Context, r.OperationID})
	}
	assert.Equal(t, []row{
		{"GET", "/a", "root", "getA"},
		{"POST", "/c/c/b", "root > c", "postCCB"},
		{"GET", "/c/deep/:x", "root > c > plugin-0", "getCDeepByX"},
	}, got)
	assert.Len(t, inOnReady, 3, "OnReady hooks see the routes")
	sub := child.Routes()
	require.Len(t, sub, 2)
	assert.Equal(t, "/c/c/b", sub[0].Path)

	// A caller cannot change the route's description.
	sub[0].Tags = append(sub[0].Tags, "x")
	sub[0].Responses[0].Status = 999
	assert.Equal(t, 200, child.Routes()[0].Responses[0].Status)
	assert.Empty(t, child.Routes()[0].Tags)
}

type httpNoop struct{}

func (httpNoop) ServeHTTP(http.ResponseWriter, *http.Request) {}

// TestRouteInfoFromSignature: what the handler's parameters and results
// say about input and replies.
func TestRouteInfoFromSignature(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Put("/items/:id", func(q app.Query[infoPage], p app.Params[infoIDs], b app.Body[infoBody]) (*infoBody, error) {
		return nil, nil
	})
	s.Get("/plain/:name/*", func(req *httpx.Request) (any, error) { return nil, nil })
	s.Get("/typed", app.TypedValue(func(q app.Query[infoPage]) (string, error) { return "", nil }))
	require.NoError(t, s.Ready())
	defer s.Close(t.Context())
	rs := s.Routes()
	require.Len(t, rs, 3)

	put := rs[0]
	assert.True(t, put.TypedInput)
	assert.Equal(t, reflect.TypeFor[infoBody](), put.Body)
	require.Len(t, put.Params, 3)
	assert.Equal(t, "path", put.Params[0].Source, "path parameters first")
	assert.Equal(t, "id", put.Params[0].Name)
	assert.Equal(t, reflect.TypeFor[int](), put.Params[0].Type)
	assert.True(t, put.Params[0].Required)
	assert.Equal(t, "limit", put.Params[1].Name)
	assert.False(t, put.Params[1].Required)
	assert.Equal(t, "min=1", put.Params[1].Field.Tag.Get("validate"))
	assert.Equal(t, "sort", put.Params[2].Name)
	assert.True(t, put.Params[2].Required, "validate:\"required\"")
	assert.Equal(t, []app.ResponseInfo{{Status: 200, Type: reflect.TypeFor[*infoBody]()}}, put.Responses)

	plain := rs[1]
	assert.False(t, plain.TypedInput)
	assert.Equal(t, []app.ParamInfo{
		{Source: "path", Name: "name", Type: reflect.TypeFor[string](), Required: true},
		{Source: "path", Name: "wildcard", Type: reflect.TypeFor[string](), Required: true},
	}, plain.Params, "untyped path parameters are described as strings")
	assert.Equal(t, "getPlainByNameWildcard", plain.OperationID)

	typed := rs[2]
	assert.True(t, typed.TypedInput, "app.TypedValue handlers are described from the function they wrap")
	assert.Len(t, typed.Params, 2)
	assert.Equal(t, reflect.TypeFor[string](), typed.Responses[0].Type)
}

// TestRouteMetadataOptions: the options land on the description; bad ones
// make Route fail (and Ready).
func TestRouteMetadataOptions(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.Delete("/x/:id", func() error { return nil },
		app.OperationID("removeX"), app.Summary("Remove"), app.Description("Gone."), app.Tags("x", "", "x", "y"),
		app.Deprecated(), app.Responds(204, nil), app.Responds(404, httpx.ErrorBody{}, " x-reason "), app.Undocumented(),
		app.RespondsAs(200, "Text/CSV", nil, "content-disposition")))
	for _, tt := range []struct {
		opt  app.RouteOption
		want string
	}{
		{app.OperationID("has space"), `invalid operation id "has space"`},
		{app.OperationID(""), `invalid operation id ""`},
		{app.Responds(42, nil), "status 42, which is not an HTTP status"},
		{app.Responds(600, nil), "status 600"},
		{app.RespondsAs(200, "", nil), `media type "", which is not a media type such as text/csv`},
		{app.RespondsAs(200, "text/*", nil), `media type "text/*"`},
		{app.RespondsAs(200, "csv", nil), `media type "csv"`},
		{app.RespondsAs(200, "text/csv; charset=utf-8", nil), `media type "text/csv; charset=utf-8"`},
		{app.RespondsAs(204, "text/csv", nil), "declares a 204 response with media type text/csv, but a 204 has no body"},
	} {
		err := app.New().Get("/y", func() error { return nil }, tt.opt)
		require.Error(t, err, tt.want)
		assert.Contains(t, err.Error(), tt.want)
		var re *app.RouteError
		assert.True(t, errors.As(err, &re))
	}
	require.NoError(t, s.Ready())
	defer s.Close(t.Context())
	r := s.Routes()[0]
	assert.Equal(t, "removeX", r.OperationID)
	assert.Equal(t, "Remove", r.Summary)
	assert.Equal(t, "Gone.", r.Description)
	assert.Equal(t, []string{"x", "y"}, r.Tags)
	assert.True(t, r.Deprecated)
	assert.True(t, r.Undocumented)
	assert.Equal(t, []app.ResponseInfo{
		{Status: 200, MediaType: "text/csv", Headers: []string{"Content-Disposition"}},
		{Status: 204},
		{Status: 404, Type: reflect.TypeFor[httpx.ErrorBody](), Headers: []string{"X-Reason"}},
	}, r.Responses)
}

// TestDeclareSecurity: a route carries the schemes declared in its
// lineage, root first; bearer.Plugin declares its own where it lands.
func TestDeclareSecurity(t *testing.T) {
	t.Parallel()
	key := app.SecurityScheme{Name: "apiKey", Type: "apiKey", In: "header", ParamName: "X-Key"}
	s := app.New()
	require.NoError(t, s.DeclareSecurity(key))
	require.NoError(t, s.DeclareSecurity(key), "the same declaration again is nothing")
	s.Get("/root", func() error { return nil })
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		require.NoError(t, s.DeclareSecurity(key), "an ancestor's declaration already covers these routes")
		return s.Get("/both", func() error { return nil })
	})
	s.Register(func(s *app.Server) error {
		err := s.DeclareSecurity(app.SecurityScheme{Name: "apiKey", Type: "apiKey", In: "query", ParamName: "key"})
		require.ErrorIs(t, err, app.ErrInvalidSecurity)
		assert.Contains(t, err.Error(), `security scheme "apiKey" declared in root > plugin-1 differs from the one of that name in root`)
		return nil
	})
	require.Error(t, s.Ready(), "the refused declaration is reported by Ready")

	s = app.New()
	s.DeclareSecurity(key)
	s.Get("/root", func() error { return nil })
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		return s.Get("/both", func() error { return nil })
	})
	require.NoError(t, s.Ready())
	defer s.Close(t.Context())
	rs := s.Routes()
	assert.Equal(t, []app.SecurityScheme{key}, rs[0].Security)
	assert.Equal(t, []app.SecurityScheme{key, {Name: bearer.SchemeName, Type: "http", Scheme: "bearer"}}, rs[1].Security)

	for _, tt := range []struct {
		sc   app.SecurityScheme
		want string
	}{
		{app.SecurityScheme{Name: "a b", Type: "http", Scheme: "basic"}, `name "a b"`},
		{app.SecurityScheme{Name: "x", Type: "http"}, "needs a Scheme"},
		{app.SecurityScheme{Name: "x", Type: "apiKey", In: "body", ParamName: "k"}, "needs ParamName and In"},
		{app.SecurityScheme{Name: "x", Type: "openIdConnect"}, "needs OpenIDConnectURL"},
		{app.SecurityScheme{Name: "x", Type: "magic"}, `has type "magic"`},
		{app.SecurityScheme{Name: "x", Type: "oauth2"}, "type oauth2 needs flows"},
		{app.SecurityScheme{Name: "x", Type: "mutualTLS"}, "3.0.3 rendition could not hold it"},
	} {
		err := app.New().DeclareSecurity(tt.sc)
		require.ErrorIs(t, err, app.ErrInvalidSecurity)
		assert.Contains(t, err.Error(), tt.want)
	}
}
