package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exact answers Burrow and bearer-auth give; the contract keeps them.
const (
	missingAuth = `{"error":"missing authorization header"}`
	invalidAuth = `{"error":"invalid authorization header"}`
	notFound    = `{"statusCode":404,"code":"TODO_NOT_FOUND","error":"Not Found","message":"todo not found"}`
	badJSON     = `{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"unexpected end of JSON input"}`
	tooLarge    = `{"statusCode":413,"code":"FST_ERR_CTP_BODY_TOO_LARGE","error":"Request Entity Too Large","message":"Request body is too large"}`
)

// conflict is the 409 for title.
func conflictBody(title string) string {
	q, _ := json.Marshal(title)
	m, _ := json.Marshal("title already used: " + string(q))
	return `{"statusCode":409,"code":"TODO_TITLE_CONFLICT","error":"Conflict","message":` + string(m) + `}`
}

// invalid is the 400 of Burrow's validation for one failing field.
func invalid(path, rule, msg string) string {
	return fmt.Sprintf(`{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"%s %s","validation":[{"path":"%s","rule":"%s","message":"%s"}]}`,
		path, msg, path, rule, msg)
}

// js is v as the server encodes it.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// at is the Location header of todo id.
func at(id int64) map[string]string {
	return map[string]string{"Location": fmt.Sprintf("/todos/%d", id)}
}

func TestHealthAndAuth(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	tests := []struct {
		method, path string
	}{
		{"GET", "/todos"}, {"POST", "/todos"}, {"POST", "/todos/batch"},
		{"GET", "/todos/1"}, {"PATCH", "/todos/1"}, {"DELETE", "/todos/1"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			s.play(t, []step{
				{name: "no token", method: tc.method, path: tc.path, ctype: jsonType, sent: `{"title":"x"}`,
					status: 401, body: missingAuth, header: map[string]string{"Www-Authenticate": "Bearer"}},
				{name: "unknown token", method: tc.method, path: tc.path, auth: "Bearer tokenC", ctype: jsonType, sent: `{"title":"x"}`,
					status: 401, body: invalidAuth, header: map[string]string{"Www-Authenticate": `Bearer error="invalid_token"`}},
				{name: "another scheme", method: tc.method, path: tc.path, auth: "Basic dG9rZW5B", status: 401, body: invalidAuth},
			})
		})
	}
	t.Run("healthz", func(t *testing.T) {
		t.Parallel()
		s.play(t, []step{
			{name: "no token", method: "GET", path: "/healthz", status: 200, body: `{"status":"ok"}`},
			{name: "any token", method: "GET", path: "/healthz", auth: "Bearer nope", status: 200, body: `{"status":"ok"}`},
		})
	})
}

func TestCreateAndGet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200) // 200 characters, 400 bytes
	s := startUsers(t)
	s.play(t, []step{
		{name: "create", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"Milk"}`,
			status: 201, body: `{"id":1,"title":"Milk","done":false}`, header: at(1)},
		{name: "titles are case-sensitive", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"milk","done":true}`,
			status: 201, body: `{"id":2,"title":"milk","done":true}`, header: at(2)},
		{name: "title taken", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"Milk","done":true}`,
			status: 409, body: conflictBody("Milk"), header: map[string]string{"Location": ""}},
		{name: "200 characters", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: js(map[string]string{"title": long}),
			status: 201, body: js(todo{ID: 3, Title: long}), header: at(3)},
		{name: "201 characters", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: js(map[string]string{"title": long + "e"}),
			status: 400, body: invalid("body/title", "max", "must NOT have more than 200 characters")},
		{name: "empty title", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":""}`,
			status: 400, body: invalid("body/title", "required", "is required")},
		{name: "no title", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"done":true}`,
			status: 400, body: invalid("body/title", "required", "is required")},
		{name: "done not a boolean", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"x","done":"yes"}`,
			status: 400, body: invalid("body/done", "type", "must be boolean")},
		{name: "get", method: "GET", path: "/todos/1", auth: alice, status: 200, body: `{"id":1,"title":"Milk","done":false}`},
		{name: "get another", method: "GET", path: "/todos/2", auth: alice, status: 200, body: `{"id":2,"title":"milk","done":true}`},
		{name: "missing", method: "GET", path: "/todos/4", auth: alice, status: 404, body: notFound},
		{name: "nothing else was created", method: "GET", path: "/todos", auth: alice, status: 200,
			body: js([]todo{{1, "Milk", false}, {2, "milk", true}, {3, long, false}})},
	})
}

