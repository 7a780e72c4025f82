package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/pgtest"
)

// Two instances on one PostgreSQL database serve one list: what one
// writes, the other reads, and a title taken on one is taken on both.
func TestTwoInstancesShareOnePostgreSQLDatabase(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t).URL("test")
	a := start(t, env(), zap.NewNop(), "-users", users, "-db", db)
	b := start(t, env(), zap.NewNop(), "-users", users, "-db", db)

	res := a.do(t, "POST", "/todos", alice, jsonType, `{"title":"Milk"}`)
	require.Equal(t, 201, res.status, res.body)
	assert.Equal(t, `{"id":1,"title":"Milk","done":false}`, res.body)

	res = b.do(t, "GET", "/todos/1", alice, "", "")
	assert.Equal(t, 200, res.status)
	assert.Equal(t, `{"id":1,"title":"Milk","done":false}`, res.body)

	res = b.do(t, "POST", "/todos", alice, jsonType, `{"title":"Milk"}`)
	assert.Equal(t, 409, res.status)
	res = b.do(t, "POST", "/todos", alice, jsonType, `{"title":"Eggs"}`)
	assert.Equal(t, `{"id":2,"title":"Eggs","done":false}`, res.body, "ids go on from the other instance's")
	assert.Equal(t, 404, a.do(t, "GET", "/todos/1", bob, "", "").status, "still one list per user")
}
