package app

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/burrow-go/burrow/app/internal/semver"
)

func TestVersionIsValid(t *testing.T) {
	assert.NotPanics(t, func() { semver.MustParse(Version) })
}
