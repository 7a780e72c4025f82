package jsonscan

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestFoldingMatchesEqualFold checks that two names fold alike exactly
// when strings.EqualFold matches them (which is how encoding/json pairs
// keys with fields), for every rune whose case folds.
func TestFoldingMatchesEqualFold(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || unicode.SimpleFold(r) == r {
			continue
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			a, b := "x"+string(r), "x"+string(f)
			if !strings.EqualFold(a, b) || string(appendFolded(nil, a)) != string(appendFolded(nil, b)) {
				t.Fatalf("%U and %U: EqualFold %v, folded %q and %q", r, f, strings.EqualFold(a, b),
					appendFolded(nil, a), appendFolded(nil, b))
			}
		}
	}
	assert.NotEqual(t, string(appendFolded(nil, "k")), string(appendFolded(nil, "x")))
}
