package bearer_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

type who struct {
	app.In
	ID bearer.Identity `name:"who"`
}

// storeApp guards /read and /write (which needs todos:write) with the
// keys of store, and leaves /public open.
func storeApp(t testing.TB, store bearer.KeyStore, opts ...bearer.Option) *app.Server {
	s := apptest.New(t)
	s.Register(func(s *app.Server) error {
		s.Register(bearer.Plugin(append([]bearer.Option{bearer.Store(store), bearer.ExposeIdentity("who")}, opts...)...))
		s.Get("/read", func(w who) (bearer.Identity, error) { return w.ID, nil })
		return s.Post("/write", func(w who) (string, error) { return "written by " + w.ID.KeyID, nil }, bearer.Scopes("todos:write"))
	}, app.Name("api"))
	s.Get("/public", func() (string, error) { return "open", nil })
	require.NoError(t, s.Ready())
	return s
}

var apiKeys = bearer.MemoryKeys(
	bearer.APIKey{ID: "reader", Hash: bearer.HashKey("key-of-the-reader"), Scopes: []string{"todos:read"}},
	bearer.APIKey{ID: "writer", Hash: bearer.HashKey("key-of-the-writer"), Scopes: []string{"todos:read", "todos:write"}},
)

func TestStore(t *testing.T) {
	t.Parallel()
	s := storeApp(t, apiKeys)
	tests := []struct {
		name, method, path string
		header             []string
		status             int
		body, challenge    string
	}{
		{"reader reads", "GET", "/read", []string{"Authorization", "Bearer key-of-the-reader"}, 200,
			`{"Index":-1,"Authenticated":true,"KeyID":"reader","Scopes":["todos:read"]}`, ""},
		{"reader cannot write", "POST", "/write", []string{"Authorization", "Bearer key-of-the-reader"}, 403,
			`{"error":"insufficient scope"}`, `Bearer error="insufficient_scope", scope="todos:write"`},
		{"writer writes", "POST", "/write", []string{"Authorization", "Bearer key-of-the-writer"}, 200, "written by writer", ""},
		{"unknown key", "POST", "/write", []string{"Authorization", "Bearer key-of-nobody"}, 401,
			`{"error":"invalid authorization header"}`, `Bearer error="invalid_token"`},
		{"no key", "GET", "/read", nil, 401, `{"error":"missing authorization header"}`, "Bearer"},
		{"open sibling", "GET", "/public", nil, 200, "open", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := apptest.Do(t, s, tt.method, tt.path, nil, tt.header...)
			assert.Equal(t, tt.status, res.StatusCode)
			assert.Equal(t, tt.body, res.Body)
			assert.Equal(t, tt.challenge, res.Header.Get("Www-Authenticate"))
		})
	}
}

// recordingStore is a KeyStore that records what it is asked.
type recordingStore struct {
	mu    sync.Mutex
	asked [][sha256.Size]byte
	err   error
}

func (r *recordingStore) Find(_ context.Context, sum [sha256.Size]byte) (*bearer.APIKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, sum)
	if r.err != nil {
		return nil, r.err
	}
	if sum == bearer.HashKey("the-right-key") {
		return &bearer.APIKey{ID: "k", Scopes: []string{"todos:write"}}, nil
	}
	return nil, nil
}

// A store is asked for the SHA-256 sum of the key sent, never the key.
func TestStoreSeesOnlyHashes(t *testing.T) {
	t.Parallel()
	rec := &recordingStore{}
	s := storeApp(t, rec)
	for _, key := range []string{"the-right-key", "a-wrong-key"} {
		apptest.Do(t, s, "POST", "/write", nil, "Authorization", "Bearer "+key)
	}
	assert.Equal(t, [][sha256.Size]byte{sha256.Sum256([]byte("the-right-key")), sha256.Sum256([]byte("a-wrong-key"))}, rec.asked)
	assert.Equal(t, 200, apptest.Do(t, s, "POST", "/write", nil, "Authorization", "Bearer the-right-key").StatusCode)
}

// A store's error answers 500, with a generic body.
func TestStoreError(t *testing.T) {
	t.Parallel()
	s := storeApp(t, &recordingStore{err: errors.New("database down")})
	res := apptest.Get(t, s, "/read", "Authorization", "Bearer the-right-key")
	assert.Equal(t, 500, res.StatusCode)
	assert.Equal(t, `{"error":"internal server error"}`, res.Body)
}

