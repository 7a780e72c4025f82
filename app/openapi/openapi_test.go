package openapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

func TestMain(m *testing.M) { apptest.Main(m) }

type doc = map[string]any

// build readies s and returns its whole document, 3.1 and 3.0.3, decoded.
func build(t *testing.T, s *app.Server) (v31, v30 doc) {
	t.Helper()
	require.NoError(t, s.Ready())
	d, err := openapi.Build(s.Routes(), openapi.Info{Title: "t"})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(d.JSON(), &v31))
	require.NoError(t, json.Unmarshal(d.JSON30(), &v30))
	return v31, v30
}

// at walks a decoded document along keys (object members or array
// indexes written as numbers) and fails the test if one is missing.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		switch x := v.(type) {
		case doc:
			var ok bool
			v, ok = x[k]
			require.True(t, ok, "no %q among %v (path %v)", k, keysOf(x), keys)
		case []any:
			i, err := strconv.Atoi(k)
			require.True(t, err == nil && i >= 0 && i < len(x), "no index %s (path %v)", k, keys)
			v = x[i]
		default:
			require.Failf(t, "not a container", "at %q of %v: %v", k, keys, v)
		}
	}
	return v
}

func keysOf(m doc) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func has(v any, key string) bool {
	m, ok := v.(doc)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

func ok(v any) (any, error) { return v, nil }

// TestSecurityFollowsEncapsulation: a route carries bearer's requirement
// exactly when it can see the plugin, with nothing written on the routes.
func TestSecurityFollowsEncapsulation(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Get("/open", func() (string, error) { return "", nil })
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		s.Get("/guarded", func() (string, error) { return "", nil })
		return s.Register(func(s *app.Server) error {
			return s.Get("/guarded/deeper", func() (string, error) { return "", nil })
		})
	}, app.Name("auth"))
	s.Register(func(s *app.Server) error {
		return s.Get("/sibling", func() (string, error) { return "", nil })
	}, app.Name("public"))
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		for path, guarded := range map[string]bool{"/open": false, "/guarded": true, "/guarded/deeper": true, "/sibling": false} {
			sec := at(t, d, "paths", path, "get", "security").([]any)
			if guarded {
				assert.Equal(t, []any{doc{"bearerAuth": []any{}}}, sec, path)
				assert.True(t, has(at(t, d, "paths", path, "get", "responses"), "401"), path)
			} else {
				assert.Empty(t, sec, path)
				assert.False(t, has(at(t, d, "paths", path, "get", "responses"), "401"), path)
			}
		}
		assert.Equal(t, doc{"type": "http", "scheme": "bearer"}, at(t, d, "components", "securitySchemes", "bearerAuth"))
	}
}

// TestPerContextDocument: a context's plugin documents its subtree only,
// with only the schemes its routes see; the root's documents everything.
func TestPerContextDocument(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "all"}))
	s.Register(func(s *app.Server) error {
		s.Register(openapi.Plugin(openapi.Info{Title: "public"}))
		return s.Get("/items", func() (string, error) { return "", nil })
	}, app.Name("public"), app.Prefix("/public"))
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		s.Register(openapi.Plugin(openapi.Info{Title: "admin"}))
		return s.Delete("/items/:id", func() error { return nil })
	}, app.Name("admin"), app.Prefix("/admin"))

	read := func(target string) doc {
		res := apptest.Get(t, s, target, "Authorization", "Bearer k")
		require.Equal(t, 200, res.StatusCode, res.Body)
		assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
		var d doc
		res.JSON(t, &d)
		return d
	}
	all, public, admin := read("/openapi.json"), read("/public/openapi.json"), read("/admin/openapi.json")
	assert.ElementsMatch(t, []string{"/public/items", "/admin/items/{id}"}, keysOf(at(t, all, "paths").(doc)),
		"the plugin's own routes are left out")
	assert.ElementsMatch(t, []string{"/public/items"}, keysOf(at(t, public, "paths").(doc)))
	assert.ElementsMatch(t, []string{"/admin/items/{id}"}, keysOf(at(t, admin, "paths").(doc)))
	assert.False(t, has(public["components"], "securitySchemes"), "public's routes see no scheme")
	assert.True(t, has(at(t, admin, "components"), "securitySchemes"))
	assert.Equal(t, "admin", at(t, admin, "info", "title"))
	assert.Equal(t, 401, apptest.Get(t, s, "/admin/openapi.json").StatusCode,
		"the admin document is served in the admin context: its guard applies")
	assert.Equal(t, "3.0.3", at(t, func() doc {
		var d doc
		apptest.Get(t, s, "/admin/openapi-3.0.json", "Authorization", "Bearer k").JSON(t, &d)
		return d
	}(), "openapi"))
}

type address struct {
	City string `json:"city" validate:"required"`
}

