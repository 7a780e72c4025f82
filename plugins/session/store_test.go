package session_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/plugins/session"
	"github.com/burrow-go/burrow/plugins/session/sessiontest"
)

func TestMemoryStoreConforms(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, sessiontest.Caps{Revocable: true}, func(*testing.T) session.Store { return session.NewMemoryStore() })
}

func TestCookieStoreConforms(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, sessiontest.Caps{}, func(t *testing.T) session.Store {
		st, err := session.NewCookieStore(bytes.Repeat([]byte{7}, 32))
		require.NoError(t, err)
		return st
	})
}

func TestMemoryStoreIsBounded(t *testing.T) {
	t.Parallel()
	st := session.NewMemoryStoreOf(64)
	var first string
	for i := range 10_000 {
		tok, err := st.Save(t.Context(), "", []byte("x"), 3600e9)
		require.NoError(t, err)
		if i == 0 {
			first = tok
		}
	}
	assert.LessOrEqual(t, st.Len(), 64)
	_, err := st.Load(t.Context(), first)
	assert.ErrorIs(t, err, session.ErrNotFound, "the oldest session is forgotten first")
}

func TestCookieStoreRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	st, err := session.NewCookieStore(bytes.Repeat([]byte{7}, 32))
	require.NoError(t, err)
	_, err = st.Save(t.Context(), "", bytes.Repeat([]byte("x"), 4000), 3600e9)
	assert.ErrorIs(t, err, session.ErrTooLarge)
}
