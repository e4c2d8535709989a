package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// TestVecMathF32 checks the compiled float32 exp, tanh and sigmoid (which
// the code generator implements itself, see internal/codegen/vecmath.go)
// against Go's float64 math rounded to float32 over a sweep of the whole
// float32 line: every 97th bit pattern of each sign (NaNs included), plus
// the regions where the implementation switches method or saturates. The
// documented tolerance is transULPs; exp and tanh are held to one ulp,
// and sigmoid, which divides by 1 + exp(-x), to two.
func TestVecMathF32(t *testing.T) {
	var xs []float32
	for b := uint32(0); b < 1<<31; b += 97 * 1024 {
		xs = append(xs, math.Float32frombits(b), math.Float32frombits(b|1<<31))
	}
	for _, c := range []float64{0, 0.04, 20, 9, 88.72, 89, -87.33, -103.97, -104, 1e-30, 0.5, 1} {
		for d := -2000; d <= 2000; d++ {
			x := float32(c) + float32(d)*float32(math.Max(c, 1))*1e-6
			xs = append(xs, x, -x)
		}
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(negZero))
	f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
		return x.Exp(), x.Tanh(), x.Sigmoid()
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32(xs))
	if err != nil {
		t.Fatal(err)
	}
	ref := []func(float64) float64{math.Exp, math.Tanh, func(x float64) float64 {
		e := float32(math.Exp(-x))
		return float64(1 / (1 + e))
	}}
	limit := []uint64{1, 1, 2}
	for k, name := range []string{"exp", "tanh", "sigmoid"} {
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
			if d > limit[k] {
				if bad < 5 {
					t.Errorf("%s(%g (0x%08x)) = %s, want %s", name, x, math.Float32bits(x), fmtF32(got[i]), fmtF32(w))
				}
				bad++
			}
		}
		t.Logf("%s: %d inputs, worst %d ulps, %d beyond %d", name, len(xs), worst, bad, limit[k])
	}
}
