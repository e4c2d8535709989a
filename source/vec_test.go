package source

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of outer-loop vectorization (lower_vec.go): the vectorized
// kernels must give Go's results bit for bit, for lengths that are not a
// multiple of the vector width, 0 and 1 elements, and lanes leaving inner
// loops at different iterations.

func sameF32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, Go gives %v", what, i, got[i], want[i])
		}
	}
}

func sameF64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, Go gives %v", what, i, got[i], want[i])
		}
	}
}

func TestVecPairwise(t *testing.T) {
	var g func([]float32, int, int, []float32) error
	if err := Bind4(compileT(t, pairwise), &g); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, nd := range [][2]int{{0, 3}, {1, 1}, {1, 0}, {7, 3}, {8, 5}, {9, 1}, {17, 64}, {33, 7}, {100, 13}} {
		n, d := nd[0], nd[1]
		x := randF32(n*d, r.Uint64())
		got, want := make([]float32, n*n), make([]float32, n*n)
		pairwise(x, n, d, want)
		if err := g(x, n, d, got); err != nil {
			t.Fatal(err)
		}
		sameF32(t, "pairwise", got, want)
	}
}

func TestVecNewton(t *testing.T) {
	var g func([]float64, []float64) error
	if err := Bind2(compileT(t, newton), &g); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 100, 1001} {
		x := make([]float64, n)
		for i := range x {
			// Magnitudes from 1e-300 to 1e300, some 0, Inf and NaN: lanes
			// converge after very different numbers of iterations.
			switch r.IntN(20) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = math.Inf(1)
			case 2:
				x[i] = math.NaN()
			default:
				x[i] = math.Pow(10, r.Float64()*600-300) * r.Float64()
			}
		}
		got, want := make([]float64, n), make([]float64, n)
		newton(x, want)
		if err := g(x, got); err != nil {
			t.Fatal(err)
		}
		sameF64(t, "newton", got, want)
	}
}
