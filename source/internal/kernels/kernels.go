// Package kernels holds Go functions that package source compiles in
// tests of whole-package loading (gojit dump -func, CompileNamed).
package kernels

// Saxpy sets y[i] += a*x[i] for every i of x.
func Saxpy(a float32, x, y []float32) {
	for i := range x {
		y[i] += a * x[i]
	}
}
