package main

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	ab := []user{{"alice", "tokenA"}, {"bob", "tokenB"}}
	tests := []struct {
		name string
		args []string
		env  []string
		want config
		err  string
	}{
		{name: "defaults", want: config{host: "127.0.0.1", port: 8080}},
		{name: "flags", args: []string{"-port", "9000", "-host", "0.0.0.0", "-db", "t.db", "-users", "alice:tokenA,bob:tokenB"},
			want: config{host: "0.0.0.0", port: 9000, db: "t.db", users: ab}},
		{name: "environment", env: []string{"PORT", "9001", "TODO_USERS", "alice:tokenA, bob:tokenB,"},
			want: config{host: "127.0.0.1", port: 9001, users: ab}},
		{name: "flags win", args: []string{"-port", "9002", "-users", "carol:c"}, env: []string{"PORT", "9001", "TODO_USERS", "alice:tokenA"},
			want: config{host: "127.0.0.1", port: 9002, users: []user{{"carol", "c"}}}},
		{name: "a token may hold a colon", args: []string{"-users", "alice:a:b"},
			want: config{host: "127.0.0.1", port: 8080, users: []user{{"alice", "a:b"}}}},
		{name: "port 0", args: []string{"-port", "0"}, want: config{host: "127.0.0.1", port: 0}},
		{name: "bad port", args: []string{"-port", "http"}, err: `invalid port "http": want a number from 0 to 65535`},
		{name: "bad PORT", env: []string{"PORT", "70000"}, err: `invalid port "70000": want a number from 0 to 65535`},
		{name: "no colon", args: []string{"-users", "alice:a,secretToken"}, err: `invalid -users: entry 2 has no colon; want name:token`},
		{name: "empty token", args: []string{"-users", "alice: "}, err: `invalid -users: entry 1 ("alice:…") is not name:token`},
		{name: "no name", args: []string{"-users", ":secret"}, err: `invalid -users: entry 1 (":…") is not name:token`},
		{name: "a name twice", args: []string{"-users", "alice:a,alice:b"}, err: `invalid -users: user "alice" is given twice`},
		{name: "a token twice", args: []string{"-users", "alice:a,bob:a"}, err: `invalid -users: user "bob" has the token of another user`},
		{name: "an argument", args: []string{"serve"}, err: `unexpected argument "serve"`},
		{name: "unknown flag", args: []string{"-keys", "k"}, err: `flag provided but not defined: -keys`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFlags(tc.args, env(tc.env...))
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got.traffic = trafficFlags{} // TestTrafficFlags checks them
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDocCommentNamesEveryFlag: the command's doc comment (what go doc
// shows) names every flag parseFlags defines, found as the name each
// fs.<Type>/fs.<Type>Var call in main.go passes.
func TestDocCommentNamesEveryFlag(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	doc := f.Doc.Text()
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fs" {
			return true
		}
		for _, arg := range call.Args { // the name is the first string
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				names = append(names, name)
				break
			}
		}
		return true
	})
	require.Contains(t, names, "port", "the flags are found")
	for _, name := range names {
		assert.Regexp(t, regexp.MustCompile(`(^|[^\w-])-`+regexp.QuoteMeta(name)+`\b`), doc, "the doc comment names -%s", name)
	}
}

// TestDemoUser: with no users, one user "demo" gets a random token, said
// once in the log, and that token works.
func TestDemoUser(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	s := start(t, env(), zap.New(core))
	warned := logs.FilterMessageSnippet("user demo gets a random token").All()
	require.Len(t, warned, 1)
	token, ok := warned[0].ContextMap()["token"].(string)
	require.True(t, ok, "the warning names the token: %v", warned[0].ContextMap())
	require.GreaterOrEqual(t, len(token), 40)

	s.play(t, []step{
		{name: "demo's token", method: "POST", path: "/todos", auth: "Bearer " + token, ctype: jsonType, sent: `{"title":"try"}`,
			status: 201, body: `{"id":1,"title":"try","done":false}`},
		{name: "another token", method: "GET", path: "/todos", auth: "Bearer tokenA", status: 401, body: invalidAuth},
	})
	s.stop()
	n := 0
	for _, e := range logs.All() {
		for _, v := range e.ContextMap() {
			if v == token {
				n++
			}
		}
	}
	assert.Equal(t, 1, n, "the token is logged once")

	other := start(t, env(), zap.NewNop())
	other.play(t, []step{{name: "a new token each run", method: "GET", path: "/todos", auth: "Bearer " + token, status: 401, body: invalidAuth}})
}

