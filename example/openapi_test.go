package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden OpenAPI documents in testdata")

// TestOpenAPIGolden pins the example's document, printed by -openapi, in
// both variants: go test ./example -run TestOpenAPIGolden -update
// rewrites the files after a deliberate change.
func TestOpenAPIGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"openapi.json", nil},
		{"openapi-share.json", []string{"-share"}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			require.NoError(t, run(append([]string{"-openapi", "-keys", "k1"}, tt.args...), &out))
			path := filepath.Join("testdata", tt.golden)
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(out.String()), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), out.String())
		})
	}
}

// TestOpenAPIBearerOnOneOnly: /one, the only route that can see
// bearer-auth, is the only operation that requires it; nothing in the
// example says so but where the plugin is registered.
func TestOpenAPIBearerOnOneOnly(t *testing.T) {
	t.Parallel()
	for _, share := range []bool{false, true} {
		s := build([]string{"k1"}, share, time.Second)
		res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
		require.NoError(t, err)
		var doc struct {
			Paths map[string]map[string]struct {
				Security []map[string][]string `json:"security"`
				Context  string                `json:"x-burrow-context"`
			} `json:"paths"`
		}
		require.NoError(t, json.NewDecoder(res.Body).Decode(&doc))
		res.Body.Close()
		require.Len(t, doc.Paths, 6, "one, two, three, echo, readyz, events; not the document's own routes")
		for path, item := range doc.Paths {
			for method, op := range item {
				if path == "/one" {
					assert.Equal(t, []map[string][]string{{"bearerAuth": {}}}, op.Security, method+" "+path)
				} else {
					assert.Empty(t, op.Security, method+" "+path)
				}
			}
		}
		want := "root > publicContext > grandchildContext"
		if share {
			want = "root > publicContext"
		}
		assert.Equal(t, want, doc.Paths["/three"]["get"].Context)
		require.NoError(t, s.Close(t.Context()))
	}
}

// TestDocsPageListsOperations: the example's /docs embeds the document
// and the script that renders it.
func TestDocsPageListsOperations(t *testing.T) {
	t.Parallel()
	s := build([]string{"k1"}, false, time.Second)
	defer func() { require.NoError(t, s.Close(t.Context())) }()
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/docs", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	page, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	for _, id := range []string{"getOne", "getTwo", "getThree", "postEcho", "getReadyz", "getEvents"} {
		assert.Contains(t, string(page), `"operationId": "`+id+`"`)
	}
}
