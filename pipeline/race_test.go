//go:build race

package pipeline

// raceEnabled: the race detector's sync.Pool drops items at random, so
// allocation counts are not meaningful under it.
const raceEnabled = true
