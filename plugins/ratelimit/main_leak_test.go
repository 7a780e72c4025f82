package ratelimit_test

import (
	"testing"

	"github.com/burrow-go/burrow/app/apptest"
)

func TestMain(m *testing.M) { apptest.Main(m) }