type rules struct {
	Name    string            `json:"name" validate:"required,min=2,max=64"`
	Email   string            `json:"email" validate:"required,format=email"`
	Role    string            `json:"role,omitempty" validate:"enum=admin|member"`
	Code    string            `json:"code,omitempty" pattern:"^[A-Z]{3}$"`
	Tags    []string          `json:"tags,omitempty" validate:"max=5"`
	Age     int               `json:"age" validate:"min=0,max=150"`
	Pin     string            `json:"pin,omitempty" validate:"len=4"`
	Labels  map[string]string `json:"labels,omitempty" validate:"max=3"`
	Size    float64           `json:"size" validate:"gte=1.5"`
	Kind    string            `json:"kind,omitempty" validate:"oneof=a b"`
	Site    string            `json:"site,omitempty" validate:"url"`
	Avatar  string            `json:"avatar,omitempty" validate:"format=weblink"`
	Note    *string           `json:"note"`
	Home    *address          `json:"home,omitempty"`
	Work    address           `json:"work"`
	Born    time.Time         `json:"born"`
	Raw     []byte            `json:"raw,omitempty"`
	Skipped string            `json:"-"`
	Count   int64             `json:"count,string"`
}

// TestSchemaFromTypesAndRules: validate, pattern and JSON tags map to
// JSON Schema keywords, named structs to components.
func TestSchemaFromTypesAndRules(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/rules", func(b app.Body[rules]) error { return nil })
	v31, v30 := build(t, s)
	props := at(t, v31, "components", "schemas", "Rules", "properties").(doc)
	tests := []struct {
		field string
		want  doc
	}{
		{"name", doc{"type": "string", "minLength": 2.0, "maxLength": 64.0}},
		{"email", doc{"type": "string", "format": "email", "minLength": 1.0}},
		{"role", doc{"type": "string", "enum": []any{"admin", "member"}}},
		{"code", doc{"type": "string", "pattern": "^[A-Z]{3}$"}},
		{"tags", doc{"type": "array", "items": doc{"type": "string"}, "maxItems": 5.0}},
		{"age", doc{"type": "integer", "format": "int64", "minimum": 0.0, "maximum": 150.0}},
		{"pin", doc{"type": "string", "minLength": 4.0, "maxLength": 4.0}},
		{"labels", doc{"type": "object", "additionalProperties": doc{"type": "string"}, "maxProperties": 3.0}},
		{"size", doc{"type": "number", "format": "double", "minimum": 1.5}},
		{"kind", doc{"type": "string", "enum": []any{"a", "b"}}},
		{"site", doc{"type": "string", "format": "uri"}},
		{"avatar", doc{"type": "string", "format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"}},
		{"note", doc{"type": []any{"string", "null"}}},
		{"home", doc{"oneOf": []any{doc{"$ref": "#/components/schemas/Address"}, doc{"type": "null"}}}},
		{"work", doc{"$ref": "#/components/schemas/Address"}},
		{"born", doc{"type": "string", "format": "date-time"}},
		{"raw", doc{"type": "string", "contentEncoding": "base64"}},
		{"count", doc{"type": "string"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, props[tt.field], tt.field)
	}
	assert.NotContains(t, props, "Skipped")
	assert.NotContains(t, props, "-")
	assert.Equal(t, []any{"name", "email"}, at(t, v31, "components", "schemas", "Rules", "required"),
		"a request property is required when validate says so")
	assert.Equal(t, true, at(t, v31, "paths", "/rules", "post", "requestBody", "required"))
	assert.Equal(t, []any{"city"}, at(t, v31, "components", "schemas", "Address", "required"))

	// The 3.0.3 rendition says the same in draft 4's words.
	props30 := at(t, v30, "components", "schemas", "Rules", "properties").(doc)
	assert.Equal(t, doc{"type": "string", "nullable": true}, props30["note"])
	assert.Equal(t, doc{"allOf": []any{doc{"$ref": "#/components/schemas/Address"}}, "nullable": true, "type": "object"}, props30["home"],
		"3.0 reads nullable only beside a type: the referenced schema's")
	assert.Equal(t, doc{"type": "string", "format": "byte"}, props30["raw"])
	assert.Equal(t, "3.0.3", v30["openapi"])
	assert.Equal(t, "3.1.0", v31["openapi"])
}

type item struct {
	ID    int    `json:"id"`
	Title string `json:"title" validate:"required"`
	Done  bool   `json:"done,omitempty"`
}

// listed is read and written alike: its required list holds no string,
// bool or number whose zero the request form would refuse.
type listed struct {
	Lines []string `json:"lines" validate:"required"`
	Note  string   `json:"note,omitempty"`
}

// TestRequestAndReplyForms: a type whose request form (required by
// validate) differs from its reply form (required unless omitempty) gets
// two components; one that does not, one.
func TestRequestAndReplyForms(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/items", func(b app.Body[item]) (item, error) { return b.Value, nil })
	s.Post("/rules", func(b app.Body[listed]) (listed, error) { return b.Value, nil })
	v31, _ := build(t, s)
	assert.Equal(t, []any{"id", "title"}, at(t, v31, "components", "schemas", "Item", "required"))
	assert.Equal(t, []any{"title"}, at(t, v31, "components", "schemas", "ItemInput", "required"))
	assert.Equal(t, "#/components/schemas/ItemInput", at(t, v31, "paths", "/items", "post", "requestBody", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, "#/components/schemas/Item", at(t, v31, "paths", "/items", "post", "responses", "200", "content", "application/json", "schema", "$ref"))
	schemas := at(t, v31, "components", "schemas").(doc)
	assert.Contains(t, schemas, "Listed")
	assert.NotContains(t, schemas, "ListedInput")
}

type page struct {
	Limit int      `query:"limit" validate:"min=1,max=100"`
	Tag   []string `query:"tag"`
}

type ids struct {
	ID int `param:"id" validate:"min=1"`
}

// TestParametersFromSignature: Query and Params fields, a path parameter
// the handler does not decode, the wildcard.
func TestParametersFromSignature(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Get("/users/:id/posts", func(q app.Query[page], p app.Params[ids]) ([]item, error) { return nil, nil })
	s.Get("/raw/:name", func(req *httpx.Request) (any, error) { return req.Param("name"), nil })
	s.Get("/files/*", func(req *httpx.Request) (any, error) { return nil, nil })
	v31, _ := build(t, s)
	params := at(t, v31, "paths", "/users/{id}/posts", "get", "parameters").([]any)
	require.Len(t, params, 3)
	assert.Equal(t, doc{"name": "id", "in": "path", "required": true,
		"schema": doc{"type": "integer", "format": "int64", "minimum": 1.0}}, params[0], "path parameters first")
	assert.Equal(t, doc{"name": "limit", "in": "query",
		"schema": doc{"type": "integer", "format": "int64", "minimum": 1.0, "maximum": 100.0}}, params[1])
	assert.Equal(t, doc{"name": "tag", "in": "query", "schema": doc{"type": "array", "items": doc{"type": "string"}}}, params[2])
	responses := at(t, v31, "paths", "/users/{id}/posts", "get", "responses").(doc)
	assert.Equal(t, "#/components/responses/BadRequest", at(t, responses, "400", "$ref"), "typed input may be refused")
	assert.Contains(t, responses, "404", "a path parameter too long to match is a 404")
	assert.NotContains(t, responses, "413", "no body, no 413")

	raw := at(t, v31, "paths", "/raw/{name}", "get").(doc)
	assert.Equal(t, []any{doc{"name": "name", "in": "path", "required": true, "schema": doc{"type": "string"}}}, raw["parameters"])
	assert.NotContains(t, raw["responses"], "400", "nothing typed: Burrow refuses nothing")
	wild := at(t, v31, "paths", "/files/{wildcard}", "get", "parameters", "0").(doc)
	assert.Equal(t, "wildcard", wild["name"])
	assert.Equal(t, "getFilesWildcard", at(t, v31, "paths", "/files/{wildcard}", "get", "operationId"))
}

type created struct {
	ID int `json:"id"`
}

// TestRespondsAndMetadata: declared responses replace and add to what the
// signature says; metadata options land on the operation.
func TestRespondsAndMetadata(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/things", func(b app.Body[item]) (item, error) { return b.Value, nil },
		app.Responds(201, created{}, "location"), app.Responds(409, httpx.ErrorBody{}), app.Responds(200, nil),
		app.OperationID("createThing"), app.Summary("Create a thing"), app.Description("Makes *one*."),
		app.Tags("things", "write", "things"), app.Deprecated())
	s.Delete("/things/:id", func() error { return nil }, app.Responds(204, nil), app.Tags("things"))
	s.Get("/hidden", func() error { return nil }, app.Undocumented())
	v31, _ := build(t, s)
	op := at(t, v31, "paths", "/things", "post").(doc)
	assert.Equal(t, "createThing", op["operationId"])
	assert.Equal(t, "Create a thing", op["summary"])
	assert.Equal(t, "Makes *one*.", op["description"])
	assert.Equal(t, []any{"things", "write"}, op["tags"])
	assert.Equal(t, true, op["deprecated"])
	res := op["responses"].(doc)
	assert.Equal(t, doc{"description": "OK"}, res["200"], "Responds(200, nil) replaces the signature's 200")
	assert.Equal(t, "#/components/schemas/Created", at(t, res, "201", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, doc{"schema": doc{"type": "string"}}, at(t, res, "201", "headers", "Location"))
	assert.Equal(t, "#/components/schemas/Error", at(t, res, "409", "content", "application/json", "schema", "$ref"))
	del := at(t, v31, "paths", "/things/{id}", "delete", "responses", "204").(doc)
	assert.Equal(t, doc{"description": "No Content"}, del)
	assert.Equal(t, "deleteThingsById", at(t, v31, "paths", "/things/{id}", "delete", "operationId"))
	assert.Equal(t, []any{doc{"name": "things"}, doc{"name": "write"}}, v31["tags"])
	assert.NotContains(t, v31["paths"], "/hidden")
}

// TestRespondsAs: a reply declared with its media type is documented
// with it; the schema is the body type's for JSON, a string for text,
// and anything for bytes.
func TestRespondsAs(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Get("/events", func() error { return nil }, app.RespondsAs(200, "text/event-stream", nil))
	s.Get("/export", func() error { return nil }, app.RespondsAs(200, "text/csv", "", "Content-Disposition"))
	s.Get("/file", func() error { return nil }, app.RespondsAs(200, "application/octet-stream", nil))
	s.Get("/item", func() error { return nil }, app.RespondsAs(200, "application/merge-patch+json", item{}))
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		assert.Equal(t, doc{"text/event-stream": doc{"schema": doc{"type": "string"}}}, at(t, d, "paths", "/events", "get", "responses", "200", "content"))
		assert.Equal(t, doc{"text/csv": doc{"schema": doc{"type": "string"}}}, at(t, d, "paths", "/export", "get", "responses", "200", "content"))
		assert.Equal(t, doc{"schema": doc{"type": "string"}}, at(t, d, "paths", "/export", "get", "responses", "200", "headers", "Content-Disposition"))
		assert.Equal(t, doc{"application/octet-stream": doc{"schema": doc{}}}, at(t, d, "paths", "/file", "get", "responses", "200", "content"))
		assert.Equal(t, "#/components/schemas/Item", at(t, d, "paths", "/item", "get", "responses", "200", "content",
			"application/merge-patch+json", "schema", "$ref"))
	}
}

// TestDuplicateOperationIDFailsReady: two routes with one id cannot be in
// one document; the plugin says so at Ready.
func TestDuplicateOperationIDFailsReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Register(openapi.Plugin(openapi.Info{}))
	s.Get("/a", func() error { return nil }, app.OperationID("same"))
	s.Get("/b", func() error { return nil }, app.OperationID("same"))
	err := s.Ready()
	require.Error(t, err)
	assert.True(t, errors.Is(err, openapi.ErrDocument), err.Error())
	assert.Contains(t, err.Error(), `operation id "same" is also GET /a (root)'s`)
	assert.True(t, strings.HasPrefix(err.Error(), "onReady hook in root: cannot build the OpenAPI document: "),
		"the context is named once: %s", err)
}

