package token

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCharIsTheGrammarsTchar: every byte is a tchar exactly when RFC
// 9110 lists it.
func TestCharIsTheGrammarsTchar(t *testing.T) {
	t.Parallel()
	const tchar = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	for c := range 256 {
		assert.Equal(t, strings.IndexByte(tchar, byte(c)) >= 0, Char(byte(c)), "byte %#x", c)
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Bearer": true, "x": true, "M-SEARCH": true, "a1!#$%&'*+-.^_`|~Z": true,
		"": false, "a b": false, "a,b": false, "a/b": false, "a:b": false, "a=b": false,
		"a@b": false, "(a)": false, `"a"`: false, "é": false, "a\x00": false, "a\x7f": false,
		"a\r\n": false,
	} {
		assert.Equal(t, want, Valid(s), "%q", s)
	}
}