// TestDatabaseFile: with -db, the todos outlive the process, and each
// user finds theirs again, even under a new token.
func TestDatabaseFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "todo.db")
	first := start(t, env(), zap.NewNop(), "-db", path, "-users", users)
	first.play(t, []step{
		{name: "alice's", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"kept"}`, status: 201, body: `{"id":1,"title":"kept","done":false}`},
		{name: "bob's", method: "POST", path: "/todos", auth: bob, ctype: jsonType, sent: `{"title":"his"}`, status: 201, body: `{"id":2,"title":"his","done":false}`},
	})
	first.stop()

	second := start(t, env("TODO_USERS", "bob:newB,alice:newA"), zap.NewNop(), "-db", path)
	second.play(t, []step{
		{name: "alice's todos", method: "GET", path: "/todos", auth: "Bearer newA", status: 200, body: `[{"id":1,"title":"kept","done":false}]`},
		{name: "bob's todos", method: "GET", path: "/todos", auth: "Bearer newB", status: 200, body: `[{"id":2,"title":"his","done":false}]`},
		{name: "the old token", method: "GET", path: "/todos", auth: alice, status: 401, body: invalidAuth},
		{name: "titles still unique", method: "POST", path: "/todos", auth: "Bearer newA", ctype: jsonType, sent: `{"title":"kept"}`, status: 409, body: conflictBody("kept")},
	})
}

func TestBadDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := run(context.Background(), []string{"-port", "0", "-db", filepath.Join(dir, "missing", "todo.db")}, env(), zap.NewNop(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "opening the database "+filepath.Join(dir, "missing", "todo.db")+": ")
	// A directory is not a database either.
	err = run(context.Background(), []string{"-port", "0", "-db", dir}, env(), zap.NewNop(), nil)
	assert.ErrorContains(t, err, "opening the database "+dir+": ")
}

// TestInMemoryPool: an in-memory SQLite database lives in its
// connection, so the pool of one (-db empty or SQLite's ":memory:") is
// pinned to a single connection; a second connection would be another,
// empty, database. A file's pool is not limited.
func TestInMemoryPool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path  string
		conns int
	}{{"", 1}, {":memory:", 1}, {filepath.Join(t.TempDir(), "todo.db"), 0}}
	for _, tc := range tests {
		db, err := openDB(context.Background(), tc.path)
		require.NoError(t, err)
		assert.Equal(t, tc.conns, db.Stats().MaxOpenConnections, "%q", tc.path)
		require.NoError(t, db.Close())
	}
	assert.NoFileExists(t, ":memory:")
}

// TestConcurrentWriters: users writing at once each get every todo they
// created, and only theirs — with the one pinned connection of the
// in-memory database and with a file's pool. Run with -race.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"memory", "file"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			args := []string{"-users", users}
			if db == "file" {
				args = append(args, "-db", filepath.Join(t.TempDir(), "todo.db"))
			}
			s := start(t, env(), zap.NewNop(), args...)
			const perUser = 10
			// The writers report to the test's goroutine, which checks
			// what they got: require (FailNow) must not run in them.
			type sent struct {
				what string
				a    answer
				err  error
			}
			results := make(chan sent, 2*2*perUser)
			var wg sync.WaitGroup
			for _, who := range []string{alice, bob} {
				for i := range perUser {
					wg.Go(func() {
						a, err := s.send("POST", "/todos", who, jsonType, fmt.Sprintf(`{"title":"one %d"}`, i))
						results <- sent{fmt.Sprintf("%s: one %d", who, i), a, err}
					})
					wg.Go(func() {
						a, err := s.send("POST", "/todos/batch", who, jsonType, fmt.Sprintf(`[{"title":"two %d"},{"title":"three %d"}]`, i, i))
						results <- sent{fmt.Sprintf("%s: two and three %d", who, i), a, err}
					})
				}
			}
			wg.Wait()
			close(results)
			for r := range results {
				require.NoError(t, r.err, r.what)
				assert.Equal(t, 201, r.a.status, "%s: %s", r.what, r.a.body)
			}
			for _, who := range []string{alice, bob} {
				a := s.do(t, "GET", "/todos?limit=100", who, "", "")
				require.Equal(t, 200, a.status, a.body)
				var list []todo
				require.NoError(t, json.Unmarshal([]byte(a.body), &list))
				titles := map[string]bool{}
				for _, td := range list {
					titles[td.Title] = true
				}
				assert.Len(t, list, 3*perUser, who)
				for i := range perUser {
					for _, p := range []string{"one", "two", "three"} {
						assert.True(t, titles[fmt.Sprintf("%s %d", p, i)], "%s has %s %d", who, p, i)
					}
				}
			}
		})
	}
}

// TestNoHandlerIsCalledByReflection: every route of the service calls its
// handler, and the constructors of the request values it builds,
// directly. PrintRoutes marks, route by route, a handler or a
// constructor called through reflect.Value.Call "by reflection".
func TestNoHandlerIsCalledByReflection(t *testing.T) {
	t.Parallel()
	db, err := openDB(context.Background(), "")
	require.NoError(t, err)
	defer db.Close()
	s, err := newServer(context.Background(), db, setup{users: []user{{"alice", "tokenA"}}}, withoutLogs()...)
	require.NoError(t, err)
	require.NoError(t, s.Ready())
	defer s.Close(context.Background())
	printed := s.PrintRoutes(app.IncludeHooks())
	t.Log(printed)
	// The session is the guard's own (session.Method): no route of the
	// todos builds one as a request value.
	// Six lines: the safe and unsafe methods of /todos and /todos/:id
	// print apart (CSRF guards the unsafe ones), then /todos/batch and
	// /todos/import.
	assert.Equal(t, 6, strings.Count(printed, "request values: *sql.Tx, main.userID, main.todos\n"),
		"the todo routes (/todos, /todos/batch, /todos/:id, /todos/import) build the three values:\n%s", printed)
	assert.NotContains(t, printed, "by reflection")
}
