package gojit_test

// Differential tests of the elementwise ops: binary ops under every broadcast pattern, mixed dtypes, Where, unary ops and casts.
// Helpers and comparison rules are in diff_test.go.

import (
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

type binOp struct {
	name string
	f    func(a, b *gojit.Tensor) *gojit.Tensor
	arit bool // arithmetic: rejects Bool operands
}

var binOps = []binOp{
	{"Add", (*gojit.Tensor).Add, true},
	{"Sub", (*gojit.Tensor).Sub, true},
	{"Mul", (*gojit.Tensor).Mul, true},
	{"Div", (*gojit.Tensor).Div, true},
	{"Pow", (*gojit.Tensor).Pow, false}, // Bool and integers are converted to Float32
	{"Maximum", (*gojit.Tensor).Maximum, true},
	{"Minimum", (*gojit.Tensor).Minimum, true},
	{"Equal", (*gojit.Tensor).Equal, false},
	{"NotEqual", (*gojit.Tensor).NotEqual, false},
	{"Less", (*gojit.Tensor).Less, false},
	{"LessEqual", (*gojit.Tensor).LessEqual, false},
	{"Greater", (*gojit.Tensor).Greater, false},
	{"GreaterEqual", (*gojit.Tensor).GreaterEqual, false},
	{"Where", func(a, b *gojit.Tensor) *gojit.Tensor { return gojit.Where(a.Less(b), a, b) }, false},
}

func binCases(dt gojit.DType) []dcase {
	var cs []dcase
	for _, op := range binOps {
		if op.arit && dt == gojit.Bool {
			continue
		}
		var ulps uint64
		if isTranscendental(op.name) {
			ulps = transULPs
		}
		if op.name == "Pow" && dt == gojit.Float64 {
			ulps = powF64ULPs
		}
		cs = append(cs, dcase{name: op.name, ulps: ulps, f: func(in []*gojit.Tensor) *gojit.Tensor { return op.f(in[0], in[1]) }})
	}
	return cs
}

var bcastPatterns = []struct {
	name string
	a, b []int
}{
	{"same_3x4", []int{3, 4}, []int{3, 4}},
	{"scalar_vs_3x4", []int{}, []int{3, 4}},
	{"3x4_vs_scalar", []int{3, 4}, []int{}},
	{"3x1_vs_1x4", []int{3, 1}, []int{1, 4}},
	{"4_vs_2x3x4", []int{4}, []int{2, 3, 4}},
	{"2x3x1_vs_3x4", []int{2, 3, 1}, []int{3, 4}},
	{"size1_1x1_vs_1", []int{1, 1}, []int{1}},
	{"size0_0x4_vs_4", []int{0, 4}, []int{4}},
	{"size0_2x0_vs_2x1", []int{2, 0}, []int{2, 1}},
}

func TestDiffBinary(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for pi, p := range bcastPatterns {
				if testing.Short() && pi >= 4 {
					break // -short: same shape, scalars, the 2-D outer broadcast
				}
				t.Run(p.name, func(t *testing.T) {
					a := edgeArray(dt, uint64(100+pi), p.a...)
					b := edgeArray(dt, uint64(200+pi), p.b...)
					checkDiff(t, binCases(dt), a, b)
				})
			}
			// Every pair of edge values: a column of edges against a row.
			t.Run("edges_outer", func(t *testing.T) {
				e := allEdges(dt)
				n := e.Size()
				checkDiff(t, binCases(dt), reshaped(e, n, 1), reshaped(allEdges(dt), 1, n))
			})
		})
	}
}

