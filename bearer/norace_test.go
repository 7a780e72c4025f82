//go:build !race

package bearer_test

// raceEnabled is true under the race detector, which makes sync.Pool drop
// values at random: allocation counts mean nothing there.
const raceEnabled = false
