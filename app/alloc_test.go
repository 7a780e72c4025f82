package app_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Not parallel: AllocsPerRun counts the whole process's allocations.
//
// POST /echo's budgets: the valid body costs its value, its strings and
// slice, and the handler's result; the 400 costs the same decoding, then
// the error (with its field), its message and the error body. Hand-written
// net/http with encoding/json costs 22 on either (bench module). On Go 1.27
// encoding/json copies the handler's result once more (replyCopyAllocs);
// the 400's body is Burrow's own, the same on both.
func TestTypedInputAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	s := echoServer(t)
	for _, tt := range []struct {
		name   string
		body   string
		status int
		budget float64
	}{
		{"valid", echoValid, http.StatusOK, 7 + replyCopyAllocs},
		{"missing message", echoInvalid, http.StatusBadRequest, 8},
	} {
		data := []byte(tt.body)
		rb := &rereadBody{}
		req := httptest.NewRequest("POST", "/echo", nil)
		req.Header.Set("Content-Type", "application/json")
		req.Body, req.ContentLength = rb, int64(len(data))
		w := &discard{h: http.Header{}}
		allocs := testing.AllocsPerRun(200, func() {
			w.reset()
			rb.Reset(data)
			s.ServeHTTP(w, req)
		})
		require.Equal(t, tt.status, w.status, tt.name)
		assert.LessOrEqual(t, allocs, tt.budget, tt.name)
	}
}
