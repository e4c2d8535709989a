package source

import (
	"math"
	"math/rand/v2"
	"reflect"
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

// TestMathMatchesGo compares compiled math functions with Go's, bit for
// bit (they are compiled from Go's source, or its amd64 assembly ported):
// Exp, Log, Sin, Cos, Pow, Tanh here, and in TestMathMore the rest.
func TestMathMatchesGo(t *testing.T) {
	f := compileT(t, mathLibm)
	r := rand.New(rand.NewPCG(7, 7))
	const trials = 20000
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
			if u != 0 {
				t.Fatalf("function %d of (%v, %v): compiled %v, Go %v: %d ulps apart", i, x, y, got, want, u)
			}
		}
	}
}

func TestMathMore(t *testing.T) {
	f := compileT(t, mathMore)
	r := rand.New(rand.NewPCG(8, 8))
	for range 5000 {
		x := r.NormFloat64() * math.Pow(10, float64(r.IntN(8)-3))
		y := r.NormFloat64() * 4
		if r.IntN(30) == 0 {
			x = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300, 1e-310}[r.IntN(7)]
		}
		out, err := f.Call(x, y)
		if err != nil {
			t.Fatal(err)
		}
		want := reflect.ValueOf(mathMore).Call([]reflect.Value{reflect.ValueOf(x), reflect.ValueOf(y)})
		for i, w := range want {
			if u := ulps(out[i].(float64), w.Float()); u != 0 {
				t.Errorf("function %d of (%v, %v): compiled %v, Go %v: %d ulps apart", i, x, y, out[i], w.Float(), u)
			}
		}
		if t.Failed() {
			return
		}
	}
}
