// Package bench holds gojit's benchmark workloads and their baselines, so
// that `go test -bench` and `gojit bench` measure exactly the same code and
// report speed as ratios against a baseline run in the same process.
package bench
