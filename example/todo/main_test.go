package main

import (
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
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
	ab := userList{{"alice", "tokenA"}, {"bob", "tokenB"}}
	defaults := settings{Host: "127.0.0.1", Port: 8080, RateLimit: 600, RateLimitIP: 60}
	tests := []struct {
		name string
		args []string
		env  []string
		want func(*settings)
		err  string
	}{
		{name: "defaults", want: func(*settings) {}},
		{name: "flags", args: []string{"-port", "9000", "-host", "0.0.0.0", "-db", "t.db", "-users", "alice:tokenA,bob:tokenB"},
			want: func(c *settings) { c.Host, c.Port, c.DB, c.Users = "0.0.0.0", 9000, "t.db", ab }},
		{name: "environment", env: []string{"PORT", "9001", "TODO_USERS", "alice:tokenA, bob:tokenB,"},
			want: func(c *settings) { c.Port, c.Users = 9001, ab }},
		{name: "TODO_PORT before PORT", env: []string{"PORT", "9001", "TODO_PORT", "9005"}, want: func(c *settings) { c.Port = 9005 }},
		{name: "flags win", args: []string{"-port", "9002", "-users", "carol:c"}, env: []string{"PORT", "9001", "TODO_USERS", "alice:tokenA"},
			want: func(c *settings) { c.Port, c.Users = 9002, userList{{"carol", "c"}} }},
		{name: "a token may hold a colon", args: []string{"-users", "alice:a:b"}, want: func(c *settings) { c.Users = userList{{"alice", "a:b"}} }},
		{name: "port 0", args: []string{"-port", "0"}, want: func(c *settings) { c.Port = 0 }},
		{name: "identity providers", args: []string{"-jwt-issuer", "https://id.example", "-jwt-audience", "todo",
			"-oidc-issuer", "https://id.example", "-oidc-client-id", "todo", "-public-url", "https://todo.example"},
			env: []string{"TODO_OIDC_CLIENT_SECRET", "s3cret"},
			want: func(c *settings) {
				c.JWTIssuer, c.JWTAudience, c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret, c.PublicURL =
					"https://id.example", "todo", "https://id.example", "todo", "s3cret", "https://todo.example"
			}},
		{name: "bad port", args: []string{"-port", "http"}, err: "-port must be integer (rule type)"},
		{name: "bad PORT", env: []string{"PORT", "70000"}, err: "PORT must be <= 65535 (rule max)"},
		{name: "no colon", args: []string{"-users", "alice:a,secretToken"}, err: "-users entry 2 has no colon; want name:token (rule type)"},
		{name: "empty token", args: []string{"-users", "alice: "}, err: `-users entry 1 ("alice:…") is not name:token (rule type)`},
		{name: "no name", args: []string{"-users", ":secret"}, err: `-users entry 1 (":…") is not name:token (rule type)`},
		{name: "a name twice", args: []string{"-users", "alice:a,alice:b"}, err: `-users user "alice" is given twice (rule type)`},
		{name: "a token twice", args: []string{"-users", "alice:a,bob:a"}, err: `-users user "bob" has the token of another user (rule type)`},
		{name: "an argument", args: []string{"serve"}, err: `unexpected argument "serve" (rule syntax)`},
		{name: "unknown flag", args: []string{"-keys", "k"}, err: `flag provided but not defined: -keys (rule syntax)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFlags(tc.args, env(tc.env...))
			if tc.err != "" {
				assert.EqualError(t, err, "invalid configuration:\n\t"+tc.err)
				assert.Equal(t, 2, app.ExitCode(err))
				assert.NotContains(t, err.Error(), "secretToken")
				return
			}
			require.NoError(t, err)
			want := defaults
			tc.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

// TestDocCommentNamesEveryFlag: the command's doc comment (what go doc
// shows) names every flag the settings define.
func TestDocCommentNamesEveryFlag(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	doc := f.Doc.Text()
	var names []string
	st := reflect.TypeFor[settings]()
	for i := range st.NumField() {
		if name := st.Field(i).Tag.Get("flag"); name != "" {
			names = append(names, name)
		}
	}
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
	// The session is the auth hook's: a request without the cookie
	// builds it without a look-up.
	values := "request values: *sql.Tx, main.userID, main.todos, *session.Session[github.com/burrow-go/burrow/example/todo.account]"
	assert.Equal(t, 3, strings.Count(printed, values+"\n"),
		"the todo routes without Idempotency-Key (GET /todos, /todos/:id, /todos/import) build the four values:\n%s", printed)
	assert.Equal(t, 2, strings.Count(printed, values+", idempotency.Records, *idempotency.call\n"),
		"the creations (POST /todos, /todos/batch) build the four values and the key's:\n%s", printed)
	assert.NotContains(t, printed, "by reflection")
}