// TestDiffMixedDTypes combines operands of different dtypes, which are
// promoted to the later dtype of Bool < Uint8 < Int32 < Int64 < Float32 <
// Float64.
func TestDiffMixedDTypes(t *testing.T) {
	for i, da := range allDTypes {
		for _, db := range allDTypes[i+1:] {
			t.Run(da.String()+"_"+db.String(), func(t *testing.T) {
				t.Parallel()
				a := edgeArray(da, 7, 3, 5)
				b := edgeArray(db, 8, 5)
				cs := []dcase{
					{name: "Add", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(in[1]) }},
					{name: "Mul_rev", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Mul(in[0]) }},
					{name: "Div", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(in[1]) }},
					{name: "Minimum", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Minimum(in[1]) }},
					{name: "Less", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Less(in[1]) }},
					{name: "Equal", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Equal(in[1]) }},
					{name: "Where", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Where(in[0].GreaterEqual(in[1]), in[0], in[1])
					}},
					{name: "Concat", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Concat(0, in[0], in[1].Reshape(1, 5))
					}},
				}
				checkDiff(t, cs, a, b)
			})
		}
	}
}

func TestDiffWhere(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			c := randArray(gojit.Bool, 3, 0, 3, 1)
			a := edgeArray(dt, 4, 1, 4)
			b := edgeArray(dt, 5)
			c2 := randArray(gojit.Bool, 6, 0, 3, 4)
			checkDiff(t, []dcase{
				{name: "broadcast_3x1_1x4_scalar", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(in[0], in[1], in[2]) }},
				{name: "same_shape", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[3], in[1].BroadcastTo(3, 4), in[2].BroadcastTo(3, 4))
				}},
				{name: "weak_scalar_branch", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(in[3], in[1], gojit.Scalar(7)) }},
				{name: "weak_scalar_cond", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(gojit.Scalar(0), in[1], in[2]) }},
				{name: "nested", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[0], gojit.Where(in[3], in[1], in[2]), in[2])
				}},
			}, c, a, b, c2)
		})
	}
}

// ---------------------------------------------------------------------------
// Elementwise unary ops.

type unOp struct {
	name   string
	f      func(x *gojit.Tensor) *gojit.Tensor
	noBool bool // rejects Bool (the float-only ops convert it to Float32)
}

var unOps = []unOp{
	{"Neg", (*gojit.Tensor).Neg, true},
	{"Abs", (*gojit.Tensor).Abs, true},
	{"Exp", (*gojit.Tensor).Exp, false},
	{"Log", (*gojit.Tensor).Log, false},
	{"Sqrt", (*gojit.Tensor).Sqrt, false},
	{"Rsqrt", (*gojit.Tensor).Rsqrt, false},
	{"Sin", (*gojit.Tensor).Sin, false},
	{"Cos", (*gojit.Tensor).Cos, false},
	{"Tanh", (*gojit.Tensor).Tanh, false},
	{"Sigmoid", (*gojit.Tensor).Sigmoid, false},
	{"Relu", (*gojit.Tensor).Relu, true},
	{"Floor", (*gojit.Tensor).Floor, true},
	{"Ceil", (*gojit.Tensor).Ceil, true},
	{"Round", (*gojit.Tensor).Round, true},
}

func unCases(dt gojit.DType) []dcase {
	var cs []dcase
	for _, op := range unOps {
		if op.noBool && dt == gojit.Bool {
			continue
		}
		var ulps uint64
		if isTranscendental(op.name) {
			ulps = transULPs
		}
		want := dt
		if !op.noBool && !dt.IsFloat() {
			want = gojit.Float32
		}
		f := op.f
		switch op.name {
		case "Sin", "Cos":
			f = func(x *gojit.Tensor) *gojit.Tensor { return op.f(dodgeHugeTrig(x)) }
		}
		cs = append(cs, dcase{name: op.name, ulps: ulps, dt: want, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0]) }})
	}
	return cs
}

