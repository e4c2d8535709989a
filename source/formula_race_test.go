//go:build race

package source

// fRace reports a -race build, in which sync.Pool drops items at random
// on purpose, so EvalInto's pooled argument slices are sometimes
// reallocated.
const fRace = true
