package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/httpx"
)

// Filter is the body of a QUERY route alone; Match its answer, Pulse an
// event's data.
type (
	Filter struct {
		Text string `json:"text" validate:"required"`
	}
	Match struct {
		Title string `json:"title"`
	}
	Pulse struct {
		N int `json:"n"`
	}
)

type filterIn struct {
	app.In
	Filter Filter `body:""`
}

// build32 readies s and returns its three renditions, decoded.
func build32(t *testing.T, s *app.Server) (v31, v32, v30 doc) {
	t.Helper()
	v31, v30 = build(t, s)
	d, err := openapi.Build(s.Routes(), openapi.Info{Title: "t"})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(d.JSON32(), &v32))
	return v31, v32, v30
}

// TestQueryOperation: a QUERY route is its path's query operation in the
// 3.2 rendition, with its body and answers; 3.1 and 3.0.3, which have no
// QUERY, leave it out, with the path it alone had and the schemas and
// responses only it used. A method OpenAPI has no field for is under
// additionalOperations in 3.2, by its name.
func TestQueryOperation(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.QueryRoute(s, "/search", func(context.Context, filterIn) ([]Match, error) { return nil, nil }))
	require.NoError(t, app.QueryRoute(s, "/todos", func(context.Context, filterIn) ([]Match, error) { return nil, nil }, app.OperationID("searchTodos")))
	require.NoError(t, app.Get(s, "/todos", func(context.Context, struct{}) (string, error) { return "", nil }))
	require.NoError(t, s.Route("PURGE", "/cache/:key", func() error { return nil }))
	require.NoError(t, s.Route(httpx.AnyMethod, "/any", func() error { return nil }))
	v31, v32, v30 := build32(t, s)

	assert.Equal(t, "3.2.0", v32["openapi"])
	op := at(t, v32, "paths", "/search", "query").(doc)
	assert.Equal(t, "querySearch", op["operationId"])
	assert.Equal(t, "#/components/schemas/Filter", at(t, op, "requestBody", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, true, at(t, op, "requestBody", "required"))
	assert.Equal(t, "#/components/schemas/Match", at(t, op, "responses", "200", "content", "application/json", "schema", "items", "$ref"))
	assert.Contains(t, op["responses"], "400")
	assert.Equal(t, "searchTodos", at(t, v32, "paths", "/todos", "query", "operationId"))
	assert.Equal(t, "getTodos", at(t, v32, "paths", "/todos", "get", "operationId"))
	assert.Equal(t, "purgeCacheByKey", at(t, v32, "paths", "/cache/{key}", "additionalOperations", "PURGE", "operationId"))
	assert.False(t, has(at(t, v32, "paths"), "/any"), "a route of any method is no operation")
	for _, name := range []string{"Filter", "Match", "BadRequest", "PayloadTooLarge"} {
		assert.True(t, has(at(t, v32, "components", "schemas"), name) || has(at(t, v32, "components", "responses"), name), name)
	}

	for _, d := range []doc{v31, v30} {
		paths := at(t, d, "paths").(doc)
		assert.Equal(t, []string{"/todos"}, keysOf(paths), "only the GET is left")
		assert.Equal(t, []string{"get"}, keysOf(paths["/todos"].(doc)))
		assert.False(t, has(d, "components"), "Filter, Match and the 400, 413 and 415 answers were the QUERY operations' alone")
	}
	assert.Equal(t, "3.1.0", v31["openapi"])
	assert.Equal(t, "3.0.3", v30["openapi"])
}

// TestStreamItems: a typed event stream and a stream declared with
// RespondsAs are described by their items in the 3.2 rendition: an
// event whose data holds the item's JSON, or the item itself for JSON
// Lines. 3.1 and 3.0.3 say what they can: a string, or anything.
func TestStreamItems(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Events(s, "/pulses", func(context.Context, struct{}, *app.EventStream[Pulse]) error { return nil }))
	require.NoError(t, s.Get("/text", func() error { return nil }, app.RespondsAs(200, "text/event-stream", nil)))
	require.NoError(t, s.Get("/lines", func() error { return nil }, app.RespondsAs(200, "application/jsonl", Match{})))
	v31, v32, v30 := build32(t, s)

	event := func(data doc) doc {
		return doc{"type": "object", "required": []any{"data"}, "properties": doc{
			"data": data, "event": doc{"type": "string"}, "id": doc{"type": "string"},
			"retry": doc{"type": "integer", "minimum": 0.0},
		}}
	}
	assert.Equal(t, doc{"text/event-stream": doc{"itemSchema": event(doc{"type": "string",
		"contentMediaType": "application/json", "contentSchema": doc{"$ref": "#/components/schemas/Pulse"}})}},
		at(t, v32, "paths", "/pulses", "get", "responses", "200", "content"))
	assert.Equal(t, doc{"text/event-stream": doc{"itemSchema": event(doc{"type": "string"})}},
		at(t, v32, "paths", "/text", "get", "responses", "200", "content"))
	assert.Equal(t, doc{"application/jsonl": doc{"itemSchema": doc{"$ref": "#/components/schemas/Match"}}},
		at(t, v32, "paths", "/lines", "get", "responses", "200", "content"))
	assert.Equal(t, doc{"type": "integer", "format": "int64"}, at(t, v32, "components", "schemas", "Pulse", "properties", "n"))

	for _, d := range []doc{v31, v30} {
		assert.Equal(t, doc{"text/event-stream": doc{"schema": doc{"type": "string"}}},
			at(t, d, "paths", "/pulses", "get", "responses", "200", "content"))
		assert.Equal(t, doc{"application/jsonl": doc{"schema": doc{}}},
			at(t, d, "paths", "/lines", "get", "responses", "200", "content"))
		assert.False(t, has(d, "components"), "Pulse and Match were the items' alone")
	}
}

