package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// preconditionFailed is the exact 412 of an If-Match that does not hold.
const preconditionFailed = `{"statusCode":412,"code":"ERR_PRECONDITION_FAILED","error":"Precondition Failed",` +
	`"message":"The resource has changed since the client read it: a precondition (If-Match, If-Unmodified-Since) failed"}`

// preconditionRequired is the exact 428 of -require-if-match.
const preconditionRequired = `{"statusCode":428,"code":"ERR_PRECONDITION_REQUIRED","error":"Precondition Required",` +
	`"message":"The request must carry If-Match with the entity tag of the resource it changes"}`

// newTodoAs creates a todo titled title for auth and returns its path.
func newTodoAs(t *testing.T, s *service, auth, title string) string {
	t.Helper()
	a := s.exchange(t, "POST", "/todos", `{"title":`+js(title)+`}`, "Authorization", auth, "Content-Type", jsonType)
	require.Equal(t, 201, a.status, a.body)
	return a.header.Get("Location")
}

// tagged reads path as auth: its ETag, after checking that it is strong
// and the answer private and revalidated.
func tagged(t *testing.T, s *service, auth, path string) (tag, body string) {
	t.Helper()
	a := s.exchange(t, "GET", path, "", "Authorization", auth)
	require.Equal(t, 200, a.status, a.body)
	tag = a.header.Get("ETag")
	assert.Regexp(t, `^"[^"]+"$`, tag, "%s: a strong tag without compression", path)
	cc := a.header.Get("Cache-Control")
	assert.Contains(t, cc, "private", path)
	assert.Contains(t, cc, "no-cache", path)
	assert.NotContains(t, cc, "public", path)
	return tag, a.body
}

// TestRevalidation: GET /todos/:id and GET /todos carry a strong ETag
// and Cache-Control private, no-cache; If-None-Match with the current
// tag is 304 with no body and the same tag; a PATCH changes both tags,
// and the old one then gets the 200.
func TestRevalidation(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	one := newTodoAs(t, s, alice, "milk")
	for _, path := range []string{one, "/todos", "/todos?limit=5"} {
		tag, _ := tagged(t, s, alice, path)
		for _, method := range []string{"GET", "HEAD"} {
			a := s.exchange(t, method, path, "", "Authorization", alice, "If-None-Match", tag)
			assert.Equal(t, 304, a.status, "%s %s", method, path)
			assert.Empty(t, a.body)
			assert.Equal(t, tag, a.header.Get("ETag"))
			assert.Contains(t, a.header.Get("Cache-Control"), "no-cache")
		}
	}
	itemTag, _ := tagged(t, s, alice, one)
	listTag, _ := tagged(t, s, alice, "/todos")
	a := s.exchange(t, "PATCH", one, `{"done":true}`, "Authorization", alice, "Content-Type", jsonType)
	require.Equal(t, 200, a.status, a.body)
	newItem, body := tagged(t, s, alice, one)
	assert.NotEqual(t, itemTag, newItem)
	assert.Contains(t, body, `"done":true`)
	newList, _ := tagged(t, s, alice, "/todos")
	assert.NotEqual(t, listTag, newList, "a change to one of the user's todos changes the list's tag")
	old := s.exchange(t, "GET", one, "", "Authorization", alice, "If-None-Match", itemTag)
	assert.Equal(t, 200, old.status)
	assert.Equal(t, newItem, old.header.Get("ETag"))

	newTodoAs(t, s, alice, "eggs")
	added, _ := tagged(t, s, alice, "/todos")
	assert.NotEqual(t, newList, added, "a new todo changes the list's tag")
}

// TestTagsAreNotShared: two users' answers have the same tag only when
// their bodies are the same bytes; bob's tag never revalidates alice's
// todo, which bob cannot read at all.
func TestTagsAreNotShared(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	emptyA, bodyA := tagged(t, s, alice, "/todos")
	emptyB, bodyB := tagged(t, s, bob, "/todos")
	require.Equal(t, bodyA, bodyB)
	assert.Equal(t, emptyA, emptyB, "equal bodies, equal tags")

	one := newTodoAs(t, s, alice, "same")
	newTodoAs(t, s, bob, "same")
	listA, bodyA := tagged(t, s, alice, "/todos")
	listB, bodyB := tagged(t, s, bob, "/todos")
	require.NotEqual(t, bodyA, bodyB, "the ids differ")
	assert.NotEqual(t, listA, listB)

	tagA, _ := tagged(t, s, alice, one)
	a := s.exchange(t, "GET", one, "", "Authorization", bob, "If-None-Match", tagA)
	assert.Equal(t, 404, a.status, "another user's todo is not found, tag or no tag")
	assert.Empty(t, a.header.Get("ETag"))
}

