package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/internal/pgtest"
	"github.com/burrow-go/burrow/plugins/pubsub"
)

// TestMain fails the package if a test leaves a goroutine behind: a
// server not closed, a connection of the pool not released. With
// TODO_TEST_DB=postgres, the contract tests run on PostgreSQL: one
// throwaway cluster for the package, a fresh database per server.
func TestMain(m *testing.M) {
	if os.Getenv("TODO_TEST_DB") != "postgres" {
		apptest.Main(m)
		return
	}
	dir, err := os.MkdirTemp("", "todo-postgres-")
	if err == nil {
		pg, err = pgtest.Launch(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "TODO_TEST_DB=postgres:", err)
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop()
	os.RemoveAll(dir)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// pg is the cluster of a run with TODO_TEST_DB=postgres, nil otherwise.
var pg *pgtest.Server

// databases numbers the databases made on pg.
var databases atomic.Int64

// The users of every server the contract tests start.
const (
	alice    = "Bearer tokenA"
	bob      = "Bearer tokenB"
	users    = "alice:tokenA,bob:tokenB"
	jsonType = "application/json"
)

// hangLimit is how long a request may take before the test calls it a hang.
const hangLimit = time.Minute

// service is a running todo server, started by run as main starts it,
// on 127.0.0.1 and a port of its own.
type service struct {
	base   string
	client *http.Client
	// raw adds no Accept-Encoding and decodes nothing: the exchanges
	// that look at compression use it.
	raw  *http.Client
	stop func() // stops the server and checks run's answer; once
}

// env makes a getenv of pairs.
func env(pairs ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return m[k] }
}

// start runs the server with args (after -port 0) and the environment
// getenv, logging to logger, and stops it when t ends.
func start(t *testing.T, getenv func(string) string, logger *zap.Logger, args ...string) *service {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-port", "0"}, args...), getenv, logger, func(a net.Addr) { addrc <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		cancel()
		require.FailNow(t, "the server did not start", "%v", err)
	}
	tr, raw := &http.Transport{}, &http.Transport{DisableCompression: true}
	// The time-out only turns a hang (a request waiting for a connection
	// of the database that nothing will release) into a failure.
	s := &service{base: "http://" + addr.String(), client: &http.Client{Transport: tr, Timeout: hangLimit},
		raw: &http.Client{Transport: raw, Timeout: hangLimit}}
	s.stop = sync.OnceFunc(func() {
		tr.CloseIdleConnections()
		raw.CloseIdleConnections()
		cancel()
		assert.NoError(t, <-done, "run's answer to a graceful stop")
	})
	t.Cleanup(s.stop)
	return s
}

// startUsers starts a server for alice and bob with a fresh in-memory
// database, and args.
func startUsers(t *testing.T, args ...string) *service {
	args = append([]string{"-users", users}, args...)
	if pg != nil {
		db := pg.CreateDB(t, fmt.Sprintf("todo%d", databases.Add(1)))
		return start(t, env(), zap.NewNop(), append(args, "-db", db)...)
	}
	return start(t, env(), zap.NewNop(), args...)
}

// answer is a response with its body read.
type answer struct {
	status int
	header http.Header
	body   string
}

// do sends method path with the authorization auth (none when empty) and
// body as ctype (no body when ctype is empty). It stops the test if the
// request fails, so it runs on the test's goroutine only; a goroutine the
// test starts calls send.
func (s *service) do(t *testing.T, method, path, auth, ctype, body string) answer {
	t.Helper()
	a, err := s.send(method, path, auth, ctype, body)
	require.NoError(t, err)
	return a
}

// send is do for goroutines a test starts: it returns the error, for the
// test's goroutine to report (FailNow must not be called from another).
func (s *service) send(method, path, auth, ctype, body string) (answer, error) {
	var header []string
	if auth != "" {
		header = append(header, "Authorization", auth)
	}
	if ctype == "" {
		body = ""
	} else {
		header = append(header, "Content-Type", ctype)
	}
	return sendOn(s.client, method, s.base+path, body, header...)
}

