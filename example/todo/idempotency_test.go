package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/pgtest"
)

const (
	keyReused  = `{"statusCode":422,"code":"IDEMPOTENCY_KEY_REUSED","error":"Unprocessable Entity","message":"this Idempotency-Key was used with another request"}`
	keyInvalid = `{"statusCode":400,"code":"INVALID_IDEMPOTENCY_KEY","error":"Bad Request","message":"an Idempotency-Key is 1 to 255 visible ASCII characters"}`
)

// create sends POST path with body as auth, under key.
func (s *service) create(t *testing.T, path, auth, key, body string) answer {
	t.Helper()
	return s.exchange(t, "POST", path, body, "Authorization", auth, "Content-Type", jsonType, "Idempotency-Key", key)
}

// POST /todos and /todos/batch take an Idempotency-Key: a repeat of the
// same request gets the first answer and creates nothing, another body
// is 422, another user's key is another key.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	first := s.create(t, "/todos", alice, "k-1", `{"title":"Milk"}`)
	require.Equal(t, 201, first.status, first.body)
	assert.Equal(t, `{"id":1,"title":"Milk","done":false}`, first.body)
	again := s.create(t, "/todos", alice, "k-1", `{"title":"Milk"}`)
	assert.Equal(t, 201, again.status)
	assert.Equal(t, first.body, again.body)
	assert.Equal(t, "/todos/1", again.header.Get("Location"))
	assert.Equal(t, "true", again.header.Get("Idempotent-Replayed"))

	other := s.create(t, "/todos", alice, "k-1", `{"title":"Eggs"}`)
	assert.Equal(t, 422, other.status)
	assert.Equal(t, keyReused, other.body)

	bobs := s.create(t, "/todos", bob, "k-1", `{"title":"Milk"}`)
	assert.Equal(t, 201, bobs.status, "another user's key")
	assert.Equal(t, `{"id":2,"title":"Milk","done":false}`, bobs.body)

	batch := s.create(t, "/todos/batch", alice, "k-2", `[{"title":"a"},{"title":"b"}]`)
	require.Equal(t, 201, batch.status, batch.body)
	assert.Equal(t, batch.body, s.create(t, "/todos/batch", alice, "k-2", `[{"title":"a"},{"title":"b"}]`).body)
	assert.Equal(t, `[{"id":1,"title":"Milk","done":false},{"id":3,"title":"a","done":false},{"id":4,"title":"b","done":false}]`,
		s.do(t, "GET", "/todos", alice, "", "").body, "nothing created twice")
}

// A key is 1 to 255 characters from 0x21 to 0x7E.
func TestIdempotencyKeyForm(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	for _, key := range []string{"", strings.Repeat("k", 256), "a b", "clé"} {
		res := s.create(t, "/todos", alice, key, `{"title":"Milk"}`)
		assert.Equal(t, 400, res.status, "%q", key)
		assert.Equal(t, keyInvalid, res.body, "%q", key)
	}
	res := s.create(t, "/todos", alice, strings.Repeat("~", 255), `{"title":"Milk"}`)
	assert.Equal(t, 201, res.status, res.body)
}

// A batch refused 409 for a duplicate title rolled its key back with
// its todos: once the conflict is gone, the same key and body create.
func TestIdempotencyKeyOfAFailedRequest(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	require.Equal(t, 201, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"b"}`).status)
	refused := s.create(t, "/todos/batch", alice, "k-1", `[{"title":"a"},{"title":"b"}]`)
	assert.Equal(t, 409, refused.status)
	assert.Equal(t, conflictBody("b"), refused.body)
	require.Equal(t, 204, s.do(t, "DELETE", "/todos/1", alice, "", "").status)
	retried := s.create(t, "/todos/batch", alice, "k-1", `[{"title":"a"},{"title":"b"}]`)
	assert.Equal(t, 201, retried.status, retried.body)
	assert.Empty(t, retried.header.Get("Idempotent-Replayed"))
	assert.Equal(t, `[{"id":2,"title":"a","done":false},{"id":3,"title":"b","done":false}]`, retried.body)
}

// Two instances on one PostgreSQL database, the same key and body sent
// to both at once: one creation; the other answer is the replay or 409.
func TestIdempotencyKeyAcrossInstances(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t).URL("test")
	a := start(t, env(), zap.NewNop(), "-users", users, "-db", db)
	b := start(t, env(), zap.NewNop(), "-users", users, "-db", db)
	const keys = 10
	var (
		wg      sync.WaitGroup
		answers [keys][2]answer
		errs    [keys][2]error
	)
	for i := range keys {
		for j, s := range []*service{a, b} {
			wg.Go(func() {
				answers[i][j], errs[i][j] = sendOn(s.raw, "POST", s.base+"/todos", fmt.Sprintf(`{"title":"t%d"}`, i),
					"Authorization", alice, "Content-Type", jsonType, "Idempotency-Key", fmt.Sprintf("key-%d", i))
			})
		}
	}
	wg.Wait()
	for i := range keys {
		created := 0
		for j := range 2 {
			require.NoError(t, errs[i][j])
			res := answers[i][j]
			switch {
			case res.status == 201 && res.header.Get("Idempotent-Replayed") == "":
				created++
			case res.status == 201:
			default:
				assert.Equal(t, 409, res.status, res.body)
				assert.Contains(t, res.body, `"code":"IDEMPOTENCY_KEY_IN_USE"`)
			}
		}
		assert.Equal(t, 1, created, "key %d", i)
	}
	list := a.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, keys, strings.Count(list.body, `"id":`), list.body)
}
