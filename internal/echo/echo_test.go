package echo

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s string
		n       int
		want    string
	}{
		{"short", "abc", 4, "abc"},
		{"exactly n", "abcd", 4, "abcd"},
		{"one over", "abcde", 4, "abcd…"},
		{"before a sequence", "abcdé", 4, "abcd…"},
		{"inside a sequence", "abcé", 4, "abc…"},
		{"inside a four-byte sequence", "a😀b", 3, "a…"},
		{"not UTF-8", "\x80\x80\x80\x80\x80\x80\x80\x80", 6, "\x80\x80…"},
		{"zero", "ab", 0, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Cut(tt.s, tt.n))
			assert.Equal(t, tt.want, Cut([]byte(tt.s), tt.n))
		})
	}
	long := strings.Repeat("é", 100)
	for n := range 20 {
		got := Cut(long, n)
		assert.True(t, utf8.ValidString(got), "%d: %q", n, got)
		assert.LessOrEqual(t, len(got), n+len("…"))
	}
}
