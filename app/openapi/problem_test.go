package openapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// The document describes Burrow's answers in the shape the server sends
// them: problem details (application/problem+json, schema Problem) on a
// server with WithProblemDetails, ErrorBody (application/json, schema
// Error) otherwise; a reply declared as an httpx.Problem is problem+json
// on either.
func TestErrorResponsesFollowTheServersShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		opts                  []app.Option
		mediaType, schema, no string // no: a schema the document must not have
	}{
		{"default", nil, "application/json", "Error", ""}, // Problem is the 409's
		{"problem details", []app.Option{app.WithProblemDetails()}, "application/problem+json", "Problem", "Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t, tt.opts...)
			require.NoError(t, app.Post(s, "/e/:id", func(_ context.Context, in everywhere) (item, error) { return in.Body, nil },
				app.Responds(http.StatusConflict, httpx.Problem{})))
			v31, v30 := build(t, s)
			for _, d := range []doc{v31, v30} {
				for _, name := range []string{"BadRequest", "NotFound", "PayloadTooLarge", "UnsupportedMediaType"} {
					content := at(t, d, "components", "responses", name, "content").(doc)
					assert.Len(t, content, 1, name)
					assert.Equal(t, "#/components/schemas/"+tt.schema, at(t, content, tt.mediaType, "schema", "$ref"), name)
				}
				if tt.no != "" {
					assert.NotContains(t, at(t, d, "components", "schemas").(doc), tt.no)
				}
				assert.Equal(t, "#/components/schemas/Problem",
					at(t, d, "paths", "/e/{id}", "post", "responses", "409", "content", "application/problem+json", "schema", "$ref"))
			}
			assert.Equal(t, []any{"type", "title", "status"}, at(t, v31, "components", "schemas", "Problem", "required"))
			assert.Contains(t, at(t, v31, "components", "schemas", "Problem", "properties").(doc), "validation")
			assert.Contains(t, at(t, v31, "components", "responses", "BadRequest", "description"), map[string]string{
				"Error": "the message says more", "Problem": "the detail says more"}[tt.schema])

			// The server answers as described.
			res := apptest.Do(t, s, "POST", "/e/x", strings.NewReader(`{}`), "Content-Type", "application/json")
			require.Equal(t, http.StatusBadRequest, res.StatusCode, res.Body)
			mt, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
			assert.Equal(t, tt.mediaType, mt)
			var body struct {
				Validation []httpx.FieldError `json:"validation"`
			}
			res.JSON(t, &body)
			assert.NotEmpty(t, body.Validation)
			res = apptest.Do(t, s, "GET", "/nowhere", nil)
			require.Equal(t, http.StatusNotFound, res.StatusCode)
			mt, _, _ = strings.Cut(res.Header.Get("Content-Type"), ";")
			assert.Equal(t, tt.mediaType, mt)
			assert.Contains(t, res.Body, `"Route GET:/nowhere not found"`)
		})
	}
}