// With Header, the key is the header's value, and the scheme documented
// is an apiKey one.
func TestHeader(t *testing.T) {
	t.Parallel()
	s := storeApp(t, apiKeys, bearer.Header("x-api-key"))
	assert.Equal(t, 200, apptest.Get(t, s, "/read", "X-Api-Key", " key-of-the-reader ").StatusCode)
	assert.Equal(t, 401, apptest.Get(t, s, "/read", "Authorization", "Bearer key-of-the-reader").StatusCode)
	assert.Equal(t, 401, apptest.Get(t, s, "/read", "X-Api-Key", "Bearer key-of-the-reader").StatusCode)
	assert.Equal(t, 400, apptest.Get(t, s, "/read", "X-Api-Key", "key-of-the-reader", "X-Api-Key", "key-of-the-reader").StatusCode)
	assert.Equal(t, 403, apptest.Do(t, s, "POST", "/write", nil, "X-Api-Key", "key-of-the-reader").StatusCode)
	d, err := openapi.Build(s.Routes(), openapi.Info{})
	require.NoError(t, err)
	var doc struct {
		Paths      map[string]map[string]struct{ Security []map[string][]string }
		Components struct{ SecuritySchemes map[string]map[string]string }
	}
	require.NoError(t, json.Unmarshal(d.JSON(), &doc))
	assert.Equal(t, map[string]string{"type": "apiKey", "in": "header", "name": "X-Api-Key"}, doc.Components.SecuritySchemes["x-api-keyAuth"])
	assert.Equal(t, []map[string][]string{{"x-api-keyAuth": {"todos:write"}}}, doc.Paths["/write"]["post"].Security)
}

// With Manual, a key lacking scopes goes through the error handler.
func TestScopesWithManual(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	s.Register(bearer.Plugin(bearer.Store(apiKeys), bearer.Manual()))
	s.Post("/write", func() (string, error) { return "ok", nil }, bearer.Scopes("todos:write"),
		app.WithHook(app.OnRequest, func(v *bearer.Verifier, req *httpx.Request, rep *httpx.Reply) error { return v.Verify(req, rep) }))
	require.NoError(t, s.Ready())
	res := apptest.Do(t, s, "POST", "/write", nil, "Authorization", "Bearer key-of-the-reader")
	assert.Equal(t, 403, res.StatusCode)
	assert.JSONEq(t, `{"statusCode":403,"code":"FST_BEARER_AUTH_INSUFFICIENT_SCOPE","error":"Forbidden","message":"insufficient scope"}`, res.Body)
	assert.Equal(t, 200, apptest.Do(t, s, "POST", "/write", nil, "Authorization", "Bearer key-of-the-writer").StatusCode)
}

func TestScopesReadyChecks(t *testing.T) {
	t.Parallel()
	ok := func() (string, error) { return "", nil }
	t.Run("keys without scopes", func(t *testing.T) {
		s := apptest.New(t)
		s.Register(bearer.Plugin(bearer.Keys("k")))
		s.Get("/x", ok, bearer.Scopes("a"))
		assert.ErrorIs(t, s.Ready(), bearer.ErrScopesNeedStore)
	})
	t.Run("no plugin", func(t *testing.T) {
		s := apptest.New(t)
		s.Register(func(s *app.Server) error { return s.Register(bearer.Plugin(bearer.Store(apiKeys))) })
		s.Get("/x", ok, bearer.Scopes("a"))
		assert.ErrorIs(t, s.Ready(), app.ErrUnreadConfig)
	})
	t.Run("invalid scope", func(t *testing.T) {
		s := apptest.New(t)
		s.Register(bearer.Plugin(bearer.Store(apiKeys)))
		s.Get("/x", ok, bearer.Scopes(`a"`))
		assert.ErrorContains(t, s.Ready(), `bearer.Scopes: invalid scope "a\""`)
	})
	t.Run("store and keys", func(t *testing.T) {
		_, err := bearer.New(bearer.Store(apiKeys), bearer.Keys("k"))
		assert.EqualError(t, err, "bearer.Keys, bearer.Auth and bearer.Store are exclusive")
	})
}

// MemoryKeys compares the sum with every key in constant time: its Find
// compares with subtle.ConstantTimeCompare, and its loop has no early
// exit nor any other comparison a timing could tell.
func TestMemoryKeysCompareInConstantTime(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "keystore.go", nil, 0)
	require.NoError(t, err)
	var find *ast.FuncDecl
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Find" && fn.Recv != nil {
			find = fn
		}
	}
	require.NotNil(t, find, "memoryKeys.Find")
	var loop *ast.RangeStmt
	ast.Inspect(find.Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.RangeStmt); ok {
			loop = r
		}
		return true
	})
	require.NotNil(t, loop)
	constantTime := false
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "subtle" && x.Sel.Name == "ConstantTimeCompare" {
				constantTime = true
			}
		case *ast.ReturnStmt, *ast.BranchStmt, *ast.IfStmt:
			t.Errorf("the comparison loop may end early or branch: %T", x)
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				t.Errorf("the comparison loop compares with %s", x.Op)
			}
		}
		return true
	})
	assert.True(t, constantTime, "the loop compares with subtle.ConstantTimeCompare")

	// And it finds each key, the last one too.
	for _, key := range []string{"key-of-the-reader", "key-of-the-writer"} {
		k, err := apiKeys.Find(context.Background(), bearer.HashKey(key))
		require.NoError(t, err)
		require.NotNil(t, k)
		assert.Equal(t, bearer.HashKey(key), k.Hash)
	}
	k, err := apiKeys.Find(context.Background(), bearer.HashKey("nobody"))
	assert.NoError(t, err)
	assert.Nil(t, k)
}
