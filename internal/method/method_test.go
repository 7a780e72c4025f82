package method

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	t.Parallel()
	for m, want := range map[string]bool{
		"GET": true, "HEAD": true, "PURGE": true, "M-SEARCH": true, "BASELINE-CONTROL": true,
		"X_1.2": true, "A!#$%&'*+-.^_`|~9": true, Any: true,
		"": false, "get": false, "Get": false, "gET": false, "GET,POST": false, "(GET)": false,
		"G ET": false, "GET\t": false, "GÉT": false, "123": false, "-GET": false, "GET\x00": false,
		"GET\n": false, "GET\r": false, "GET/1": false, "**": false, "GET:": false, "\"GET\"": false,
		"GET\x7f": false, "GET{}": false,
	} {
		assert.Equal(t, want, Valid(m), "%q", m)
	}
}

// TestValidAgreesWithTheTokenGrammar: every byte is a method's second
// character exactly when it is an RFC 9110 tchar that is not a lower-case
// letter.
func TestValidAgreesWithTheTokenGrammar(t *testing.T) {
	t.Parallel()
	const tchar = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	for c := range 256 {
		b := byte(c)
		want := false
		for i := range len(tchar) {
			if tchar[i] == b && (b < 'a' || b > 'z') {
				want = true
			}
		}
		assert.Equal(t, want, Valid("X"+string([]byte{b})), "byte %#x", b)
	}
}
