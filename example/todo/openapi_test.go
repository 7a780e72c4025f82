package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app"
)

// TestOpenAPIDocument: the service serves its document and docs page
// without a token; the document requires bearer on the todo routes only
// (the session cookie stands in for it; a route needs every scheme its
// contexts declare, so the document names the token alone),
// says 201 with Location for a create, 204 for a delete, 409 where a
// title may be in use; -openapi prints what is served.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	res := s.do(t, "GET", "/openapi.json", "", "", "")
	require.Equal(t, 200, res.status, res.body)
	assert.Equal(t, 200, s.do(t, "GET", "/openapi-3.0.json", "", "", "").status)
	docs := s.do(t, "GET", "/docs", "", "", "")
	require.Equal(t, 200, docs.status)

	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Security    []map[string][]string      `json:"security"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.body), &doc))
	ops := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			ops++
			assert.Contains(t, docs.body, `"operationId": "`+op.OperationID+`"`)
			if path == "/healthz" || path == "/session" {
				assert.Empty(t, op.Security, method+" "+path)
				continue
			}
			assert.Equal(t, []map[string][]string{{"bearerAuth": {}}}, op.Security, method+" "+path)
			assert.Contains(t, op.Responses, "401", method+" "+path)
		}
	}
	assert.Equal(t, 10, ops, "healthz, log-in and log-out, and the seven todo routes; not the document's own nor the page's")
	assert.Contains(t, string(doc.Paths["/todos"]["post"].Responses["201"]), `"Location"`)
	assert.Contains(t, doc.Paths["/todos"]["post"].Responses, "409")
	assert.Contains(t, doc.Paths["/todos/batch"]["post"].Responses, "409")
	assert.Contains(t, doc.Paths["/todos/{id}"]["patch"].Responses, "409")
	assert.Contains(t, doc.Paths["/todos/{id}"]["delete"].Responses, "204")
	assert.Contains(t, doc.Paths["/todos/{id}"]["get"].Responses, "404")

	// The batch's size is the body field's rule, so the document says it;
	// the import is a multipart upload: a required file, in binary.
	var bodies struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Required bool `json:"required"`
				Content  map[string]struct {
					Schema struct {
						Type       string   `json:"type"`
						MinItems   *int     `json:"minItems"`
						MaxItems   *int     `json:"maxItems"`
						Required   []string `json:"required"`
						Properties map[string]struct {
							Type   string `json:"type"`
							Format string `json:"format"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.body), &bodies))
	rb := bodies.Paths["/todos/batch"]["post"].RequestBody
	assert.True(t, rb.Required, "a batch without a body is refused")
	sc := rb.Content["application/json"].Schema
	assert.Equal(t, "array", sc.Type)
	if assert.NotNil(t, sc.MinItems) && assert.NotNil(t, sc.MaxItems) {
		assert.Equal(t, 1, *sc.MinItems)
		assert.Equal(t, 50, *sc.MaxItems)
	}

	imp := bodies.Paths["/todos/import"]["post"]
	assert.True(t, imp.RequestBody.Required)
	require.Contains(t, imp.RequestBody.Content, "multipart/form-data")
	assert.Len(t, imp.RequestBody.Content, 1, "multipart only")
	mp := imp.RequestBody.Content["multipart/form-data"].Schema
	assert.Equal(t, "object", mp.Type)
	assert.Equal(t, []string{"file"}, mp.Required)
	assert.Equal(t, "string", mp.Properties["file"].Type)
	assert.Equal(t, "binary", mp.Properties["file"].Format)
	for _, status := range []string{"201", "409", "413", "415"} {
		assert.Contains(t, doc.Paths["/todos/import"]["post"].Responses, status)
	}

	db, err := openDB(context.Background(), "")
	require.NoError(t, err)
	defer db.Close()
	srv, err := newServer(context.Background(), db, setup{users: []user{{name: "alice", token: "tokenA"}}}, app.WithLogger(zap.NewNop()))
	require.NoError(t, err)
	require.NoError(t, srv.Ready())
	defer srv.Close(context.Background())
	var printed strings.Builder
	require.NoError(t, printOpenAPI(&printed, srv))
	assert.Equal(t, res.body, printed.String(), "-openapi prints what GET /openapi.json serves")

	cfg, err := parseFlags([]string{"-openapi"}, env())
	require.NoError(t, err)
	assert.True(t, cfg.OpenAPI)
}
