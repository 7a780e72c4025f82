package urlpath

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"": true, "/a": true, "%41": true, "a%2fb": true, "%C3%a9": true, "100%25": true,
		"%": false, "%4": false, "a%": false, "%zz": false, "%4g": false, "%%41": false, "%41%": false,
	} {
		assert.Equal(t, want, Valid(s), s)
		_, err := url.PathUnescape(s)
		assert.Equal(t, want, err == nil, "net/url disagrees on %q", s)
	}
}

func TestDecodedText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"a", "%41", "a%42", "%41b%43", "%2541", "caf%c3%A9", "%2F", "x%2fy"} {
		want, err := url.PathUnescape(s)
		assert.NoError(t, err)
		assert.Equal(t, len(want), Len(s), s)
		assert.Equal(t, want[0], First(s), s)
		assert.Equal(t, want[len(want)-1], Last(s), s)
		var b strings.Builder
		Decode(&b, s)
		assert.Equal(t, want, b.String(), s)
		assert.True(t, Decodes(s, want), s)
	}
}

func TestHasPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, prefix string
		n         int
		ok        bool
	}{
		{"/api/x", "/api", 4, true},
		{"/%61pi/x", "/api", 6, true},
		{"/%61PI/x", "/api", 4, false},
		{"/api%2Fv1/x", "/api/v1", 4, false}, // an escaped slash is no separator
		{"/api/v1%2Fx", "/api/v1", 7, true},
		{"/ap", "/api", 3, false},
		{"", "", 0, true},
	}
	for _, tt := range tests {
		n, ok := HasPrefix(tt.s, tt.prefix)
		assert.Equal(t, tt.ok, ok, tt.s)
		if ok {
			assert.Equal(t, tt.n, n, tt.s)
		}
	}
	assert.True(t, Decodes("/api%2Fv1", "/api/v1"), "Decodes reads an escaped slash as url.PathUnescape does")
	assert.False(t, Decodes("/api%2Fv1", "/api/v2"))
	assert.False(t, Decodes("/api", "/api/"))
}
