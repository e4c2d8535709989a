package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// TestVecMathMoreF32 checks the compiled float32 Log1p, Expm1 and Erf (the
// vectorizable definitions of internal/codegen/vecmath_more.go) against
// Go's float64 math.Log1p, math.Expm1 and math.Erf rounded to float32, over
// every 97th bit pattern of each sign (NaNs included) and dense runs where
// the implementations switch method (expm1 at |x| = 1e-3, erf at 2) or
// saturate. All three are held to one ulp (documented tolerance: transULPs).
// It also checks Float64 (the C library) against Go's math within
// transULPs, over the same sweep widened to float64.
func TestVecMathMoreF32(t *testing.T) {
	var xs []float32
	for b := uint32(0); b < 1<<31; b += 97 * 1024 {
		xs = append(xs, math.Float32frombits(b), math.Float32frombits(b|1<<31))
	}
	for _, c := range []float64{0, 1e-3, 2, 6, 3.9, 1, 0.5, -1, 88.7, 89, 104, 1e-30, 1e-8} {
		for d := -2000; d <= 2000; d++ {
			x := float32(c) + float32(d)*float32(math.Max(math.Abs(c), 1e-6))*1e-6
			xs = append(xs, x, -x)
		}
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(negZero), -1, math.MaxFloat32, math.SmallestNonzeroFloat32)
	f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
		d := x.Cast(gojit.Float64)
		return []*gojit.Tensor{x.Log1p(), x.Expm1(), x.Erf(), d.Log1p(), d.Expm1(), d.Erf()}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32(xs))
	if err != nil {
		t.Fatal(err)
	}
	ref := []func(float64) float64{math.Log1p, math.Expm1, math.Erf}
	for k, name := range []string{"log1p", "expm1", "erf"} {
		got := out[k].Float32()
		worst, bad := uint64(0), 0
		for i, x := range xs {
			w := float32(ref[k](float64(x)))
			if same32(got[i], w, 0) {
				continue
			}
			d := uint64(math.MaxUint64)
			if got[i] == got[i] && w == w {
				d = ulpDist(ordered32(got[i]), ordered32(w))
			}
			worst = max(worst, d)
			if d > 1 {
				if bad < 5 {
					t.Errorf("%s(%g (0x%08x)) = %s, want %s", name, x, math.Float32bits(x), fmtF32(got[i]), fmtF32(w))
				}
				bad++
			}
		}
		t.Logf("float32 %s: %d inputs, worst %d ulps, %d beyond 1", name, len(xs), worst, bad)

		got64 := out[k+3].Float64()
		worst, bad = 0, 0
		for i, x := range xs {
			w := ref[k](float64(x))
			if same64(got64[i], w, transULPs) {
				if got64[i] == got64[i] && w == w {
					worst = max(worst, ulpDist(ordered64(got64[i]), ordered64(w)))
				}
				continue
			}
			if bad < 5 {
				t.Errorf("float64 %s(%g) = %s, want %s", name, x, fmtF64(got64[i]), fmtF64(w))
			}
			bad++
		}
		t.Logf("float64 %s: worst %d ulps, %d beyond %d", name, worst, bad, transULPs)
	}
}