// TestDeterministic: two servers built alike give the same bytes.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	once := func() []byte {
		return documentBytes(t, func(s *app.Server) {
			s.Post("/rules", func(b app.Body[rules]) (item, error) { return item{}, nil })
			s.Get("/users/:id/posts", func(q app.Query[page], p app.Params[ids]) ([]item, error) { return nil, nil })
			s.Register(func(s *app.Server) error {
				s.Register(bearer.Plugin(bearer.Keys("k")))
				return s.Put("/items/:id", func(p app.Params[ids], b app.Body[item]) error { return nil }, app.Tags("b", "a"))
			})
		})
	}
	first := once()
	for range 5 {
		assert.Equal(t, string(first), string(once()))
	}
}

// documentBytes builds the document of a server given its routes by
// routes: both renditions, one after the other.
func documentBytes(t *testing.T, routes func(s *app.Server)) []byte {
	t.Helper()
	s := apptest.New(t)
	routes(s)
	require.NoError(t, s.Ready())
	d, err := openapi.Build(s.Routes(), openapi.Info{})
	require.NoError(t, err)
	return append(append(d.JSON(), d.JSON32()...), d.JSON30()...)
}

// TestDocsPage: the page is one self-contained document, that lists the
// operations, and whose embedded document cannot end its script block.
func TestDocsPage(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "<Things & co>", Description: "</script><script>alert(1)</script>"}))
	s.Get("/x", func() error { return nil }, app.Summary("</script><b>"), app.OperationID("getX"))
	res := apptest.Get(t, s, "/docs")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	csp := res.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "script-src 'sha256-")
	assert.NotContains(t, res.Body, "http://")
	assert.NotContains(t, res.Body, "https://", "no CDN: nothing is fetched")
	assert.Contains(t, res.Body, "<title>&lt;Things &amp; co&gt;</title>")
	assert.Equal(t, 2, strings.Count(res.Body, "</script>"), "the data block and the script end once each")
	assert.Contains(t, res.Body, `\u003c/script\u003e\u003cb\u003e`)
	assert.Contains(t, res.Body, `"operationId": "getX"`)
}

