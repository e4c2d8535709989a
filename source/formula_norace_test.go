//go:build !race

package source

// fRace reports a -race build (see formula_race_test.go).
const fRace = false
