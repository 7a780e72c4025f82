package etag

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOf is not parallel: AllocsPerRun refuses to be.
func TestOf(t *testing.T) {
	a, b := Of([]byte(`{"id":1}`)), Of([]byte(`{"id":2}`))
	assert.Regexp(t, `^"[A-Za-z0-9_-]{22}"$`, a)
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, Of([]byte(`{"id":1}`)))
	body := []byte("x")
	assert.Equal(t, 1.0, testing.AllocsPerRun(10, func() { _ = Of(body) }), "one allocation: the string")
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lines        []string
		tag          string
		weak, strong bool
	}{
		{[]string{`"a"`}, `"a"`, true, true},
		{[]string{`W/"a"`}, `"a"`, true, false},
		{[]string{`"a"`}, `W/"a"`, true, false},
		{[]string{`"x", "a"`}, `"a"`, true, true},
		{[]string{`"x"`, `"a"`}, `"a"`, true, true},
		{[]string{` "x" ,W/"y",  "a" `}, `"a"`, true, true},
		{[]string{`"a,b"`}, `"a,b"`, true, true},
		{[]string{`"b"`}, `"a"`, false, false},
		{[]string{`a`}, `"a"`, false, false},
		{[]string{`"a`}, `"a"`, false, false},
		{[]string{`"a" "b"`}, `"b"`, false, false},
		{[]string{`garbage, "a"`}, `"a"`, false, false},
		{[]string{`"a b"`}, `"a b"`, false, false},
		{[]string{`*`}, `"a"`, true, false},
		{[]string{``}, `"a"`, false, false},
		{nil, `"a"`, false, false},
	} {
		assert.Equal(t, tt.weak, MatchWeak(tt.lines, tt.tag), "weak %q %s", tt.lines, tt.tag)
		assert.Equal(t, tt.strong, MatchStrong(tt.lines, tt.tag), "strong %q %s", tt.lines, tt.tag)
	}
}

func TestOpaque(t *testing.T) {
	t.Parallel()
	assert.True(t, Opaque("v42"))
	assert.True(t, Opaque("a,b/c"))
	for _, s := range []string{`a"b`, "a b", "a\r\nb", "\x7f"} {
		assert.False(t, Opaque(s), s)
	}
}

func FuzzMatch(f *testing.F) {
	f.Add(`"a", W/"b"`, `"a"`)
	f.Fuzz(func(t *testing.T, list, tag string) {
		_ = MatchWeak([]string{list}, tag)
		_ = MatchStrong([]string{list}, tag)
	})
}