// TestServedDocumentMatchesBuild: the plugin serves what Build makes of
// every route, including those registered after the plugin.
func TestServedDocumentMatchesBuild(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "t"}))
	s.Get("/later", func() (any, error) { return ok(1) })
	served := apptest.Get(t, s, "/openapi.json")
	d, err := openapi.Build(s.Routes(), openapi.Info{Title: "t"})
	require.NoError(t, err)
	assert.Equal(t, string(d.JSON()), served.Body)
	served30 := apptest.Get(t, s, "/openapi-3.0.json")
	assert.Equal(t, string(d.JSON30()), served30.Body)
}

func TestPathsOption(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{}, openapi.Paths("/spec.json", "", "/help")))
	assert.Equal(t, 200, apptest.Get(t, s, "/spec.json").StatusCode)
	help := apptest.Get(t, s, "/help")
	assert.Equal(t, 200, help.StatusCode)
	assert.Contains(t, help.Body, `<a href="/spec.json">`)
	assert.Equal(t, 404, apptest.Get(t, s, "/openapi-3.0.json").StatusCode)

	bad := app.New()
	err := bad.Register(openapi.Plugin(openapi.Info{}, openapi.Paths("spec.json", "", "")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `path "spec.json" must start with /`)
}

// FieldError has the name of httpx.FieldError, which Burrow's error body
// holds. Its request and reply forms are one.
type FieldError struct {
	Field string `json:"field,omitempty"`
}

