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

// TestREADMEQuotesThisVersion: the README quotes a version-mismatch
// error, which names Version; a release that bumps Version must update
// the quote, or it teaches an error this Burrow does not print.
func TestREADMEQuotesThisVersion(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	quotes := regexp.MustCompile(`supports Burrow \S+, this is (\S+)`).FindAllSubmatch(readme, -1)
	require.NotEmpty(t, quotes, "the README quotes a version-mismatch error")
	for _, q := range quotes {
		assert.Equal(t, Version, string(q[1]), "README: %s", q[0])
	}
}
