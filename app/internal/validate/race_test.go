//go:build race

package validate

// raceEnabled: the race detector makes sync.Pool drop values at random,
// so allocation counts mean nothing under it.
const raceEnabled = true