// TestComponentNamesOfTwoPackages: types of one name from two packages
// are told apart by their package, the same way every time.
func TestComponentNamesOfTwoPackages(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/x", func(b app.Body[FieldError]) (FieldError, error) { return b.Value, nil })
	v31, _ := build(t, s)
	schemas := at(t, v31, "components", "schemas").(doc)
	assert.Contains(t, schemas, "openapi_test.FieldError")
	assert.Contains(t, schemas, "httpx.FieldError")
	assert.NotContains(t, schemas, "FieldError")
	assert.Equal(t, "#/components/schemas/httpx.FieldError", at(t, schemas, "Error", "properties", "validation", "items", "$ref"))
	assert.Equal(t, "#/components/schemas/openapi_test.FieldError", at(t, v31, "paths", "/x", "post", "requestBody", "content", "application/json", "schema", "$ref"))
}

// Error has the name Burrow gives its own error body's schema. Its
// request and reply forms are one.
type Error struct {
	Reason string `json:"reason,omitempty"`
}

// TestUserTypeNamedError: a type of the user's named Error gets another
// name, Burrow's error body keeps "Error", each reference leads to its
// own schema, and the document is the same every time.
func TestUserTypeNamedError(t *testing.T) {
	t.Parallel()
	routes := func(s *app.Server) {
		s.Post("/x", func(b app.Body[Error]) (Error, error) { return b.Value, nil })
	}
	first := documentBytes(t, routes)
	for range 10 {
		require.Equal(t, string(first), string(documentBytes(t, routes)))
	}
	s := apptest.New(t)
	routes(s)
	v31, _ := build(t, s)
	schemas := at(t, v31, "components", "schemas").(doc)
	assert.Contains(t, at(t, schemas, "Error", "properties"), "statusCode", "Burrow's error body keeps its name")
	assert.Contains(t, at(t, schemas, "Error", "properties"), "validation")
	for _, where := range [][]string{
		{"requestBody", "content", "application/json", "schema", "$ref"},
		{"responses", "200", "content", "application/json", "schema", "$ref"},
	} {
		ref := at(t, v31, append([]string{"paths", "/x", "post"}, where...)...).(string)
		name, ok := strings.CutPrefix(ref, "#/components/schemas/")
		require.True(t, ok, ref)
		assert.NotEqual(t, "Error", name)
		assert.Equal(t, doc{"reason": doc{"type": "string"}}, at(t, schemas, name, "properties"), "the user's reference leads to the user's schema")
	}
}

// keywords has members named like the JSON Schema keywords the 3.0.3
// rendition rewrites.
type keywords struct {
	Const           string  `json:"const"`
	Type            *string `json:"type"`
	OneOf           []int   `json:"oneOf"`
	ContentEncoding []byte  `json:"contentEncoding"`
	Nullable        bool    `json:"nullable"`
}

// TestDowngradeLeavesPropertyNamesAlone: the 3.0.3 rendition rewrites
// schemas, not the names of a type's members.
func TestDowngradeLeavesPropertyNamesAlone(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Get("/k", func() (keywords, error) { return keywords{}, nil })
	_, v30 := build(t, s)
	assert.Equal(t, doc{
		"const":           doc{"type": "string"},
		"type":            doc{"type": "string", "nullable": true},
		"oneOf":           doc{"type": "array", "items": doc{"type": "integer", "format": "int64"}},
		"contentEncoding": doc{"type": "string", "format": "byte"},
		"nullable":        doc{"type": "boolean"},
	}, at(t, v30, "components", "schemas", "Keywords", "properties"))
}

type (
	status string
	blob   []byte
)

// TestNamedStringAndBytesAreJSON: only string and []byte themselves are
// read and sent as text and bytes; a type of the user's made of them is
// JSON, in the document as on the wire.
func TestNamedStringAndBytesAreJSON(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/status", func(b app.Body[status]) (status, error) { return b.Value, nil })
	s.Post("/blob", func(b app.Body[blob]) (blob, error) { return b.Value, nil })
	s.Post("/text", func(b app.Body[string]) (string, error) { return b.Value, nil })
	s.Post("/bytes", func(b app.Body[[]byte]) ([]byte, error) { return b.Value, nil })
	v31, _ := build(t, s)
	for _, tt := range []struct {
		path, body, in, out string
		schema              doc
	}{
		{"/status", `"on"`, "application/json", "application/json", doc{"type": "string"}},
		{"/blob", `"AQI="`, "application/json", "application/json", doc{"type": "string", "contentEncoding": "base64"}},
		{"/text", "on", "text/plain", "text/plain", doc{"type": "string"}},
		{"/bytes", "\x01\x02", "text/plain", "application/octet-stream", nil},
	} {
		op := at(t, v31, "paths", tt.path, "post").(doc)
		assert.Equal(t, []string{tt.in}, keysOf(at(t, op, "requestBody", "content").(doc)), tt.path)
		assert.Equal(t, []string{tt.out}, keysOf(at(t, op, "responses", "200", "content").(doc)), tt.path)
		if tt.schema != nil {
			assert.Equal(t, tt.schema, at(t, op, "requestBody", "content", tt.in, "schema"), tt.path)
			assert.Equal(t, tt.schema, at(t, op, "responses", "200", "content", tt.out, "schema"), tt.path)
		}
		res := apptest.Do(t, s, "POST", tt.path, strings.NewReader(tt.body), "Content-Type", tt.in)
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s: the server reads what the document says: %s", tt.path, res.Body)
		assert.Equal(t, tt.body, res.Body, tt.path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), tt.out), "%s: the server sends what the document says: %s",
			tt.path, res.Header.Get("Content-Type"))
	}
}

