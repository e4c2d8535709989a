package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// halfSweep is every Float16 bit pattern as float32 values, plus values
// between them (midpoints and their neighbours) for the rounding.
func halfSweep() []float32 {
	var xs []float32
	for b := 0; b < 1<<16; b++ {
		v := gojit.F16(b).Float32()
		xs = append(xs, v)
		if b&0x7fff < 0x7bff {
			n := gojit.F16(b + 1).Float32()
			mid := float32((float64(v) + float64(n)) / 2)
			xs = append(xs, mid, math.Nextafter32(mid, float32(math.Inf(1))), math.Nextafter32(mid, float32(math.Inf(-1))))
		}
	}
	for b := uint32(0); b < 1<<31; b += 1<<16 + 13 { // bf16 rounding: low bits matter
		xs = append(xs, math.Float32frombits(b), math.Float32frombits(b|1<<31), math.Float32frombits(b|0x8000), math.Float32frombits(b|0x7fff))
	}
	return xs
}

// TestHalfCasts checks the compiled and interpreted conversions between
// Float32 and the half dtypes against internal/half (itself checked
// against a brute-force nearest value) over halfSweep.
func TestHalfCasts(t *testing.T) {
	xs := halfSweep()
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
			h, b := x.Cast(gojit.Float16), x.Cast(gojit.BFloat16)
			return []*gojit.Tensor{h, b, h.Cast(gojit.Float32), b.Cast(gojit.Float32), h.Cast(gojit.BFloat16), x.Cast(gojit.Float64).Cast(gojit.Float16)}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat32(xs))
		if err != nil {
			t.Fatal(err)
		}
		h, b, h32, b32, hb, dh := out[0].Float16(), out[1].BFloat16(), out[2].Float32(), out[3].Float32(), out[4].BFloat16(), out[5].Float16()
		bad := 0
		for i, x := range xs {
			wh, wb := gojit.F16Of(x), gojit.BF16Of(x)
			ok := (h[i] == wh || x != x && h[i].Float32() != h[i].Float32()) &&
				(b[i] == wb || x != x && b[i].Float32() != b[i].Float32()) &&
				same32(h32[i], wh.Float32(), 0) && same32(b32[i], wb.Float32(), 0) &&
				(hb[i] == gojit.BF16Of(wh.Float32()) || x != x) && (dh[i] == wh || x != x)
			if !ok {
				if bad < 5 {
					t.Errorf("%d options: x = %g (0x%08x): f16 0x%04x want 0x%04x, bf16 0x%04x want 0x%04x, back %g %g, f16->bf16 0x%04x, f64->f16 0x%04x",
						len(opts), x, math.Float32bits(x), uint16(h[i]), uint16(wh), uint16(b[i]), uint16(wb), h32[i], b32[i], uint16(hb[i]), uint16(dh[i]))
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%d options: %d of %d conversions wrong", len(opts), bad, len(xs))
		}
	}
}

// TestDiffHalfOps runs ops on half tensors (computed in Float32, rounded
// back) compiled against the interpreter; results are widened to Float32
// for the comparison.
func TestDiffHalfOps(t *testing.T) {
	for _, dt := range []gojit.DType{gojit.Float16, gojit.BFloat16} {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			w := func(f func(x, y *gojit.Tensor) *gojit.Tensor) func([]*gojit.Tensor) *gojit.Tensor {
				return func(in []*gojit.Tensor) *gojit.Tensor {
					x, y := in[0].Cast(dt), in[1].Cast(dt)
					r := f(x, y)
					if r.DType() == dt {
						return r.Cast(gojit.Float32)
					}
					return r
				}
			}
			cs := []dcase{
				{name: "Add", f: w(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y) })},
				{name: "Mul_scalar", f: w(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Mul(gojit.Scalar(3)).Sub(y) })},
				{name: "Div", f: w(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Div(y) })},
				{name: "Less", dt: gojit.Bool, f: w(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Less(y) })},
				{name: "Where", f: w(func(x, y *gojit.Tensor) *gojit.Tensor { return gojit.Where(x.Greater(y), x, y) })},
				{name: "Exp", ulps: transULPs, f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Exp() })},
				{name: "Max", f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Max(1) })},
				{name: "ArgMax", dt: gojit.Int64, f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.ArgMax(1) })},
				{name: "Sort", f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Sort(1) })},
				{name: "CumSum", f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.CumSum(0) })},
				{name: "Transpose_Flip", f: w(func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Transpose().Flip(0) })},
				{name: "Concat_Pad", f: w(func(x, y *gojit.Tensor) *gojit.Tensor {
					return gojit.Concat(0, x, y).Pad([][2]int{{1, 1}}, gojit.PadConstant, 0.5)
				})},
				{name: "MatMul_int", f: w(func(x, y *gojit.Tensor) *gojit.Tensor {
					return x.Floor().Clip(gojit.Scalar(-4), gojit.Scalar(4)).MatMul(y.Floor().Clip(gojit.Scalar(-4), gojit.Scalar(4)).Transpose())
				})},
				{name: "promote_f32", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(dt).Add(in[1]) }},
				{name: "promote_i32", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(dt).Add(in[1].Cast(gojit.Int32)) }},
				{name: "f16_bf16", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Cast(gojit.Float16).Add(in[1].Cast(gojit.BFloat16))
				}},
			}
			checkDiff(t, cs, edgeArray(gojit.Float32, 1100, 6, 8), edgeArray(gojit.Float32, 1101, 6, 8))
		})
	}
}

