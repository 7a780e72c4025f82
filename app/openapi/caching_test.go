package openapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

type guardedEdit struct {
	app.In
	ID  int               `path:"id"`
	Pre app.Preconditions `header:""`
}

// TestCachingReplies: a GET with ETag lists ETag (and Cache-Control) on
// its 200 and a 304 with the same headers; a route whose input takes
// Preconditions lists If-Match and 412, and one with RequireIfMatch 428,
// in the error shape; a route without them lists none.
func TestCachingReplies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Get(s, "/items/:id", func(context.Context, struct{}) (item, error) { return item{}, nil },
		app.ETag(), app.CacheControl("private, no-cache"))
	app.Patch(s, "/items/:id", func(context.Context, guardedEdit) (item, error) { return item{}, nil })
	app.Delete(s, "/items/:id", func(context.Context, guardedEdit) (app.NoContent, error) { return app.NoContent{}, nil },
		app.RequireIfMatch())
	app.Get(s, "/plain", func(context.Context, struct{}) (item, error) { return item{}, nil })
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		get := at(t, d, "paths", "/items/{id}", "get", "responses").(doc)
		str := doc{"schema": doc{"type": "string"}}
		assert.Equal(t, doc{"ETag": str, "Cache-Control": str}, at(t, get, "200", "headers"))
		assert.Equal(t, doc{"description": "Not Modified", "headers": doc{"ETag": str, "Cache-Control": str}}, get["304"])
		assert.NotContains(t, get, "412")

		patch := at(t, d, "paths", "/items/{id}", "patch").(doc)
		assert.Equal(t, "#/components/schemas/Error", at(t, patch, "responses", "412", "content", "application/json", "schema", "$ref"))
		assert.NotContains(t, patch["responses"], "428")
		assert.NotContains(t, patch["responses"], "304")
		var names []string
		for _, p := range patch["parameters"].([]any) {
			names = append(names, p.(doc)["name"].(string))
		}
		assert.Contains(t, names, "If-Match")

		del := at(t, d, "paths", "/items/{id}", "delete", "responses").(doc)
		assert.Contains(t, del, "412")
		assert.Equal(t, "#/components/schemas/Error", at(t, del, "428", "content", "application/json", "schema", "$ref"))

		plain := at(t, d, "paths", "/plain", "get", "responses").(doc)
		assert.NotContains(t, plain, "304")
		assert.NotContains(t, at(t, plain, "200").(doc), "headers")
	}
}