// exchange sends method path with body (none when empty) and the
// header given as name, value pairs, through the raw client: nothing is
// added to the request, nothing taken from the answer.
func (s *service) exchange(t *testing.T, method, path, body string, header ...string) answer {
	t.Helper()
	a, err := sendOn(s.raw, method, s.base+path, body, header...)
	require.NoError(t, err)
	return a
}

// sendOn sends method url through c with body (none when empty) and the
// header given as name, value pairs, and reads the answer.
func sendOn(c *http.Client, method, url, body string, header ...string) (answer, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return answer{}, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}, nil
}

// step is one exchange of a scenario and the exact answer expected.
type step struct {
	name               string
	method, path, auth string
	ctype, sent        string
	status             int
	body               string
	header             map[string]string // expected headers; "" means absent
}

// play runs steps in order on s: a scenario builds state step by step.
func (s *service) play(t *testing.T, steps []step) {
	t.Helper()
	for _, st := range steps {
		a := s.do(t, st.method, st.path, st.auth, st.ctype, st.sent)
		assert.Equal(t, st.status, a.status, "%s: %s %s status (body %s)", st.name, st.method, st.path, a.body)
		assert.Equal(t, st.body, a.body, "%s: %s %s body", st.name, st.method, st.path)
		for k, v := range st.header {
			assert.Equal(t, v, a.header.Get(k), "%s: %s %s header %s", st.name, st.method, st.path, k)
		}
	}
}

// TestFailingCommitAnswers500: the transaction is committed before the
// reply is written, so a commit the database refuses answers 500, never
// the 201 or 204 of a change that did not happen (and no Location
// header), and the client reads the status text, not the database's
// error. The database is made to refuse the commit with a deferred
// foreign key the route's change breaks: SQLite checks it at COMMIT.
func TestFailingCommitAnswers500(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path, body string
		trap                     string // the statement that breaks the key
	}{
		{"create", "POST", "/todos", `{"title":"Milk"}`, "AFTER INSERT ON todos"},
		{"batch", "POST", "/todos/batch", `[{"title":"Milk"},{"title":"Eggs"}]`, "AFTER INSERT ON todos"},
		{"remove", "DELETE", "/todos/1", "", "AFTER DELETE ON todos"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := openDB(ctx, "")
			require.NoError(t, err)
			defer db.Close()
			bus := pubsub.New()
			s, err := newServer(ctx, db, setup{users: []user{{"alice", "tokenA"}}, bus: bus}, withoutLogs()...)
			require.NoError(t, err)
			require.NoError(t, s.Ready())
			defer s.Close(ctx)
			res := apptest.Do(t, s, "POST", "/todos", strings.NewReader(`{"title":"Bread"}`),
				"Authorization", alice, "Content-Type", jsonType)
			require.Equal(t, http.StatusCreated, res.StatusCode, res.Body)
			_, err = db.ExecContext(ctx, `
CREATE TABLE trap (user_id INTEGER REFERENCES users(id) DEFERRABLE INITIALLY DEFERRED);
CREATE TRIGGER trap `+tc.trap+` BEGIN INSERT INTO trap VALUES (-1); END;`)
			require.NoError(t, err)

			sub := bus.Subscribe(liveTopic(1))
			defer sub.Close()
			var body io.Reader
			header := []string{"Authorization", alice}
			if tc.body != "" {
				body = strings.NewReader(tc.body)
				header = append(header, "Content-Type", jsonType)
			}
			res = apptest.Do(t, s, tc.method, tc.path, body, header...)
			assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
			// The database's words stay in the log.
			assert.Equal(t, `{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}`, res.Body)
			assert.Empty(t, res.Header.Get("Location"))

			// Nothing was published: the next change is the first news.
			_, err = db.ExecContext(ctx, `DROP TRIGGER trap`)
			require.NoError(t, err)
			res = apptest.Do(t, s, "POST", "/todos", strings.NewReader(`{"title":"Jam"}`), "Authorization", alice, "Content-Type", jsonType)
			require.Equal(t, http.StatusCreated, res.StatusCode, res.Body)
			m := <-sub.C
			assert.Contains(t, string(m.Data), `"title":"Jam"`, "the failed request published nothing")
		})
	}
}