type nullables struct {
	Must  *string  `json:"must" validate:"required"`
	Home  *address `json:"home" validate:"required"`
	Maybe *string  `json:"maybe" validate:"enum=a|b"`
}

type pointerParams struct {
	app.In
	Level *int      `header:"X-Level"`
	Sid   *string   `cookie:"sid"`
	Body  nullables `body:""`
}

// TestNullFollowsWhatIsRefused: a required pointer is refused when null,
// so its request schema does not allow null; a pointer that may be null
// lists null among its enum's values, or JSON Schema would refuse it
// anyway; a pointer header or cookie is absent, never null.
func TestNullFollowsWhatIsRefused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Post(s, "/n", func(_ context.Context, in pointerParams) (nullables, error) { return in.Body, nil })
	v31, v30 := build(t, s)
	input := at(t, v31, "components", "schemas", "NullablesInput", "properties").(doc)
	assert.Equal(t, doc{"type": "string"}, input["must"])
	assert.Equal(t, doc{"$ref": "#/components/schemas/AddressInput"}, input["home"],
		"a reference, not null; to the request form, whose required city must not be empty")
	assert.Equal(t, doc{"type": []any{"string", "null"}, "enum": []any{"a", "b", nil}}, input["maybe"])
	reply := at(t, v31, "components", "schemas", "Nullables", "properties").(doc)
	assert.Equal(t, doc{"type": []any{"string", "null"}}, reply["must"], "a reply's nil pointer is written null")
	assert.Equal(t, doc{"type": "string", "nullable": true, "enum": []any{"a", "b", nil}},
		at(t, v30, "components", "schemas", "NullablesInput", "properties", "maybe"))
	for i, want := range []doc{
		{"name": "X-Level", "in": "header", "schema": doc{"type": "integer", "format": "int64"}},
		{"name": "sid", "in": "cookie", "schema": doc{"type": "string"}},
	} {
		assert.Equal(t, want, at(t, v31, "paths", "/n", "post", "parameters", strconv.Itoa(i)))
	}

	post := func(body string) int {
		return apptest.Do(t, s, "POST", "/n", strings.NewReader(body), "Content-Type", "application/json").StatusCode
	}
	assert.Equal(t, 400, post(`{"must":null,"home":{"city":"x"}}`), "what the input schema refuses, the server refuses")
	assert.Equal(t, 400, post(`{"must":"x","home":null}`))
	assert.Equal(t, 200, post(`{"must":"x","home":{"city":"x"},"maybe":null}`), "what it allows, the server takes")
}

type (
	audited struct {
		By string `json:"by" validate:"required"`
	}
	promoted struct {
		audited
		Note string `json:"note"`
	}
	nestedValue struct {
		Work address `json:"work"`
	}
	nestedPointer struct {
		Home *address `json:"home"`
	}
	boundedCount struct {
		N int `json:"n" validate:"min=1"`
	}
)

// TestBodyRequiredWhenNothingFails: a body is documented required exactly
// when the server refuses a request without one, whose zero value then
// fails validation: a required field promoted from an embedded struct,
// a nested struct value with one, a number whose zero is out of bounds.
func TestBodyRequiredWhenNothingFails(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/promoted", func(app.Body[promoted]) error { return nil })
	s.Post("/nested", func(app.Body[nestedValue]) error { return nil })
	s.Post("/pointer", func(app.Body[nestedPointer]) error { return nil })
	s.Post("/bounded", func(app.Body[boundedCount]) error { return nil })
	s.Post("/list", func(app.Body[[]address]) error { return nil })
	v31, _ := build(t, s)
	for path, required := range map[string]bool{"/promoted": true, "/nested": true, "/pointer": false, "/bounded": true, "/list": false} {
		rb := at(t, v31, "paths", path, "post", "requestBody").(doc)
		assert.Equal(t, required, rb["required"] == true, "%s: documented required", path)
		res := apptest.Do(t, s, "POST", path, nil)
		assert.Equal(t, required, res.StatusCode == 400, "%s: refused without a body: %d %s", path, res.StatusCode, res.Body)
	}
	assert.Equal(t, []any{"by"}, at(t, v31, "components", "schemas", "Promoted", "required"))
}

type choices struct {
	Size  int     `json:"size" validate:"oneof=1 2 3"`
	Ratio float64 `json:"ratio" validate:"enum=0.5|1"`
	City  string  `json:"city,omitempty" validate:"oneof='New York' Paris"`
}

