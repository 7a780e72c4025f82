package openapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// putItem is an In struct of a typed route: one field per value,
// declared by tag.
type putItem struct {
	app.In
	ID     int    `path:"id"`
	Limit  int    `query:"limit" default:"20" validate:"min=1,max=100"`
	Trace  string `header:"x-trace-id"`
	Accept string `header:"Accept"`
	Sid    string `cookie:"sid" validate:"required"`
	Body   item   `body:""`
}

// TestTypedRouteInStruct: path, query, header, cookie and body fields of
// a typed route's In struct, with default and required.
func TestTypedRouteInStruct(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Put(s, "/items/:id", func(context.Context, putItem) (item, error) { return item{}, nil })
	v31, _ := build(t, s)
	op := at(t, v31, "paths", "/items/{id}", "put").(doc)
	params := op["parameters"].([]any)
	names := []string{}
	for _, p := range params {
		names = append(names, p.(doc)["in"].(string)+":"+p.(doc)["name"].(string))
	}
	assert.Equal(t, []string{"path:id", "query:limit", "header:X-Trace-Id", "cookie:sid"}, names,
		"Accept is described by OpenAPI itself, not as a parameter")
	assert.Equal(t, doc{"name": "limit", "in": "query",
		"schema": doc{"type": "integer", "format": "int64", "minimum": 1.0, "maximum": 100.0, "default": 20.0}}, params[1])
	assert.Equal(t, true, params[3].(doc)["required"])
	assert.Equal(t, "#/components/schemas/ItemInput", at(t, op, "requestBody", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, "#/components/schemas/Item", at(t, op, "responses", "200", "content", "application/json", "schema", "$ref"))
	for _, status := range []string{"400", "404", "413", "415"} {
		assert.Contains(t, op["responses"], status)
	}
}

// TestTypedRouteReplies: Created answers 201 with Location, NoContent
// 204 with no body, Status another success status; struct{} reads no
// input.
func TestTypedRouteReplies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/items", func(context.Context, struct{}) (app.Created[item], error) { return app.Created[item]{}, nil })
	app.Delete(s, "/items/:id", func(context.Context, putItem) (app.NoContent, error) { return app.NoContent{}, nil })
	app.Put(s, "/later", func(context.Context, struct{}) (created, error) { return created{}, nil }, app.Status(202))
	v31, _ := build(t, s)
	post := at(t, v31, "paths", "/items", "post").(doc)
	assert.Equal(t, "#/components/schemas/Item", at(t, post, "responses", "201", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, doc{"schema": doc{"type": "string"}}, at(t, post, "responses", "201", "headers", "Location"))
	assert.NotContains(t, post["responses"], "200")
	assert.NotContains(t, post["responses"], "400", "struct{}: no input, nothing to refuse")
	assert.NotContains(t, post, "parameters")
	assert.Equal(t, doc{"description": "No Content"}, at(t, v31, "paths", "/items/{id}", "delete", "responses", "204"))
	later := at(t, v31, "paths", "/later", "put", "responses").(doc)
	assert.Contains(t, later, "202")
	assert.NotContains(t, later, "200")
}
