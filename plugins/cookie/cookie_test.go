package cookie_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/plugins/cookie"
)

var (
	oldKey = bytes.Repeat([]byte{1}, 32)
	newKey = bytes.Repeat([]byte{2}, 32)
)

func TestSignerRoundTripsAndRotates(t *testing.T) {
	t.Parallel()
	old, err := cookie.NewSigner(oldKey)
	require.NoError(t, err)
	rotated, err := cookie.NewSigner(newKey, oldKey)
	require.NoError(t, err)

	for _, v := range []string{"", "a", "a.b.c", "x." + strings.Repeat("A", 43), strings.Repeat("v", 3000)} {
		signed := old.Sign("sid", v)
		got, err := rotated.Verify("sid", signed)
		require.NoError(t, err, "an old key still verifies")
		assert.Equal(t, v, got)

		fresh := rotated.Sign("sid", v)
		_, err = old.Verify("sid", fresh)
		assert.ErrorIs(t, err, cookie.ErrInvalid, "a value signed with a newer key does not verify without it")
		_, err = rotated.Verify("other", fresh)
		assert.ErrorIs(t, err, cookie.ErrInvalid, "a value signed for one cookie is refused for another")
	}
}

func TestSignerRefusesEveryChangedByte(t *testing.T) {
	t.Parallel()
	s, err := cookie.NewSigner(newKey)
	require.NoError(t, err)
	signed := s.Sign("sid", "user=alice")
	for i := range len(signed) {
		b := []byte(signed)
		b[i] ^= 1
		_, err := s.Verify("sid", string(b))
		assert.ErrorIs(t, err, cookie.ErrInvalid, "byte %d changed", i)
	}
	for _, bad := range []string{"", ".", "user=alice", signed[:len(signed)-1], signed + "A", signed + "." + signed, strings.Repeat("a", 5000)} {
		_, err := s.Verify("sid", bad)
		assert.ErrorIs(t, err, cookie.ErrInvalid, "%.40q", bad)
	}
}

func TestSealerHidesRoundTripsAndRotates(t *testing.T) {
	t.Parallel()
	old, err := cookie.NewSealer(oldKey)
	require.NoError(t, err)
	rotated, err := cookie.NewSealer(newKey, oldKey)
	require.NoError(t, err)

	plain := []byte(`{"user":"alice"}`)
	sealed := old.Seal("sess", plain)
	assert.NotContains(t, sealed, "alice")
	assert.NotEqual(t, sealed, old.Seal("sess", plain), "each seal has its own nonce")

	got, err := rotated.Open("sess", sealed)
	require.NoError(t, err)
	assert.Equal(t, plain, got)

	_, err = old.Open("sess", rotated.Seal("sess", plain))
	assert.ErrorIs(t, err, cookie.ErrInvalid)
	_, err = rotated.Open("other", sealed)
	assert.ErrorIs(t, err, cookie.ErrInvalid)

	for i := range len(sealed) {
		b := []byte(sealed)
		b[i] ^= 1
		_, err := rotated.Open("sess", string(b))
		assert.Error(t, err, "byte %d changed", i)
	}
	for _, bad := range []string{"", "!!!", "AAAA", strings.Repeat("A", 5000)} {
		_, err := rotated.Open("sess", bad)
		assert.ErrorIs(t, err, cookie.ErrInvalid)
	}
}

func TestOneSecretSignsAndSealsWithDifferentKeys(t *testing.T) {
	t.Parallel()
	// A value sealed with a secret must not verify as signed by it, nor
	// the reverse: the two derive different keys.
	signer, err := cookie.NewSigner(newKey)
	require.NoError(t, err)
	sealer, err := cookie.NewSealer(newKey)
	require.NoError(t, err)
	_, err = signer.Verify("c", sealer.Seal("c", []byte("v")))
	assert.ErrorIs(t, err, cookie.ErrInvalid)
	_, err = sealer.Open("c", signer.Sign("c", "v"))
	assert.ErrorIs(t, err, cookie.ErrInvalid)
}

func TestKeysAreChecked(t *testing.T) {
	t.Parallel()
	cases := map[string][][]byte{
		"no key":             nil,
		"short key":          {[]byte("password")},
		"a short second key": {newKey, make([]byte, 31)},
	}
	for name, keys := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := cookie.NewSigner(keys...)
			assert.True(t, errors.Is(err, cookie.ErrKey), "%v", err)
			_, err = cookie.NewSealer(keys...)
			assert.True(t, errors.Is(err, cookie.ErrKey), "%v", err)
		})
	}
}

func TestNewAndExpireWriteSafeAttributes(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	http.SetCookie(rec, cookie.New("sid", "v"))
	http.SetCookie(rec, cookie.Expire("old"))
	got := rec.Result().Header.Values("Set-Cookie")
	require.Len(t, got, 2)
	assert.Equal(t, "sid=v; Path=/; HttpOnly; Secure; SameSite=Lax", got[0])
	assert.Equal(t, "old=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax", got[1])
}