func TestList(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	// 25 todos, every third one done; and one of bob's, never listed.
	var batch []newTodo
	var all []todo
	for i := 1; i <= 25; i++ {
		batch = append(batch, newTodo{Title: fmt.Sprintf("t%d", i), Done: i%3 == 0})
		all = append(all, todo{ID: int64(i), Title: fmt.Sprintf("t%d", i), Done: i%3 == 0})
	}
	s.play(t, []step{
		{name: "empty", method: "GET", path: "/todos", auth: alice, status: 200, body: `[]`},
		{name: "fill", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: js(batch), status: 201, body: js(all)},
		{name: "bob's", method: "POST", path: "/todos", auth: bob, ctype: jsonType, sent: `{"title":"t1"}`,
			status: 201, body: `{"id":26,"title":"t1","done":false}`, header: at(26)},
	})
	var done, open []todo
	for _, td := range all {
		if td.Done {
			done = append(done, td)
		} else {
			open = append(open, td)
		}
	}
	tests := []struct {
		query  string
		status int
		body   string
	}{
		{"", 200, js(all[:20])},
		{"?limit=20&offset=0", 200, js(all[:20])},
		{"?limit=5&offset=20", 200, js(all[20:])},
		{"?limit=1", 200, js(all[:1])},
		{"?limit=100", 200, js(all)},
		{"?offset=24", 200, js(all[24:])},
		{"?offset=25", 200, `[]`},
		{"?offset=1000", 200, `[]`},
		{"?done=true", 200, js(done)},
		{"?done=false", 200, js(open)}, // 17, fewer than the limit
		{"?done=false&limit=3&offset=2", 200, js(open[2:5])},
		{"?limit=0", 400, invalid("querystring/limit", "min", "must be >= 1")},
		{"?limit=101", 400, invalid("querystring/limit", "max", "must be <= 100")},
		{"?limit=-1", 400, invalid("querystring/limit", "min", "must be >= 1")},
		{"?offset=-1", 400, invalid("querystring/offset", "min", "must be >= 0")},
		{"?limit=ten", 400, invalid("querystring/limit", "type", "must be integer")},
		{"?offset=1.5", 400, invalid("querystring/offset", "type", "must be integer")},
		{"?done=maybe", 400, invalid("querystring/done", "type", "must be boolean")},
		{"?limit=99999999999999999999", 400, invalid("querystring/limit", "type", "must be integer")},
		{"?limit=", 400, invalid("querystring/limit", "type", "must be integer")}, // present, so not the default
		{"?done=", 400, invalid("querystring/done", "type", "must be boolean")},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			s.play(t, []step{{name: "list", method: "GET", path: "/todos" + tc.query, auth: alice, status: tc.status, body: tc.body}})
		})
	}
	t.Run("both range errors at once", func(t *testing.T) {
		t.Parallel()
		a := s.do(t, "GET", "/todos?limit=0&offset=-1", alice, "", "")
		require.Equal(t, 400, a.status)
		var body struct {
			Validation []struct{ Path, Rule string }
		}
		require.NoError(t, json.Unmarshal([]byte(a.body), &body))
		assert.ElementsMatch(t, []struct{ Path, Rule string }{{"querystring/limit", "min"}, {"querystring/offset", "min"}}, body.Validation)
	})
}

