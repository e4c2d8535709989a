package kernels

import "github.com/gojit/gojit/source"

// Functions of package source other than Range cannot be called.
func F(x []float64) int {
	opt := source.WithThreads(2)
	_ = opt
	return len(x)
}
