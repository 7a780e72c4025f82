package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tfb-test-")
	if err == nil {
		seedFile = filepath.Join(dir, "seed.db")
		err = writeSeed(seedFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating the test database:", err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// serve starts the server on a copy of the test database, on a real
// socket, and returns its URL and the file.
func serve(t *testing.T) (url, file string) {
	t.Helper()
	file = databaseFile(t)
	return apptest.Serve(t, newServer(file)), file
}

// contentTypes are what each route must answer with.
var contentTypes = map[string]string{
	"/json":      "application/json; charset=utf-8",
	"/plaintext": "text/plain; charset=utf-8",
	"/db":        "application/json; charset=utf-8",
	"/queries":   "application/json; charset=utf-8",
	"/updates":   "application/json; charset=utf-8",
	"/fortunes":  "text/html; charset=utf-8",
}

// get fetches path and checks what TechEmpower's verifier checks of every
// answer: 200, Server, an HTTP Date, the route's content type, a length
// (or chunks) and a body.
func get(t *testing.T, url, path string) string {
	t.Helper()
	res := apptest.Fetch(t, http.MethodGet, url+path)
	route, _, _ := strings.Cut(path, "?")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, res.Body)
	assert.Equal(t, "burrow", res.Header.Get("Server"), path)
	_, err := http.ParseTime(res.Header.Get("Date"))
	assert.NoError(t, err, "%s: Date %q", path, res.Header.Get("Date"))
	assert.Equal(t, contentTypes[route], res.Header.Get("Content-Type"), path)
	assert.Equal(t, fmt.Sprint(len(res.Body)), res.Header.Get("Content-Length"), path)
	require.NotEmpty(t, res.Body, path)
	return res.Body
}

// worldRowsOf decodes body as an array of rows, each exactly the keys id
// and randomNumber, integers in 1..10000.
func worldRowsOf(t *testing.T, body string) []world {
	t.Helper()
	var objects []map[string]json.Number
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	require.NoError(t, d.Decode(&objects), body)
	rows := make([]world, len(objects))
	for i, o := range objects {
		require.Len(t, o, 2, "row %d: %v", i, o)
		for key, dst := range map[string]*int{"id": &rows[i].ID, "randomNumber": &rows[i].RandomNumber} {
			n, err := o[key].Int64()
			require.NoError(t, err, "row %d: %q is %q", i, key, o[key])
			require.True(t, n >= 1 && n <= worldRows, "row %d: %q is %d", i, key, n)
			*dst = int(n)
		}
	}
	return rows
}

func TestHello(t *testing.T) {
	t.Parallel()
	url, _ := serve(t)
	assert.JSONEq(t, `{"message":"Hello, World!"}`, get(t, url, "/json"))
	assert.Equal(t, "Hello, World!", get(t, url, "/plaintext"))
}

func TestDBReadsOneRandomRow(t *testing.T) {
	t.Parallel()
	url, file := serve(t)
	table := readWorld(t, file)
	ids := map[int]bool{}
	for range 8 {
		rows := worldRowsOf(t, "["+get(t, url, "/db")+"]")
		require.Len(t, rows, 1)
		assert.Equal(t, table[rows[0].ID], rows[0].RandomNumber, "row %d", rows[0].ID)
		ids[rows[0].ID] = true
	}
	// 8 draws of 10,000 are all the same id once in 10^28 runs.
	assert.Greater(t, len(ids), 1, "8 requests read the same row")
}

// clamping is ?queries= and the number of rows it must answer: missing,
// empty, not an integer or below 1 is 1; above 500 is 500.
var clamping = []struct {
	query string
	rows  int
}{
	{"", 1}, {"?queries=", 1}, {"?queries=0", 1}, {"?queries=-3", 1}, {"?queries=foo", 1},
	{"?queries=1.5", 1}, {"?queries=1", 1}, {"?queries=20", 20}, {"?queries=500", 500},
	{"?queries=501", 500}, {"?queries=99999999999999999999", 1},
}

func TestQueriesClampsAndReadsRows(t *testing.T) {
	t.Parallel()
	url, file := serve(t)
	table := readWorld(t, file)
	for _, c := range clamping {
		t.Run(c.query, func(t *testing.T) {
			rows := worldRowsOf(t, get(t, url, "/queries"+c.query))
			require.Len(t, rows, c.rows)
			for _, w := range rows {
				assert.Equal(t, table[w.ID], w.RandomNumber, "row %d", w.ID)
			}
		})
	}
}

// A query net/url cannot read whole is Burrow's 400, not 1 row: clamping
// is for a value the client sent, and this one cannot be told.
func TestMalformedQueryIsRefused(t *testing.T) {
	t.Parallel()
	url, _ := serve(t)
	for _, path := range []string{"/queries?queries=2;x=1", "/queries?queries=%zz", "/updates?queries=2;x=1"} {
		res := apptest.Fetch(t, http.MethodGet, url+path)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, path)
		assert.Contains(t, res.Body, `"code":"ERR_BAD_QUERYSTRING"`, path)
		assert.Equal(t, "burrow", res.Header.Get("Server"), path)
	}
}