// TestServed32: the plugin serves the 3.2 rendition over HTTP, and the
// docs page renders it, QUERY operations included; Path32 moves it.
func TestServed32(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{Title: "t"}))
	require.NoError(t, app.QueryRoute(s, "/search", func(context.Context, filterIn) ([]Match, error) { return nil, nil }))
	base := apptest.Serve(t, s)
	d, err := openapi.Build(s.Routes(), openapi.Info{Title: "t"})
	require.NoError(t, err)
	served := apptest.Fetch(t, http.MethodGet, base+"/openapi-3.2.json")
	assert.Equal(t, http.StatusOK, served.StatusCode)
	assert.Equal(t, string(d.JSON32()), served.Body)
	page := apptest.Fetch(t, http.MethodGet, base+"/docs")
	assert.Contains(t, page.Body, `"operationId": "querySearch"`)

	moved := apptest.New(t)
	moved.Register(openapi.Plugin(openapi.Info{}, openapi.Path32("/v32.json")))
	assert.Equal(t, http.StatusOK, apptest.Get(t, moved, "/v32.json").StatusCode)
	assert.Equal(t, http.StatusNotFound, apptest.Get(t, moved, "/openapi-3.2.json").StatusCode)
	none := apptest.New(t)
	none.Register(openapi.Plugin(openapi.Info{}, openapi.Path32("")))
	assert.Equal(t, http.StatusNotFound, apptest.Get(t, none, "/openapi-3.2.json").StatusCode)
	err = app.New().Register(openapi.Plugin(openapi.Info{}, openapi.Path32("v32.json")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `path "v32.json" must start with /`)
}

// Said is a WebSocket's message from the client; Heard the server's.
type (
	Said struct {
		Text string `json:"text" validate:"required"`
	}
	Heard struct {
		Text *string `json:"text"`
	}
)

// TestUpgrade: a route that switches protocols (app.Upgrades, as the
// websocket plugin declares) is described as the GET it is in HTTP: the
// Upgrade and Connection headers, the 101 that grants it, its other
// answers; its messages, which OpenAPI has no word for, are the
// extension x-burrow-upgrade, with their schemas, in every rendition.
func TestUpgrade(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, s.Get("/chat", func() error { return nil },
		app.Upgrades("websocket", Said{}, Heard{}), app.Responds(426, nil, "Upgrade")))
	v31, v32, v30 := build32(t, s)
	for _, d := range []doc{v31, v32, v30} {
		op := at(t, d, "paths", "/chat", "get").(doc)
		assert.Equal(t, []any{
			doc{"name": "Upgrade", "in": "header", "required": true, "schema": doc{"type": "string", "enum": []any{"websocket"}}},
			doc{"name": "Connection", "in": "header", "required": true, "schema": doc{"type": "string"}, "description": "Upgrade (among other tokens)."},
		}, op["parameters"])
		assert.ElementsMatch(t, []string{"101", "426"}, keysOf(op["responses"].(doc)), "no 200: the upgrade is the success")
		assert.Contains(t, at(t, op, "responses", "101", "description"), "speaks websocket")
		assert.Equal(t, doc{"Connection": doc{"schema": doc{"type": "string"}}, "Upgrade": doc{"schema": doc{"type": "string"}}},
			at(t, op, "responses", "101", "headers"))
		assert.Equal(t, "websocket", at(t, op, "x-burrow-upgrade", "protocol"))
		assert.Equal(t, "#/components/schemas/Said", at(t, op, "x-burrow-upgrade", "receive", "schema", "$ref"))
		assert.Equal(t, "#/components/schemas/Heard", at(t, op, "x-burrow-upgrade", "send", "schema", "$ref"))
		assert.True(t, has(at(t, d, "components", "schemas"), "Heard"))
	}
	assert.Equal(t, []any{"string", "null"}, at(t, v32, "components", "schemas", "Heard", "properties", "text", "type"))
	assert.Equal(t, true, at(t, v30, "components", "schemas", "Heard", "properties", "text", "nullable"))

	err := app.New().Get("/x", func() error { return nil }, app.Upgrades("web socket", nil, nil))
	assert.ErrorContains(t, err, `declares an upgrade to "web socket", which is not a protocol token`)
}
