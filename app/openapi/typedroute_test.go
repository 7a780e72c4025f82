package openapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestRedirectReplies: a route answering app.Redirect documents its
// redirect status, 303 or its Status, with the Location header and no
// body — and no 200, which it never sends.
func TestRedirectReplies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/login", func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: "/"}, nil })
	app.Get(s, "/old", func(context.Context, struct{}) (app.Redirect, error) { return app.Redirect{Location: "/"}, nil }, app.Status(308))
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		login := at(t, d, "paths", "/login", "post", "responses").(doc)
		assert.Equal(t, doc{"description": "See Other", "headers": doc{"Location": doc{"schema": doc{"type": "string"}}}}, login["303"])
		assert.NotContains(t, login, "200")
		old := at(t, d, "paths", "/old", "get", "responses").(doc)
		assert.Equal(t, doc{"description": "Permanent Redirect", "headers": doc{"Location": doc{"schema": doc{"type": "string"}}}}, old["308"])
		assert.NotContains(t, old, "200")
		assert.NotContains(t, old, "303")
	}
}

type withDefaults struct {
	Name string `json:"name" default:"anon"`
	N    int    `json:"n" default:"3"`
}

type defaultsIn struct {
	app.In
	Tags  []string     `query:"tag" default:"a,b"`
	Nums  []int        `query:"n" default:"7"`
	Level *int         `header:"X-Level" default:"2"`
	Body  withDefaults `body:""`
}

// TestDefaultsAreWhatTheServerApplies: the document's defaults are the
// values the handler gets when the client sends nothing. A slice's
// default is one item, its whole text (commas included), as the server
// applies it; a body member has no default, as the JSON decoder applies
// none.
func TestDefaultsAreWhatTheServerApplies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/d", func(_ context.Context, in defaultsIn) (map[string]any, error) {
		return map[string]any{"tag": in.Tags, "n": in.Nums, "level": *in.Level, "body": in.Body}, nil
	})
	v31, v30 := build(t, s)
	res := apptest.Do(t, s, "POST", "/d", strings.NewReader(`{}`), "Content-Type", "application/json")
	require.Equal(t, 200, res.StatusCode, res.Body)
	var got map[string]any
	res.JSON(t, &got)
	for _, d := range []doc{v31, v30} {
		params := at(t, d, "paths", "/d", "post", "parameters").([]any)
		require.Len(t, params, 3)
		assert.Equal(t, got["tag"], at(t, params[0], "schema", "default"), "the document says what the handler gets")
		assert.Equal(t, []any{"a,b"}, at(t, params[0], "schema", "default"))
		assert.Equal(t, got["n"], at(t, params[1], "schema", "default"))
		assert.Equal(t, got["level"], at(t, params[2], "schema", "default"))
		for _, name := range []string{"name", "n"} {
			assert.NotContains(t, at(t, d, "components", "schemas", "WithDefaults", "properties", name), "default",
				"no default is applied to a body member")
		}
	}
	assert.Equal(t, map[string]any{"name": "", "n": 0.0}, got["body"], "the body's default tags do nothing")
}

type itemBatch struct {
	app.In
	Body []item `body:"" validate:"required,min=1,max=50"`
}

// note has no required field: only its body field makes it required.
type note struct {
	Text string `json:"text"`
}

type requiredNote struct {
	app.In
	Body note `body:"" validate:"required"`
}

// TestBodyFieldRules: rules on a body field itself are the body's
// schema's (an array's minItems and maxItems), and required makes the
// request body required; a named type's shared schema is left alone.
func TestBodyFieldRules(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/items/batch", func(context.Context, itemBatch) (int, error) { return 0, nil })
	app.Post(s, "/notes", func(context.Context, requiredNote) (int, error) { return 0, nil })
	v31, _ := build(t, s)
	batch := at(t, v31, "paths", "/items/batch", "post", "requestBody").(doc)
	assert.Equal(t, true, batch["required"])
	assert.Equal(t, doc{"type": "array", "items": doc{"$ref": "#/components/schemas/Item"}, "minItems": 1.0, "maxItems": 50.0},
		at(t, batch, "content", "application/json", "schema"))
	one := at(t, v31, "paths", "/notes", "post", "requestBody").(doc)
	assert.Equal(t, true, one["required"])
	assert.Equal(t, doc{"$ref": "#/components/schemas/Note"}, at(t, one, "content", "application/json", "schema"))
}

type paging struct {
	Limit int `query:"limit" default:"20" validate:"min=1,max=100"`
	Page  int `query:"page"`
}

type ownerFilter struct {
	Owner string `header:"x-owner" validate:"required"`
}

type listItems struct {
	app.In
	ownerFilter
	Paging paging `query:""`
}

// TestComposedInStruct: a group (query:"") and an embedded struct are
// documented as their values, one parameter each, with their rules.
func TestComposedInStruct(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Get(s, "/items", func(context.Context, listItems) (int, error) { return 0, nil })
	v31, _ := build(t, s)
	params := at(t, v31, "paths", "/items", "get", "parameters").([]any)
	assert.Equal(t, []any{
		doc{"name": "X-Owner", "in": "header", "required": true, "schema": doc{"type": "string", "minLength": 1.0}},
		doc{"name": "limit", "in": "query", "schema": doc{"type": "integer", "format": "int64", "minimum": 1.0, "maximum": 100.0, "default": 20.0}},
		doc{"name": "page", "in": "query", "schema": doc{"type": "integer", "format": "int64"}},
	}, params)
}