func TestDiffUnary(t *testing.T) {
	shapes := [][]int{{6, 8}, {}, {0, 3}, {1, 3, 1}}
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for si, s := range shapes {
				t.Run(shapeName(s), func(t *testing.T) {
					checkDiff(t, unCases(dt), edgeArray(dt, uint64(300+si), s...))
				})
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Casts: from every dtype to every dtype.

func TestDiffCast(t *testing.T) {
	for _, from := range allDTypes {
		t.Run("from_"+from.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, to := range allDTypes {
				cs = append(cs, dcase{name: "to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(to) }})
				// A cast fused after arithmetic, and a double cast.
				if from != gojit.Bool {
					cs = append(cs, dcase{name: "neg_to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Neg().Cast(to) }})
				}
				for _, via := range []gojit.DType{gojit.Uint8, gojit.Float32} {
					cs = append(cs, dcase{name: "via_" + via.String() + "_to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return in[0].Cast(via).Cast(to)
					}})
				}
			}
			var direct []dcase
			for _, c := range cs {
				if strings.HasPrefix(c.name, "to_") {
					direct = append(direct, c)
				}
			}
			checkDiff(t, cs, allEdges(from))
			t.Run("random_5x7", func(t *testing.T) { checkDiff(t, direct, randArray(from, 9, 0.3, 5, 7)) })
			t.Run("size0", func(t *testing.T) { checkDiff(t, direct, randArray(from, 9, 0.3, 0, 7)) })
		})
	}
	// Values at the saturation and rounding boundaries of float-to-int and
	// int-to-float conversion.
	t.Run("boundaries", func(t *testing.T) {
		f64 := []float64{
			-1, -0.99, -0.5, 254.99, 255, 255.01, 255.5, 256, 1e3,
			2147483520, 2147483583, 2147483584, 2147483647, 2147483647.5, 2147483648, 2147483648.5,
			-2147483648, -2147483648.5, -2147483649, -2147483904,
			9223372036854774784, 9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854777856,
			math.NaN(), math.Inf(1), math.Inf(-1), negZero, 4503599627370497, 16777217, 16777219,
		}
		i64 := []int64{16777217, 16777219, -16777217, 1<<53 + 1, 1<<62 + 1<<38 + 1, math.MaxInt64, math.MinInt64, 1<<31 - 1, 1<<31 + 255}
		var cs []dcase
		for _, to := range allDTypes {
			cs = append(cs,
				dcase{name: "f64_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(to) }},
				dcase{name: "f32_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(gojit.Float32).Cast(to) }},
				dcase{name: "i64_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Cast(to) }},
				dcase{name: "i32_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Cast(gojit.Int32).Cast(to) }},
			)
		}
		checkDiff(t, cs, gojit.FromFloat64(f64), gojit.FromInt64(i64))
	})
}

// ---------------------------------------------------------------------------
// Reductions.

// TestCastFloatToUint8Saturates: Float32 and Float64 to Uint8, compiled
// (as max, min and a 32-bit conversion, not llvm.fptoui.sat) and
// vectorized, saturates and truncates toward zero, with NaN to 0: known
// answers for the edge values, and the interpreter's.
func TestCastFloatToUint8Saturates(t *testing.T) {
	edge := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e9, -1, -0.99, math.Copysign(0, -1), 0, 0.4, 0.5, 0.99, 1, 1.5, 127.9, 254.99, 255, 255.5, 256, 1e9, 3e38}
	var vals []float64
	for len(vals) < 80 { // more than a few vector widths
		vals = append(vals, edge...)
	}
	want := make([]uint8, len(vals))
	for i, v := range vals {
		switch {
		case v != v || v <= 0:
		case v >= 255:
			want[i] = 255
		default:
			want[i] = uint8(v)
		}
	}
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		for _, interp := range []bool{false, true} {
			var opts []gojit.Option
			if interp {
				opts = append(opts, gojit.WithInterpreter())
			}
			f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Cast(gojit.Uint8) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromFloat64(vals, len(vals))
			if dt == gojit.Float32 {
				f32 := make([]float32, len(vals))
				for i, v := range vals {
					f32[i] = float32(v)
				}
				x = gojit.FromFloat32(f32, len(vals))
			}
			out, err := f.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range out[0].Uint8() {
				if g != want[i] {
					t.Errorf("%s interpreter=%v: %v -> %d, want %d", dt, interp, vals[i], g, want[i])
				}
			}
		}
	}
}