func TestUpdatesWriteTheRowsTheyAnswer(t *testing.T) {
	t.Parallel()
	url, file := serve(t)
	for _, c := range clamping {
		t.Run(c.query, func(t *testing.T) {
			before := readWorld(t, file)
			rows := worldRowsOf(t, get(t, url, "/updates"+c.query))
			after := readWorld(t, file)
			require.Len(t, rows, c.rows)
			sent := map[int][]int{} // an id drawn twice was written twice
			for _, w := range rows {
				sent[w.ID] = append(sent[w.ID], w.RandomNumber)
			}
			changed := 0
			for id, values := range sent {
				assert.Contains(t, values, after[id], "row %d: in the file %d, answered %v", id, after[id], values)
				if after[id] != before[id] {
					changed++
				}
			}
			// A new random number equals the old one once in 10,000.
			if c.rows >= 20 {
				assert.GreaterOrEqual(t, changed*10, len(sent)*9, "%d of %d rows changed", changed, len(sent))
			}
		})
	}
}

func TestConcurrentUpdatesAllSucceed(t *testing.T) {
	t.Parallel()
	url, _ := serve(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				res := apptest.Fetch(t, http.MethodGet, url+"/updates?queries=20")
				assert.Equal(t, http.StatusOK, res.StatusCode, res.Body)
			}
		})
	}
	wg.Wait()
}

func TestFortunesPage(t *testing.T) {
	t.Parallel()
	url, _ := serve(t)
	want := expectedPage()
	for range 2 { // rendered anew each time, from the same rows
		assert.Equal(t, want, get(t, url, "/fortunes"))
	}
}

func TestStartUpRefusesABadFile(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	err := newServer(empty).Ready()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plugin db")
	assert.Contains(t, err.Error(), "no such table: World")

	var stderr bytes.Buffer
	err = run([]string{"-port", "1", "-db", filepath.Join(t.TempDir(), "missing.db")}, &stderr)
	assert.ErrorIs(t, err, os.ErrNotExist)
	for _, args := range [][]string{{}, {"-db", empty}, {"-port", "70000", "-db", empty}, {"-port", "8080"}} {
		assert.ErrorContains(t, run(args, &stderr), "usage: tfb -port PORT -db FILE", args)
	}
}

func TestNoHandlerIsCalledByReflection(t *testing.T) {
	t.Parallel()
	s := newServer(databaseFile(t))
	require.NoError(t, s.Ready())
	t.Cleanup(func() { require.NoError(t, s.Close(t.Context())) })
	routes := s.PrintRoutes(app.IncludeHooks())
	assert.NotContains(t, routes, "by reflection", routes)
	assert.Contains(t, routes, "onRequest: serverHeader", routes)
}