// TestHalfArrays checks the host side: constructors, accessors, Full and
// a parameter of each half dtype, and Array.String.
func TestHalfArrays(t *testing.T) {
	h := gojit.FromFloat16([]gojit.F16{gojit.F16Of(1.5), gojit.F16Of(-2), gojit.F16Of(65504)})
	b := gojit.FromBFloat16([]gojit.BF16{gojit.BF16Of(1.5), gojit.BF16Of(-2), gojit.BF16Of(3e38)})
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(h, b *gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{h.Mul(gojit.Scalar(2)), b.Add(gojit.Full(gojit.BFloat16, 1, 3)), h.Sum()}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(h, b)
		if err != nil {
			t.Fatal(err)
		}
		if out[0].DType() != gojit.Float16 || out[1].DType() != gojit.BFloat16 || out[2].DType() != gojit.Float16 {
			t.Fatalf("%d options: dtypes %v %v %v", len(opts), out[0].DType(), out[1].DType(), out[2].DType())
		}
		got := out[0].Float16()
		if got[0].Float32() != 3 || got[1].Float32() != -4 || !math.IsInf(float64(got[2].Float32()), 1) {
			t.Errorf("%d options: f16 2x = %v, want [3 -4 +Inf] (65504*2 overflows)", len(opts), out[0])
		}
		gb := out[1].BFloat16()
		if gb[0].Float32() != 2.5 || gb[1].Float32() != -1 || gb[2] != gojit.BF16Of(3e38) {
			t.Errorf("%d options: bf16 +1 = %v", len(opts), out[1])
		}
		if s := out[2].Float16()[0].Float32(); s != 65504 { // 1.5-2+65504 = 65503.5, rounds to 65504
			t.Errorf("%d options: f16 sum = %v, want 65504", len(opts), s)
		}
	}
	if s := h.String(); s != "f16[3] [1.5 -2 65504]" {
		t.Errorf("String = %q", s)
	}
}

// TestHalfComposites checks that Mean, Var, Softmax and the other composite
// ops on a half compute in Float32 and round once: the mean of 70000 ones
// is 1 (the count is not a Float16 value), and the dtype is kept.
func TestHalfComposites(t *testing.T) {
	ones := make([]gojit.F16, 70000)
	for i := range ones {
		ones[i] = gojit.F16Of(1)
	}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
			r := x.Reshape(7, 10000)
			return []*gojit.Tensor{x.Mean(), r.Var(1, 1), r.Softmax(1).Sum(1), r.LogSumExp(1), r.Gelu().Max()}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat16(ones))
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{1, 0, 1, 1 + math.Log(10000), 0.8413447}
		for i, o := range out {
			if o.DType() != gojit.Float16 {
				t.Errorf("%d options: output %d is %s, want f16", len(opts), i, o.DType())
				continue
			}
			got := float64(o.Float16()[0].Float32())
			if math.Abs(got-want[i]) > 2e-3*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%d options: output %d = %v, want %v", len(opts), i, got, want[i])
			}
		}
	}
}
