package scopetoken

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, ok := range [][]string{{"a"}, {"todos:write", "https://api.example/read", "!#$%&'()*+,-./~"}} {
		assert.NoError(t, Check("x.Scopes", ok), "%q", ok)
	}
	for bad, msg := range map[string]string{
		"":      "x.Scopes: empty scope",
		"a b":   `x.Scopes: invalid scope "a b"`,
		`a"b`:   `x.Scopes: invalid scope "a\"b"`,
		`a\b`:   `x.Scopes: invalid scope "a\\b"`,
		"a\x7f": `x.Scopes: invalid scope "a\x7f"`,
		"é":     `x.Scopes: invalid scope "é"`,
	} {
		assert.EqualError(t, Check("x.Scopes", []string{"fine", bad}), msg)
	}
	assert.EqualError(t, Check("x.Scopes", nil), "x.Scopes: no scope given")
}

func TestAll(t *testing.T) {
	t.Parallel()
	assert.True(t, All([]string{"a", "b", "c"}, []string{"c", "a"}))
	assert.True(t, All(nil, nil))
	assert.False(t, All([]string{"a"}, []string{"a", "b"}))
	assert.False(t, All(nil, []string{"a"}))
}

func TestChallenge(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{`Bearer error="insufficient_scope", scope="a b"`}, Challenge("Bearer", []string{"a", "b"}))
}
