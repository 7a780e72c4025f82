//go:build !race

package cors_test

const raceEnabled = false