func TestBatch(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	ab := js([]todo{{1, "a", false}, {2, "b", true}})
	fifty := make([]newTodo, 50)
	for i := range fifty {
		fifty[i].Title = fmt.Sprintf("n%d", i)
	}
	s.play(t, []step{
		{name: "create two", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType,
			sent: `[{"title":"a"},{"title":"b","done":true}]`, status: 201, body: ab},
		// Rollback: "c" is inserted before "a" conflicts, and must not stay.
		{name: "one title taken", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType,
			sent: `[{"title":"c"},{"title":"a"}]`, status: 409, body: conflictBody("a")},
		{name: "nothing created on conflict", method: "GET", path: "/todos", auth: alice, status: 200, body: ab},
		{name: "a title twice", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType,
			sent: `[{"title":"d"},{"title":"e"},{"title":"d"}]`, status: 409, body: conflictBody("d")},
		{name: "nothing created on a repeat", method: "GET", path: "/todos", auth: alice, status: 200, body: ab},
		{name: "case differs", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType,
			sent: `[{"title":"A"}]`, status: 201, body: `[{"id":3,"title":"A","done":false}]`},
		{name: "no body", method: "POST", path: "/todos/batch", auth: alice,
			status: 400, body: invalid("body", "required", "is required")},
		{name: "null", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: `null`,
			status: 400, body: invalid("body", "required", "is required")},
		{name: "empty", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: `[]`,
			status: 400, body: invalid("body", "min", "must NOT have fewer than 1 items")},
		{name: "51", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: js(append(fifty, newTodo{Title: "x"})),
			status: 400, body: invalid("body", "max", "must NOT have more than 50 items")},
		{name: "an invalid item", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: `[{"title":"f"},{"title":""}]`,
			status: 400, body: invalid("body/1/title", "required", "is required")},
		{name: "not an array", method: "POST", path: "/todos/batch", auth: alice, ctype: jsonType, sent: `{"title":"g"}`,
			status: 400, body: invalid("body", "type", "must be array")},
		{name: "nothing created by refused batches", method: "GET", path: "/todos", auth: alice, status: 200,
			body: js([]todo{{1, "a", false}, {2, "b", true}, {3, "A", false}})},
		{name: "bob may use alice's titles", method: "POST", path: "/todos/batch", auth: bob, ctype: jsonType,
			sent: `[{"title":"a"}]`, status: 201, body: `[{"id":4,"title":"a","done":false}]`},
	})
	a := s.do(t, "POST", "/todos/batch", alice, jsonType, js(fifty))
	require.Equal(t, 201, a.status, a.body)
	var created []todo
	require.NoError(t, json.Unmarshal([]byte(a.body), &created))
	require.Len(t, created, 50)
	for i, td := range created {
		assert.Equal(t, todo{ID: int64(5 + i), Title: fifty[i].Title}, td)
	}
}

