package main

import (
	"bytes"
	"compress/gzip"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/redistest"
)

// testData writes a small data folder as the benchmark's generator
// lays it out: a dataset of three items, one static file, arena.db.
func testData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	items := []item{
		{ID: 1, Name: "a", Category: "x", Price: 2, Quantity: 3, Active: true, Tags: []string{"t"}, Rating: rating{4, 5}},
		{ID: 2, Name: "b", Category: "y", Price: 5, Quantity: 7, Tags: []string{}, Rating: rating{1, 1}},
		{ID: 3, Name: strings.Repeat("c", 2000), Category: "z", Price: 1, Quantity: 1, Tags: []string{"u", "v"}, Rating: rating{2, 9}},
	}
	b, err := json.Marshal(items)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dataset.json"), b, 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "static"), 0o700))
	css := bytes.Repeat([]byte("body { margin: 0 }\n"), 200)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "static", "reset.css"), css, 0o600))
	db, err := sql.Open("sqlite", filepath.Join(dir, "arena.db"))
	require.NoError(t, err)
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL,
		  price INTEGER NOT NULL, quantity INTEGER NOT NULL, active INTEGER NOT NULL, tags TEXT NOT NULL,
		  rating_score INTEGER NOT NULL, rating_count INTEGER NOT NULL)`,
		`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, plan TEXT NOT NULL)`,
		`INSERT INTO items VALUES (7, 'seven', 'tools', 10, 20, 1, '["a"]', 3, 30)`,
		`INSERT INTO users VALUES (42, 'Alice Chen', 'alice@example.com', 'pro')`,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
	return dir
}

// token signs {"sub":sub} with HS256, as the benchmark's token is.
func token(secret, sub string) string {
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(`{"sub":`+sub+`}`))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signed))
	return signed + "." + enc.EncodeToString(mac.Sum(nil))
}

// serve starts the server on a fresh data folder and Redis.
func serve(t *testing.T) string {
	t.Helper()
	rdb := redistest.Start(t)
	s, closeData, err := newServer(config{data: testData(t), redis: rdb.URL(0), secret: []byte("s3cret")})
	require.NoError(t, err)
	t.Cleanup(closeData)
	return apptest.Serve(t, s)
}

func do(t *testing.T, method, url string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

func TestPublicProfiles(t *testing.T) {
	url := serve(t)
	chunked := struct{ io.Reader }{strings.NewReader("20")} // no length: sent chunked
	tests := []struct {
		name, method, path string
		body               io.Reader
		status             int
		want               string
	}{
		{"baseline GET", "GET", "/baseline11?a=13&b=42", nil, 200, "55"},
		{"baseline POST", "POST", "/baseline11?a=13&b=42", strings.NewReader("20"), 200, "75"},
		{"baseline POST chunked", "POST", "/baseline11?a=13&b=42", chunked, 200, "75"},
		{"baseline not a number", "GET", "/baseline11?a=x", nil, 400, ""},
		{"public baseline", "GET", "/public/baseline?a=1&b=2", nil, 200, "3"},
		{"pipeline", "GET", "/pipeline", nil, 200, "ok"},
		{"static missing", "GET", "/static/nonexistent.txt", nil, 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := do(t, tt.method, url+tt.path, tt.body, "Content-Type", "text/plain")
			assert.Equal(t, tt.status, res.StatusCode, body)
			if tt.want != "" {
				assert.Equal(t, tt.want, body)
				assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain"))
			}
		})
	}
}

func TestJSONAndCompression(t *testing.T) {
	url := serve(t)
	res, body := do(t, "GET", url+"/json/2?m=3", nil)
	require.Equal(t, 200, res.StatusCode, body)
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	var got itemList
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, 2, got.Count)
	require.Len(t, got.Items, 2)
	assert.Equal(t, 2*3*3, got.Items[0].Total)
	assert.Equal(t, 5*7*3, got.Items[1].Total)
	assert.Equal(t, []string{"t"}, got.Items[0].Tags)

	_, body = do(t, "GET", url+"/public/json/1?m=9", nil)
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, 6, got.Items[0].Total, "the public list has m = 1")

	// The transport would decode gzip itself: ask for it explicitly.
	req, err := http.NewRequest("GET", url+"/json/3?m=100", nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err = http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "gzip", res.Header.Get("Content-Encoding"), "an answer over 1 KiB is compressed")
	zr, err := gzip.NewReader(res.Body)
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(zr).Decode(&got))
	assert.Equal(t, 3, got.Count)
	res, _ = do(t, "GET", url+"/baseline11?a=1&b=2", nil, "Accept-Encoding", "gzip")
	assert.Empty(t, res.Header.Get("Content-Encoding"), "only /json is compressed")
}

func TestStaticAndUpload(t *testing.T) {
	url := serve(t)
	res, body := do(t, "GET", url+"/static/reset.css", nil)
	require.Equal(t, 200, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/css"))
	assert.Equal(t, strings.Repeat("body { margin: 0 }\n", 200), body)

	upload := bytes.Repeat([]byte{0xab}, 3<<20+17)
	res, body = do(t, "POST", url+"/upload", bytes.NewReader(upload), "Content-Type", "application/octet-stream")
	require.Equal(t, 200, res.StatusCode, body)
	assert.Equal(t, strconv.Itoa(len(upload)), body)
}

func TestWebSocketEcho(t *testing.T) {
	url := serve(t)
	res, _ := do(t, "GET", url+"/ws", nil)
	assert.Equal(t, 400, res.StatusCode, "a plain GET is refused")
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	require.NoError(t, err)
	defer c.Close()
	for _, m := range []struct {
		kind int
		data string
	}{{websocket.TextMessage, "hello"}, {websocket.BinaryMessage, "\x00\x01"}} {
		require.NoError(t, c.WriteMessage(m.kind, []byte(m.data)))
		kind, data, err := c.ReadMessage()
		require.NoError(t, err)
		assert.Equal(t, m.kind, kind)
		assert.Equal(t, m.data, string(data))
	}
	require.NoError(t, c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "")))
	_, _, err = c.ReadMessage()
	var ce *websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 1000, ce.Code)
}

func TestProductionStack(t *testing.T) {
	url := serve(t)
	auth := "Bearer " + token("s3cret", `"42"`)
	for _, bad := range []string{"", "Bearer x.y.z", "Bearer " + token("other", `"42"`), "Basic abc"} {
		res, _ := do(t, "GET", url+"/api/items/7", nil, "Authorization", bad)
		assert.Equal(t, 401, res.StatusCode, bad)
		res, _ = do(t, "POST", url+"/api/items/7", strings.NewReader(`{}`), "Authorization", bad, "Content-Type", "application/json")
		assert.Equal(t, 401, res.StatusCode, bad)
	}

	res, body := do(t, "GET", url+"/api/items/7", nil, "Authorization", auth)
	require.Equal(t, 200, res.StatusCode, body)
	assert.Equal(t, "MISS", res.Header.Get("X-Cache"))
	assert.JSONEq(t, `{"id":7,"name":"seven","category":"tools","price":10,"quantity":20,"active":true,"rating":{"score":3,"count":30}}`, body)
	res, body2 := do(t, "GET", url+"/api/items/7", nil, "Authorization", auth)
	assert.Equal(t, "HIT", res.Header.Get("X-Cache"))
	assert.Equal(t, body, body2)
	assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"))

	res, _ = do(t, "GET", url+"/api/items/8", nil, "Authorization", auth)
	assert.Equal(t, 404, res.StatusCode)

	update := `{"name":"bench-updated","price":250,"quantity":10}`
	res, body = do(t, "POST", url+"/api/items/7", strings.NewReader(update), "Authorization", auth, "Content-Type", "application/json")
	require.Equal(t, 204, res.StatusCode, body)
	assert.Empty(t, body)
	res, body = do(t, "GET", url+"/api/items/7", nil, "Authorization", auth)
	assert.Equal(t, "MISS", res.Header.Get("X-Cache"), "the update removed the cached copy")
	assert.Contains(t, body, `"name":"bench-updated"`)
	res, _ = do(t, "POST", url+"/api/items/8", strings.NewReader(update), "Authorization", auth, "Content-Type", "application/json")
	assert.Equal(t, 404, res.StatusCode)
	res, _ = do(t, "POST", url+"/api/items/7", strings.NewReader(`{"name":`), "Authorization", auth, "Content-Type", "application/json")
	assert.Equal(t, 400, res.StatusCode)

	for _, sub := range []string{`"42"`, `42`} {
		res, body = do(t, "GET", url+"/api/me", nil, "Authorization", "Bearer "+token("s3cret", sub))
		require.Equal(t, 200, res.StatusCode, body)
		assert.JSONEq(t, `{"id":42,"name":"Alice Chen","email":"alice@example.com","plan":"pro"}`, body)
	}
}

func TestWithoutDataTheAPIIsUnavailable(t *testing.T) {
	s, closeData, err := newServer(config{secret: []byte("s")})
	require.NoError(t, err)
	t.Cleanup(closeData)
	url := apptest.Serve(t, s)
	res, _ := do(t, "GET", url+"/api/me", nil, "Authorization", "Bearer "+token("s", `"42"`))
	assert.Equal(t, 503, res.StatusCode)
}
