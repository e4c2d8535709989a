package source

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between a and b in units in the last place (0 for
// two NaNs or equal values).
func ulps(a, b float64) uint64 {
	if math.IsNaN(a) && math.IsNaN(b) || a == b {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.Signbit(a) != math.Signbit(b) {
		return math.MaxUint64
	}
	x, y := math.Float64bits(a), math.Float64bits(b)
	if x > y {
		return x - y
	}
	return y - x
}

// maxULPs bounds the distance between glibc's and Go's results for each
// of mathLibm's functions: one ulp, but Go's Pow, which is less accurate
// than glibc's (it multiplies partial powers), strays by several for large
// results.
var maxULPs = [6]uint64{64, 64, 64, 64, 1024, 64}

// TestMathLibm compares the math functions computed by the C library
// (Exp, Log, Sin, Cos, Pow, Tanh) with Go's own: they may differ in the
// last place (Go's are accurate to within an ulp, glibc's are nearly
// correctly rounded), never by more than maxULPs. The test logs how often
// they differ.
func TestMathLibm(t *testing.T) {
	f := compileT(t, mathLibm)
	r := rand.New(rand.NewPCG(7, 7))
	const trials = 20000
	var diff [6]int
	var worst [6]uint64
	for range trials {
		x := r.NormFloat64() * math.Pow(10, float64(r.IntN(6)-2))
		y := r.NormFloat64() * 3
		if r.IntN(50) == 0 {
			x = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 710, -750, 1e300}[r.IntN(8)]
		}
		out, err := f.Call(x, y)
		if err != nil {
			t.Fatal(err)
		}
		a, b, c, d, e, g := mathLibm(x, y)
		for i, want := range []float64{a, b, c, d, e, g} {
			got := out[i].(float64)
			u := ulps(got, want)
			worst[i] = max(worst[i], u)
			if u > maxULPs[i] {
				t.Fatalf("function %d of (%v, %v): compiled %v, Go %v: %d ulps apart", i, x, y, got, want, u)
			}
			if u != 0 {
				diff[i]++
			}
		}
	}
	t.Logf("results differing from Go's out of %d (Exp Log Sin Cos Pow Tanh): %v; largest distance in ulps: %v", trials, diff, worst)
}
