package openapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type traced struct {
	app.In
	Trace string `header:"X-Trace" validate:"required"`
}

// TestHookInputIsDocumented: input the server decodes for a hook, the
// route's own or one inherited from its context, is validated (400, 413,
// 415) as the handler's is, so it is documented as the handler's is.
func TestHookInputIsDocumented(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.AddHook(app.PreValidation, func(in traced) error { return nil })
		return s.Post("/items", func(req *httpx.Request) (any, error) { return nil, nil },
			app.WithHook(app.PreHandler, func(q app.Query[page], b app.Body[item]) error { return nil }))
	}, app.Name("hooked"))
	s.Get("/plain", func(req *httpx.Request) (any, error) { return nil, nil })
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		op := at(t, d, "paths", "/items", "post").(doc)
		var names []string
		for _, p := range at(t, op, "parameters").([]any) {
			names = append(names, p.(doc)["in"].(string)+":"+p.(doc)["name"].(string))
		}
		assert.ElementsMatch(t, []string{"query:limit", "query:tag", "header:X-Trace"}, names)
		assert.Equal(t, "#/components/schemas/Item", at(t, op, "requestBody", "content", "application/json", "schema", "$ref"))
		for _, status := range []string{"400", "413", "415"} {
			assert.Contains(t, op["responses"], status)
		}
		plain := at(t, d, "paths", "/plain", "get").(doc)
		assert.NotContains(t, plain, "parameters", "no hook of its context takes input")
		assert.NotContains(t, plain["responses"], "400")
	}

	// What the document says, the server does.
	post := func(target, body string, header ...string) int {
		return apptest.Do(t, s, "POST", target, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, header...)...).StatusCode
	}
	require.Equal(t, http.StatusOK, post("/items?limit=5", `{"title":"x"}`, "X-Trace", "t"))
	assert.Equal(t, http.StatusBadRequest, post("/items?limit=500", `{"title":"x"}`, "X-Trace", "t"), "query")
	assert.Equal(t, http.StatusBadRequest, post("/items", `{"title":""}`, "X-Trace", "t"), "body")
	assert.Equal(t, http.StatusBadRequest, post("/items", `{"title":"x"}`), "header")
	assert.Equal(t, http.StatusUnsupportedMediaType,
		apptest.Do(t, s, "POST", "/items", strings.NewReader("x"), "Content-Type", "image/png", "X-Trace", "t").StatusCode)
}