func TestPatch(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	s.play(t, []step{
		{name: "a", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"a"}`, status: 201, body: `{"id":1,"title":"a","done":false}`},
		{name: "b", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"b"}`, status: 201, body: `{"id":2,"title":"b","done":false}`},
		{name: "bob's", method: "POST", path: "/todos", auth: bob, ctype: jsonType, sent: `{"title":"c"}`, status: 201, body: `{"id":3,"title":"c","done":false}`},
		{name: "done only", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"done":true}`,
			status: 200, body: `{"id":1,"title":"a","done":true}`},
		{name: "title only", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":"A"}`,
			status: 200, body: `{"id":1,"title":"A","done":true}`},
		{name: "both", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":"a2","done":false}`,
			status: 200, body: `{"id":1,"title":"a2","done":false}`},
		{name: "its own title", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":"a2"}`,
			status: 200, body: `{"id":1,"title":"a2","done":false}`},
		{name: "title taken", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":"b","done":true}`,
			status: 409, body: conflictBody("b")},
		{name: "unchanged by the conflict", method: "GET", path: "/todos/1", auth: alice, status: 200, body: `{"id":1,"title":"a2","done":false}`},
		{name: "bob's title is not alice's", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":"c"}`,
			status: 200, body: `{"id":1,"title":"c","done":false}`},
		{name: "no field", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{}`,
			status: 400, body: invalid("body", "minProperties", "must have title or done")},
		{name: "null is no field", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":null}`,
			status: 400, body: invalid("body", "minProperties", "must have title or done")},
		{name: "unknown fields only", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"id":7}`,
			status: 400, body: invalid("body", "minProperties", "must have title or done")},
		{name: "empty title", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: `{"title":""}`,
			status: 400, body: invalid("body/title", "min", "must NOT have fewer than 1 characters")},
		{name: "long title", method: "PATCH", path: "/todos/1", auth: alice, ctype: jsonType, sent: js(map[string]string{"title": strings.Repeat("x", 201)}),
			status: 400, body: invalid("body/title", "max", "must NOT have more than 200 characters")},
		{name: "no body", method: "PATCH", path: "/todos/1", auth: alice,
			status: 400, body: invalid("body", "minProperties", "must have title or done")},
		{name: "bob's todo", method: "PATCH", path: "/todos/3", auth: alice, ctype: jsonType, sent: `{"done":true}`, status: 404, body: notFound},
		{name: "bob's todo unchanged", method: "GET", path: "/todos/3", auth: bob, status: 200, body: `{"id":3,"title":"c","done":false}`},
		{name: "missing", method: "PATCH", path: "/todos/4", auth: alice, ctype: jsonType, sent: `{"done":true}`, status: 404, body: notFound},
		{name: "list", method: "GET", path: "/todos", auth: alice, status: 200, body: `[{"id":1,"title":"c","done":false},{"id":2,"title":"b","done":false}]`},
	})
}

func TestDelete(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	s.play(t, []step{
		{name: "a", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"a"}`, status: 201, body: `{"id":1,"title":"a","done":false}`},
		{name: "bob's", method: "POST", path: "/todos", auth: bob, ctype: jsonType, sent: `{"title":"b"}`, status: 201, body: `{"id":2,"title":"b","done":false}`},
		{name: "bob's todo", method: "DELETE", path: "/todos/2", auth: alice, status: 404, body: notFound},
		{name: "bob's todo is still there", method: "GET", path: "/todos/2", auth: bob, status: 200, body: `{"id":2,"title":"b","done":false}`},
		{name: "delete", method: "DELETE", path: "/todos/1", auth: alice, status: 204, body: "",
			header: map[string]string{"Content-Type": "", "Content-Length": ""}},
		{name: "gone", method: "GET", path: "/todos/1", auth: alice, status: 404, body: notFound},
		{name: "twice", method: "DELETE", path: "/todos/1", auth: alice, status: 404, body: notFound},
		{name: "title free again", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"a"}`,
			status: 201, body: `{"id":3,"title":"a","done":false}`, header: at(3)}, // ids are not reused
		{name: "list", method: "GET", path: "/todos", auth: alice, status: 200, body: `[{"id":3,"title":"a","done":false}]`},
	})
}

// TestIsolation: what one user sees of another's todos is exactly what
// it sees of todos that do not exist.
func TestIsolation(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	s.play(t, []step{
		{name: "alice's", method: "POST", path: "/todos", auth: alice, ctype: jsonType, sent: `{"title":"secret"}`,
			status: 201, body: `{"id":1,"title":"secret","done":false}`},
		{name: "bob lists nothing", method: "GET", path: "/todos", auth: bob, status: 200, body: `[]`},
		{name: "bob filters nothing", method: "GET", path: "/todos?done=false", auth: bob, status: 200, body: `[]`},
	})
	tests := []struct {
		method, body string
	}{{"GET", ""}, {"PATCH", `{"title":"mine"}`}, {"DELETE", ""}}
	// The parallel subtests pause until the body of the test that runs
	// them returns: grouped in "each", they have all finished when
	// t.Run("each") returns, so the check after them sees what they did.
	t.Run("each", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.method, func(t *testing.T) {
				t.Parallel()
				ctype := ""
				if tc.body != "" {
					ctype = jsonType
				}
				foreign := s.do(t, tc.method, "/todos/1", bob, ctype, tc.body)
				missing := s.do(t, tc.method, "/todos/999", bob, ctype, tc.body)
				assert.Equal(t, http.StatusNotFound, foreign.status)
				assert.Equal(t, missing.status, foreign.status)
				assert.Equal(t, missing.body, foreign.body)
				for _, h := range []string{"Date", "Ratelimit"} { // the budget left differs by a request
					foreign.header.Del(h)
					missing.header.Del(h)
				}
				assert.Equal(t, missing.header, foreign.header)
			})
		}
	})
	s.play(t, []step{{name: "alice's todo is intact", method: "GET", path: "/todos/1", auth: alice, status: 200, body: `{"id":1,"title":"secret","done":false}`}})
}

func TestBadID(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	notInteger := invalid("params/id", "type", "must be integer")
	notPositive := invalid("params/id", "min", "must be >= 1")
	ids := []struct {
		id   string
		body string
	}{
		{"abc", notInteger}, {"1.5", notInteger}, {"1e3", notInteger}, {"0x1", notInteger}, {"%201", notInteger},
		{"99999999999999999999", notInteger}, {"0", notPositive}, {"-1", notPositive}, {"-9223372036854775808", notPositive},
	}
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		for _, tc := range ids {
			t.Run(method+" "+tc.id, func(t *testing.T) {
				t.Parallel()
				ctype, sent := "", ""
				if method == "PATCH" {
					ctype, sent = jsonType, `{"done":true}`
				}
				s.play(t, []step{{name: "bad id", method: method, path: "/todos/" + tc.id, auth: alice, ctype: ctype, sent: sent, status: 400, body: tc.body}})
			})
		}
	}
}

// TestBadBodies: Burrow's standard answers to a body it cannot read.
func TestBadBodies(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	big := `{"title":"` + strings.Repeat("x", maxBody) + `"}`
	tests := []struct {
		name, method, path, auth, ctype, sent string
		status                                int
		body                                  string
	}{
		{"invalid JSON", "POST", "/todos", alice, jsonType, `{"title":`, 400, badJSON},
		{"invalid JSON in a batch", "POST", "/todos/batch", alice, jsonType, `[{"title":"a"}`, 400, badJSON},
		{"invalid JSON in a patch", "PATCH", "/todos/1", alice, jsonType, `{"done":`, 400, badJSON},
		{"a duplicate key", "POST", "/todos", alice, jsonType, `{"title":"a","title":"b"}`, 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_INVALID_JSON_BODY","error":"Bad Request","message":"duplicate key \"title\" in JSON object"}`},
		{"empty with a JSON type", "POST", "/todos", alice, jsonType, ``, 400,
			`{"statusCode":400,"code":"FST_ERR_CTP_EMPTY_JSON_BODY","error":"Bad Request","message":"Body cannot be empty when content-type is set to 'application/json'"}`},
		{"text", "POST", "/todos", alice, "text/plain", `title`, 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: text/plain"}`},
		{"form", "POST", "/todos/batch", alice, "application/x-www-form-urlencoded", `title=a`, 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/x-www-form-urlencoded"}`},
		{"xml patch", "PATCH", "/todos/1", alice, "application/xml", `<done/>`, 415,
			`{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/xml"}`},
		{"oversize", "POST", "/todos", alice, jsonType, big, 413, tooLarge},
		{"oversize batch", "POST", "/todos/batch", alice, jsonType, "[" + big + "]", 413, tooLarge},
		{"oversize patch", "PATCH", "/todos/1", alice, jsonType, big, 413, tooLarge},
		// Authentication comes first: an unknown caller's body is not read.
		{"oversize without a token", "POST", "/todos", "", jsonType, big, 401, missingAuth},
		{"invalid JSON without a token", "POST", "/todos", "", jsonType, `{`, 401, missingAuth},
	}
	// Grouped in "each" (see TestIsolation), the parallel subtests have
	// all finished before the check that none of them created a todo.
	t.Run("each", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s.play(t, []step{{name: tc.name, method: tc.method, path: tc.path, auth: tc.auth, ctype: tc.ctype, sent: tc.sent, status: tc.status, body: tc.body}})
			})
		}
	})
	s.play(t, []step{{name: "nothing was created", method: "GET", path: "/todos", auth: alice, status: 200, body: `[]`}})
}
