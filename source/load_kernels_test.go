package source

import "math"

// Kernels the loader tests compile. They sit in a _test.go file of the
// package, as users' kernels often do.

const scale = 2.5

type vec []float64

func saxpyK(a float64, x, y, out []float64) {
	for i := range out {
		out[i] = a*x[i] + y[i]
	}
}

func normK(x vec) float64 {
	s := 0.0
	for _, v := range x {
		s += sq(v)
	}
	return math.Sqrt(s) * scale
}

func sq(v float64) float64 { return v * v }

// unrelatedK has a map, but no compiled function calls it.
func unrelatedK(m map[string]int) int { return m["a"] }

func clampK(x []float32, lo, hi float32) int {
	n := 0
	for i, v := range x {
		switch {
		case v < lo:
			x[i] = lo
			n++
		case v > hi:
			x[i] = hi
			n++
		}
	}
	return n
}