// TestEnumValuesAreTyped: a number's enum lists numbers; a quoted oneof
// value is one value.
func TestEnumValuesAreTyped(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Post("/c", func(app.Body[choices]) error { return nil })
	v31, _ := build(t, s)
	props := at(t, v31, "components", "schemas", "Choices", "properties").(doc)
	assert.Equal(t, []any{1.0, 2.0, 3.0}, at(t, props, "size", "enum"))
	assert.Equal(t, []any{0.5, 1.0}, at(t, props, "ratio", "enum"))
	assert.Equal(t, []any{"New York", "Paris"}, at(t, props, "city", "enum"))
	post := func(body string) int {
		return apptest.Do(t, s, "POST", "/c", strings.NewReader(body), "Content-Type", "application/json").StatusCode
	}
	assert.Equal(t, 200, post(`{"size":2,"ratio":1,"city":"New York"}`))
	assert.Equal(t, 400, post(`{"size":4,"ratio":1}`))
}

type listParams struct {
	app.In
	Tags    []string `header:"X-Tags"`
	Flavors []string `cookie:"flavors"`
	Tag     []string `query:"tag"`
	One     string   `cookie:"one"`
}

// TestListParameters: a slice header is OpenAPI's default header style,
// simple (a comma-separated list), and a slice cookie is form without
// explode (flavors=a,b), which is how the server reads them; a slice
// query value is form exploded (tag=a&tag=b), the default, as the server
// reads repeated keys.
func TestListParameters(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	app.Get(s, "/l", func(_ context.Context, in listParams) ([]string, error) {
		return append(append(in.Tags, in.Flavors...), in.Tag...), nil
	})
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		params := at(t, d, "paths", "/l", "get", "parameters").([]any)
		require.Len(t, params, 4)
		array := doc{"type": "array", "items": doc{"type": "string"}}
		assert.Equal(t, doc{"name": "X-Tags", "in": "header", "schema": array}, params[0], "style simple, the default")
		assert.Equal(t, doc{"name": "flavors", "in": "cookie", "style": "form", "explode": false, "schema": array}, params[1])
		assert.Equal(t, doc{"name": "tag", "in": "query", "schema": array}, params[2], "style form, exploded: the default")
		assert.Equal(t, doc{"name": "one", "in": "cookie", "schema": doc{"type": "string"}}, params[3], "a single value has no style to say")
	}
	res := apptest.Get(t, s, "/l?tag=e&tag=f", "X-Tags", "a, b", "Cookie", "flavors=c,d")
	require.Equal(t, 200, res.StatusCode, res.Body)
	assert.JSONEq(t, `["a","b","c","d","e","f"]`, res.Body)
}

// TestBearerSchemesOfSiblings: two bearer-auth plugins with different
// schemes, in sibling contexts, declare two security schemes, named after
// their auth scheme, and each route requires its own; the default,
// Bearer, keeps the name bearerAuth.
func TestBearerSchemesOfSiblings(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{}))
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		return s.Get("/a", func() (string, error) { return "", nil })
	}, app.Name("a"))
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k"), bearer.Scheme("Token")))
		return s.Get("/b", func() (string, error) { return "", nil })
	}, app.Name("b"))
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k"), bearer.Scheme("X+Key")))
		return s.Get("/c", func() (string, error) { return "", nil })
	}, app.Name("c"))
	v31, v30 := build(t, s)
	for _, d := range []doc{v31, v30} {
		assert.Equal(t, doc{
			"bearerAuth": doc{"type": "http", "scheme": "bearer"},
			"tokenAuth":  doc{"type": "http", "scheme": "token"},
			"x_keyAuth":  doc{"type": "http", "scheme": "x+key"},
		}, at(t, d, "components", "securitySchemes"), "a character a scheme name cannot hold is _")
		assert.Equal(t, []any{doc{"bearerAuth": []any{}}}, at(t, d, "paths", "/a", "get", "security"))
		assert.Equal(t, []any{doc{"tokenAuth": []any{}}}, at(t, d, "paths", "/b", "get", "security"))
	}
	assert.Equal(t, 200, apptest.Get(t, s, "/b", "Authorization", "Token k").StatusCode)
}

// TestDowngradeLeavesSecurityRequirementsAlone: the 3.0.3 rendition
// rewrites schemas only; a security scheme named like a keyword it
// rewrites keeps its requirement and its definition.
func TestDowngradeLeavesSecurityRequirementsAlone(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	for _, name := range []string{"type", "oneOf", "contentEncoding"} {
		require.NoError(t, s.DeclareSecurity(app.SecurityScheme{Name: name, Type: "apiKey", In: "header", ParamName: "X-" + name}))
	}
	s.Get("/k", func() (string, error) { return "", nil })
	v31, v30 := build(t, s)
	want := []any{doc{"type": []any{}, "oneOf": []any{}, "contentEncoding": []any{}}}
	assert.Equal(t, want, at(t, v31, "paths", "/k", "get", "security"))
	assert.Equal(t, want, at(t, v30, "paths", "/k", "get", "security"))
	assert.Equal(t, at(t, v31, "components", "securitySchemes"), at(t, v30, "components", "securitySchemes"))
}

type everywhere struct {
	app.In
	ID    int    `path:"id"`
	Q     string `query:"q" validate:"required"`
	Trace string `header:"X-Trace" validate:"required"`
	Sid   string `cookie:"sid" validate:"required"`
	Body  item   `body:""`
}