// TestConditionalWrites: PATCH and DELETE /todos/:id with If-Match: the
// current tag or * proceeds; another tag (a stale one, a weak one) is
// 412 in the error shape and changes nothing; no If-Match proceeds.
func TestConditionalWrites(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	one := newTodoAs(t, s, alice, "bread")
	tag, before := tagged(t, s, alice, one)
	for _, ifMatch := range []string{`"nope"`, "W/" + tag, `W/"nope", "x"`, "garbage"} {
		for _, method := range []string{"PATCH", "DELETE"} {
			a := s.exchange(t, method, one, `{"title":"changed"}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", ifMatch)
			assert.Equal(t, 412, a.status, "%s If-Match %s", method, ifMatch)
			assert.Equal(t, preconditionFailed, a.body)
		}
	}
	now, body := tagged(t, s, alice, one)
	assert.Equal(t, tag, now, "nothing changed")
	assert.Equal(t, before, body)

	a := s.exchange(t, "PATCH", one, `{"title":"rye"}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", `"other", `+tag)
	require.Equal(t, 200, a.status, a.body)
	stale := s.exchange(t, "PATCH", one, `{"title":"spelt"}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", tag)
	assert.Equal(t, 412, stale.status, "the tag from before the change is stale: no lost update")
	a = s.exchange(t, "PATCH", one, `{"done":true}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", "*")
	assert.Equal(t, 200, a.status, a.body)
	a = s.exchange(t, "PATCH", one, `{"done":false}`, "Authorization", alice, "Content-Type", jsonType)
	assert.Equal(t, 200, a.status, "no If-Match: proceeds")

	cur, _ := tagged(t, s, alice, one)
	a = s.exchange(t, "DELETE", one, "", "Authorization", alice, "If-Match", tag)
	assert.Equal(t, 412, a.status)
	a = s.exchange(t, "DELETE", one, "", "Authorization", alice, "If-Match", cur)
	assert.Equal(t, 204, a.status, a.body)
	a = s.exchange(t, "DELETE", one, "", "Authorization", alice, "If-Match", "*")
	assert.Equal(t, 404, a.status, "gone: 404, as without If-Match")

	two := newTodoAs(t, s, alice, "jam")
	a = s.exchange(t, "DELETE", two, "", "Authorization", alice)
	assert.Equal(t, 204, a.status, "no If-Match: proceeds")
}

// TestRequireIfMatch: with -require-if-match, a PATCH or DELETE without
// If-Match is 428 in the error shape and changes nothing; with the
// current tag it proceeds; reads are as before.
func TestRequireIfMatch(t *testing.T) {
	t.Parallel()
	s := startUsers(t, "-require-if-match")
	one := newTodoAs(t, s, alice, "tea")
	tag, before := tagged(t, s, alice, one)
	for _, method := range []string{"PATCH", "DELETE"} {
		a := s.exchange(t, method, one, `{"done":true}`, "Authorization", alice, "Content-Type", jsonType)
		assert.Equal(t, 428, a.status, method)
		assert.Equal(t, preconditionRequired, a.body, method)
	}
	_, body := tagged(t, s, alice, one)
	assert.Equal(t, before, body, "nothing changed")
	a := s.exchange(t, "PATCH", one, `{"done":true}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", `"nope"`)
	assert.Equal(t, 412, a.status)
	a = s.exchange(t, "PATCH", one, `{"done":true}`, "Authorization", alice, "Content-Type", jsonType, "If-Match", tag)
	require.Equal(t, 200, a.status, a.body)
	cur, _ := tagged(t, s, alice, one)
	a = s.exchange(t, "DELETE", one, "", "Authorization", alice, "If-Match", cur)
	assert.Equal(t, 204, a.status, a.body)
	a = s.exchange(t, "DELETE", one, "", "If-Match", cur)
	assert.Equal(t, 401, a.status, "authentication comes first")
}

// TestCachingDocumented: the document lists ETag on the 200s of GET
// /todos and /todos/:id and their 304, 412 on PATCH and DELETE, and 428
// only when the server requires If-Match.
func TestCachingDocumented(t *testing.T) {
	t.Parallel()
	type responses map[string]struct {
		Headers map[string]json.RawMessage `json:"headers"`
	}
	read := func(s *service) map[string]map[string]struct {
		Responses  responses `json:"responses"`
		Parameters []struct {
			Name string `json:"name"`
		} `json:"parameters"`
	} {
		res := s.do(t, "GET", "/openapi.json", "", "", "")
		require.Equal(t, 200, res.status)
		var doc struct {
			Paths map[string]map[string]struct {
				Responses  responses `json:"responses"`
				Parameters []struct {
					Name string `json:"name"`
				} `json:"parameters"`
			} `json:"paths"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.body), &doc))
		return doc.Paths
	}
	for _, required := range []bool{false, true} {
		t.Run(fmt.Sprint("require-if-match=", required), func(t *testing.T) {
			t.Parallel()
			var args []string
			if required {
				args = append(args, "-require-if-match")
			}
			paths := read(startUsers(t, args...))
			for _, p := range []string{"/todos", "/todos/{id}"} {
				get := paths[p]["get"].Responses
				assert.Contains(t, get["200"].Headers, "ETag", p)
				assert.Contains(t, get["200"].Headers, "Cache-Control", p)
				assert.Contains(t, get["304"].Headers, "ETag", p)
			}
			for _, m := range []string{"patch", "delete"} {
				op := paths["/todos/{id}"][m]
				assert.Contains(t, op.Responses, "412", m)
				var names []string
				for _, p := range op.Parameters {
					names = append(names, p.Name)
				}
				assert.Contains(t, strings.Join(names, ","), "If-Match", m)
				if required {
					assert.Contains(t, op.Responses, "428", m)
				} else {
					assert.NotContains(t, op.Responses, "428", m)
				}
			}
			assert.NotContains(t, paths["/todos"]["post"].Responses, "412")
		})
	}
}
