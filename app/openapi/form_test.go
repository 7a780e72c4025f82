package openapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

type loginForm struct {
	app.In
	User  string `form:"user" validate:"required,max=16"`
	Tries int    `form:"tries" default:"1" validate:"min=1"`
	Next  string `query:"next"`
}

type importForm struct {
	app.In
	File  *app.File   `form:"file" validate:"required"`
	Extra []*app.File `form:"extra" validate:"max=3"`
	Title string      `form:"title"`
}

// TestFormBodies: a form of values may come urlencoded, as multipart or
// as a JSON object, a form with a file as multipart only; files are
// binary strings.
func TestFormBodies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/session", func(context.Context, loginForm) (app.NoContent, error) { return app.NoContent{}, nil })
	app.Post(s, "/todos/import", func(context.Context, importForm) (string, error) { return "", nil })
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		login := at(t, d, "paths", "/session", "post").(doc)
		assert.Equal(t, true, at(t, login, "requestBody", "required"))
		content := at(t, login, "requestBody", "content").(doc)
		assert.Len(t, content, 3)
		for _, mt := range []string{"application/x-www-form-urlencoded", "multipart/form-data", "application/json"} {
			assert.Equal(t, doc{
				"type": "object",
				"properties": doc{
					"user":  doc{"type": "string", "minLength": 1.0, "maxLength": 16.0}, // required: empty is refused
					"tries": doc{"type": "integer", "format": "int64", "minimum": 1.0, "default": 1.0},
				},
				"required": []any{"user"},
			}, at(t, content, mt, "schema"), mt)
		}
		params := login["parameters"].([]any)
		assert.Len(t, params, 1, "form values are not parameters")
		assert.Equal(t, "next", params[0].(doc)["name"])
		for _, status := range []string{"400", "413", "415"} {
			assert.Contains(t, login["responses"], status)
		}

		imp := at(t, d, "paths", "/todos/import", "post").(doc)
		content = at(t, imp, "requestBody", "content").(doc)
		assert.Equal(t, []string{"multipart/form-data"}, keys(content), "a file needs a multipart body")
		assert.Equal(t, doc{
			"type": "object",
			"properties": doc{
				"file":  doc{"type": "string", "format": "binary"},
				"extra": doc{"type": "array", "items": doc{"type": "string", "format": "binary"}, "maxItems": 3.0},
				"title": doc{"type": "string"},
			},
			"required": []any{"file"},
		}, at(t, content, "multipart/form-data", "schema"))
		assert.Equal(t, true, at(t, imp, "requestBody", "required"))
	}
}

func keys(d doc) []string {
	var out []string
	for k := range d {
		out = append(out, k)
	}
	return out
}
