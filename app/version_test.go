package app

import (
	"testing"

	"github.com/burrow-go/burrow/app/internal/semver"
	"github.com/stretchr/testify/assert"
)

func TestVersionIsValid(t *testing.T) {
	assert.NotPanics(t, func() { semver.MustParse(Version) })
}
