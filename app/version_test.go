package app

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app/internal/semver"
)

func TestVersionIsValid(t *testing.T) {
	assert.NotPanics(t, func() { semver.MustParse(Version) })
}

// TestDocsQuoteThisVersion: the plugins guide quotes a version-mismatch
// error, which names Version; a release that bumps Version must update
// the quote, or it teaches an error this Burrow does not print.
func TestDocsQuoteThisVersion(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../docs/plugins.md")
	require.NoError(t, err)
	quotes := regexp.MustCompile(`supports Burrow \S+, this is (\S+)`).FindAllSubmatch(page, -1)
	require.NotEmpty(t, quotes, "docs/plugins.md quotes a version-mismatch error")
	for _, q := range quotes {
		assert.Equal(t, Version, string(q[1]), "docs/plugins.md: %s", q[0])
	}
}
