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

// smoothK is the 20-line function of the load timings.
func smoothK(x, out []float64, alpha float64, lo, hi float64) (clipped int) {
	if len(out) < len(x) {
		return -1
	}
	prev := 0.0
	for i, v := range x {
		if math.IsNaN(v) {
			v = prev
		}
		s := alpha*v + (1-alpha)*prev
		switch {
		case s < lo:
			s, clipped = lo, clipped+1
		case s > hi:
			s, clipped = hi, clipped+1
		}
		out[i] = math.Max(s, lo)
		prev = s
	}
	return clipped
}

// histogramK uses a map, so it cannot be compiled; the fallback tests run it
// as Go.
func histogramK(xs []float64, width float64) int {
	buckets := map[int]int{}
	for _, x := range xs {
		buckets[int(x/width)]++
	}
	return len(buckets)
}

// panicK panics on an empty slice (panic cannot be compiled).
func panicK(xs []float64) float64 {
	if len(xs) == 0 {
		panic("panicK: empty input")
	}
	return xs[0]
}

func sumVariadicK(xs ...int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func u8K(b uint8) uint8 { return b + 1 }

func u64K(b uint64) uint64 { return b + 1 }