// TestBurrowAnswersDescribeWhatTheServerSends: the shared descriptions of
// Burrow's own answers hold what the server answers: the root of every
// path a validation failure names, a 404's message for any method, and
// bearer-auth's 400 beside its 401s.
func TestBurrowAnswersDescribeWhatTheServerSends(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(bearer.Keys("k")))
		app.Post(s, "/e/:id", func(_ context.Context, in everywhere) (item, error) { return in.Body, nil })
		return nil
	})
	v31, _ := build(t, s)
	responses := at(t, v31, "components", "responses").(doc)
	description := func(name string) string { return at(t, responses, name, "description").(string) }

	res := apptest.Do(t, s, "POST", "/e/x", strings.NewReader(`{}`), "Content-Type", "application/json", "Authorization", "Bearer k")
	require.Equal(t, 400, res.StatusCode, res.Body)
	var bad httpx.ErrorBody
	res.JSON(t, &bad)
	require.NotEmpty(t, bad.Validation)
	res = apptest.Do(t, s, "POST", "/e/1", strings.NewReader(`{}`), "Content-Type", "application/json", "Authorization", "Bearer k")
	require.Equal(t, 400, res.StatusCode, res.Body)
	var failed httpx.ErrorBody
	res.JSON(t, &failed)
	roots := map[string]bool{}
	for _, f := range append(bad.Validation, failed.Validation...) {
		root, _, _ := strings.Cut(f.Path, "/")
		roots[root] = true
	}
	assert.Len(t, roots, 5, "every source fails: %v", roots)
	for root := range roots {
		assert.Contains(t, description("BadRequest"), root+"/…", "a validation path the server writes")
	}

	res = apptest.Do(t, s, "DELETE", "/nowhere", nil)
	require.Equal(t, 404, res.StatusCode)
	assert.Contains(t, res.Body, `"Route DELETE:/nowhere not found"`)
	assert.NotContains(t, description("NotFound"), "GET:", "the message names the request's method, whatever it is")
	assert.Contains(t, description("NotFound"), "Route <method>:<target> not found")

	res = apptest.Do(t, s, "POST", "/e/1", nil, "Authorization", "Bearer k", "Authorization", "Bearer k")
	require.Equal(t, 400, res.StatusCode, "bearer-auth answers several Authorization headers with 400")
	assert.Contains(t, description("Unauthorized"), "400")
	assert.Contains(t, description("Unauthorized"), "several Authorization headers")
}

// scoped is a route config saying which scopes a scheme requires.
type scoped struct {
	scheme string
	scopes []string
}

func (s scoped) SecurityScopes() (string, []string) { return s.scheme, s.scopes }

// TestRouteScopes: a route's scopes (a config value that is an
// app.ScopedSecurity) are listed in its requirement; the 3.0.3 rendition
// keeps them for openIdConnect only, as 3.0 allows them for oauth2 and
// openIdConnect schemes alone.
func TestRouteScopes(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.DeclareSecurity(app.SecurityScheme{Name: "jwt", Type: "http", Scheme: "bearer", BearerFormat: "JWT"}))
	require.NoError(t, s.DeclareSecurity(app.SecurityScheme{Name: "oidc", Type: "openIdConnect", OpenIDConnectURL: "https://id.example/.well-known/openid-configuration"}))
	s.OnRoute(func(spec *app.RouteSpec) error {
		app.RouteConfig[scoped](spec) // the plugin reads it
		return nil
	})
	s.Get("/read", func() (string, error) { return "", nil })
	s.Post("/write", func() (string, error) { return "", nil }, app.WithConfig(scoped{"jwt", []string{"todos:write"}}))
	s.Delete("/all", func() error { return nil }, app.WithConfig(scoped{"oidc", []string{"todos:write", "admin"}}))
	v31, v30 := build(t, s)
	assert.Equal(t, []any{doc{"jwt": []any{}, "oidc": []any{}}}, at(t, v31, "paths", "/read", "get", "security"))
	assert.Equal(t, []any{doc{"jwt": []any{"todos:write"}, "oidc": []any{}}}, at(t, v31, "paths", "/write", "post", "security"))
	assert.Equal(t, []any{doc{"jwt": []any{}, "oidc": []any{}}}, at(t, v30, "paths", "/write", "post", "security"))
	assert.Equal(t, []any{doc{"jwt": []any{}, "oidc": []any{"todos:write", "admin"}}}, at(t, v31, "paths", "/all", "delete", "security"))
	assert.Equal(t, []any{doc{"jwt": []any{}, "oidc": []any{"todos:write", "admin"}}}, at(t, v30, "paths", "/all", "delete", "security"))
	assert.Equal(t, doc{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}, at(t, v31, "components", "securitySchemes", "jwt"))
	assert.True(t, has(at(t, v31, "paths", "/write", "post", "responses"), "403"), "a route with scopes may answer 403")
	assert.False(t, has(at(t, v31, "paths", "/read", "get", "responses"), "403"))
	assert.True(t, has(at(t, v31, "components", "responses"), "Forbidden"))
	routes := s.Routes()
	i := slices.IndexFunc(routes, func(r app.RouteInfo) bool { return r.Path == "/write" })
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, map[string][]string{"jwt": {"todos:write"}}, routes[i].Scopes)
	routes[i].Scopes["jwt"][0] = "changed"
	assert.Equal(t, "todos:write", s.Routes()[i].Scopes["jwt"][0], "Routes hands out copies")
}
