package gojit_test

// Differential tests of the elementwise, logical and statistical ops of
// issue 10 (ops_math.go): compiled vs interpreter over every dtype and
// broadcast pattern, with the comparison rules of diff_test.go.

import (
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// newUnOps are the new one-operand elementwise ops; trans marks the
// transcendental ones (a tolerance of transULPs), float those that convert
// integer and Bool inputs to Float32, noBool those refusing Bool.
var newUnOps = []struct {
	name           string
	f              func(x *gojit.Tensor) *gojit.Tensor
	trans, float   bool
	noBool, toBool bool
}{
	{name: "Square", f: (*gojit.Tensor).Square, noBool: true},
	{name: "Sign", f: (*gojit.Tensor).Sign, noBool: true},
	{name: "IsNaN", f: (*gojit.Tensor).IsNaN, toBool: true},
	{name: "IsInf", f: (*gojit.Tensor).IsInf, toBool: true},
	{name: "IsFinite", f: (*gojit.Tensor).IsFinite, toBool: true},
	{name: "LogicalNot", f: (*gojit.Tensor).LogicalNot, toBool: true},
	{name: "Log1p", f: (*gojit.Tensor).Log1p, trans: true, float: true},
	{name: "Expm1", f: (*gojit.Tensor).Expm1, trans: true, float: true},
	{name: "Erf", f: (*gojit.Tensor).Erf, trans: true, float: true},
	{name: "Gelu", f: (*gojit.Tensor).Gelu, float: true},
	{name: "Clip_scalars", f: func(x *gojit.Tensor) *gojit.Tensor { return x.Clip(gojit.Scalar(0), gojit.Scalar(3)) }, noBool: true},
}

func newUnCases(dt gojit.DType) []dcase {
	var cs []dcase
	for _, op := range newUnOps {
		if op.noBool && dt == gojit.Bool {
			continue
		}
		c := dcase{name: op.name, dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return op.f(in[0]) }}
		if op.trans {
			c.ulps = transULPs
		}
		if op.name == "Gelu" {
			c.ulps = chainULPs // erf, then a product
		}
		if op.float && !dt.IsFloat() {
			c.dt = gojit.Float32
		}
		if op.toBool {
			c.dt = gojit.Bool
		}
		cs = append(cs, c)
	}
	return cs
}

func TestDiffNewUnary(t *testing.T) {
	shapes := [][]int{{6, 8}, {}, {0, 3}, {1, 3, 1}, {3, 700}}
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for si, s := range shapes {
				t.Run(shapeName(s), func(t *testing.T) {
					checkDiff(t, newUnCases(dt), edgeArray(dt, uint64(500+si), s...))
				})
			}
			t.Run("edges", func(t *testing.T) { checkDiff(t, newUnCases(dt), allEdges(dt)) })
		})
	}
}

// newBinOps are the new two-operand ops.
var newBinOps = []binOp{
	{"Mod", (*gojit.Tensor).Mod, true},
	{"LogicalAnd", (*gojit.Tensor).LogicalAnd, false},
	{"LogicalOr", (*gojit.Tensor).LogicalOr, false},
	{"LogicalXor", (*gojit.Tensor).LogicalXor, false},
	{"Clip_lo", func(a, b *gojit.Tensor) *gojit.Tensor { return a.Clip(b, gojit.Scalar(100)) }, true},
	{"Clip_hi", func(a, b *gojit.Tensor) *gojit.Tensor { return a.Clip(gojit.Scalar(-2), b) }, true},
}

func TestDiffNewBinary(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, op := range newBinOps {
				if op.arit && dt == gojit.Bool {
					continue
				}
				cs = append(cs, dcase{name: op.name, f: func(in []*gojit.Tensor) *gojit.Tensor { return op.f(in[0], in[1]) }})
			}
			for pi, p := range bcastPatterns {
				t.Run(p.name, func(t *testing.T) {
					checkDiff(t, cs, edgeArray(dt, uint64(600+pi), p.a...), edgeArray(dt, uint64(700+pi), p.b...))
				})
			}
			t.Run("edges_outer", func(t *testing.T) {
				e := allEdges(dt)
				n := e.Size()
				checkDiff(t, cs, reshaped(e, n, 1), reshaped(allEdges(dt), 1, n))
			})
		})
	}
}

// TestModKnown checks Mod against NumPy's answers, written out.
func TestModKnown(t *testing.T) {
	inf := math.Inf(1)
	fa := []float64{-7, 7, 7, -7, 5.5, -5.5, 5, -5, 5, 0, negZero, inf, 3, 1}
	fb := []float64{3, -3, 3, -3, 2, 2, inf, inf, 0, -3, 3, 2, math.NaN(), -inf}
	fw := []float64{2, -2, 1, -1, 1.5, 0.5, 5, inf, math.NaN(), negZero, 0, math.NaN(), math.NaN(), -inf}
	ia := []int32{-7, 7, 7, -7, 5, math.MinInt32, 0, -1}
	ib := []int32{3, -3, 3, -3, 0, -1, 5, 3}
	iw := []int32{2, -2, 1, -1, 0, 0, 0, 2}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(a, b, c, d *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return a.Mod(b), c.Mod(d) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat64(fa), gojit.FromFloat64(fb), gojit.FromInt32(ia), gojit.FromInt32(ib))
		if err != nil {
			t.Fatal(err)
		}
		got := out[0].Float64()
		for i := range fw {
			if !same64(got[i], fw[i], 0) || math.Signbit(got[i]) != math.Signbit(fw[i]) && !math.IsNaN(fw[i]) {
				t.Errorf("%v: %g mod %g = %g, want %g", opts, fa[i], fb[i], got[i], fw[i])
			}
		}
		gi := out[1].Int32()
		for i := range iw {
			if gi[i] != iw[i] {
				t.Errorf("%v: %d mod %d = %d, want %d", opts, ia[i], ib[i], gi[i], iw[i])
			}
		}
	}
}

func TestDiffAnyAll(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, axes := range [][]int{nil, {0}, {1}, {-1}, {0, 2}} {
				cs = append(cs,
					dcase{name: "Any" + shapeName(axes), dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Any(axes...) }},
					dcase{name: "All" + shapeName(axes), dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].All(axes...) }},
				)
			}
			checkDiff(t, cs, randArray(dt, 31, 0.3, 3, 4, 5))
			checkDiff(t, cs, randArray(dt, 32, 0.3, 2, 0, 5)) // empty axis: Any false, All true
		})
	}
}

// TestAnyAllKnown checks the empty and all-zero cases against NumPy.
func TestAnyAllKnown(t *testing.T) {
	f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
		return x.Any(1), x.All(1), x.Slice([]int{0, 0}, []int{2, 0}).Any(1), x.Slice([]int{0, 0}, []int{2, 0}).All(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32([]float32{0, 0, 0, 1, float32(math.NaN()), 2}, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]bool{{false, true}, {false, true}, {false, false}, {true, true}}
	for i, w := range want {
		got := out[i].Bool()
		for j := range w {
			if got[j] != w[j] {
				t.Errorf("output %d = %v, want %v", i, got, w)
				break
			}
		}
	}
}

func TestDiffStats(t *testing.T) {
	for _, dt := range numDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, axes := range [][]int{nil, {1}, {-1}, {0, 2}} {
				for _, ddof := range []int{0, 1} {
					cs = append(cs,
						dcase{name: "Var" + shapeName(axes) + "_" + shapeName([]int{ddof}), ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Var(ddof, axes...) }},
						dcase{name: "Std" + shapeName(axes) + "_" + shapeName([]int{ddof}), ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Std(ddof, axes...) }},
					)
				}
				cs = append(cs, dcase{name: "LogSumExp" + shapeName(axes), ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].LogSumExp(axes...) }})
			}
			for _, ax := range []int{0, 1, -1} {
				cs = append(cs,
					dcase{name: "Softmax" + shapeName([]int{ax}), ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Softmax(ax) }},
					dcase{name: "LogSoftmax" + shapeName([]int{ax}), ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].LogSoftmax(ax) }},
				)
			}
			// Small values, so that sums and squares stay exact enough
			// for a ulp tolerance to mean something.
			checkDiff(t, cs, smallArray(dt, 41, 3, 4, 50))
		})
	}
}

// smallArray is a dt array of integers in [-8, 8] (Uint8: [0, 16]).
func smallArray(dt gojit.DType, seed uint64, shape ...int) *gojit.Array {
	p := newPRNG(seed)
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := func() int64 { return int64(p.intn(17) - 8) }
	switch dt {
	case gojit.Uint8:
		s := make([]uint8, n)
		for i := range s {
			s[i] = uint8(v() + 8)
		}
		return gojit.FromUint8(s, shape...)
	case gojit.Int32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(v())
		}
		return gojit.FromInt32(s, shape...)
	case gojit.Int64:
		s := make([]int64, n)
		for i := range s {
			s[i] = v()
		}
		return gojit.FromInt64(s, shape...)
	case gojit.Float32:
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(v()) / 4
		}
		return gojit.FromFloat32(s, shape...)
	}
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(v()) / 4
	}
	return gojit.FromFloat64(s, shape...)
}

// TestStatsKnown checks Var, Std, LogSumExp and Softmax against values
// worked out by hand (NumPy gives the same).
func TestStatsKnown(t *testing.T) {
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{x.Var(0), x.Var(1), x.Std(0), x.LogSumExp(), x.Softmax(0), x.LogSoftmax(0)}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat64([]float64{1, 2, 3, 4}))
		if err != nil {
			t.Fatal(err)
		}
		lse := math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3) + math.Exp(4))
		checks := []struct {
			got, want float64
		}{
			{out[0].Float64()[0], 1.25},
			{out[1].Float64()[0], 5.0 / 3},
			{out[2].Float64()[0], math.Sqrt(1.25)},
			{out[3].Float64()[0], lse},
			{out[4].Float64()[3], math.Exp(4 - lse)},
			{out[5].Float64()[0], 1 - lse},
		}
		for i, c := range checks {
			if math.Abs(c.got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%v: check %d = %v, want %v", opts, i, c.got, c.want)
			}
		}
	}
}

// TestLogSumExpInf checks the rows the stable form must get right: all
// -Inf (-Inf, not NaN), a +Inf (+Inf) and huge values (no overflow).
func TestLogSumExpInf(t *testing.T) {
	inf := float32(math.Inf(1))
	x := gojit.FromFloat32([]float32{-inf, -inf, 1, inf, 1000, 1000}, 3, 2)
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.LogSumExp(1) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		got := out[0].Float32()
		want := []float32{-inf, inf, 1000 + float32(math.Ln2)}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%v: row %d = %v, want %v", opts, i, got[i], want[i])
			}
		}
	}
}

// TestNewOpErrors checks that bad arguments are reported at the user's
// line, naming the op.
func TestNewOpErrors(t *testing.T) {
	b := gojit.FromBool([]bool{true, false})
	x := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name string
		fn   any
		arg  *gojit.Array
		want []string
	}{
		{"Sign_bool", func(x *gojit.Tensor) *gojit.Tensor { return x.Sign() }, b, []string{"diff_ops_math_test.go:3", "Sign", "bool"}},
		{"Mod_bool", func(x *gojit.Tensor) *gojit.Tensor { return x.Mod(x) }, b, []string{"diff_ops_math_test.go:3", "Mod", "bool"}},
		{"Square_bool", func(x *gojit.Tensor) *gojit.Tensor { return x.Square() }, b, []string{"diff_ops_math_test.go:3", "Square", "bool"}},
		{"Var_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Var(0, 2) }, x, []string{"diff_ops_math_test.go:3", "Var", "axis 2 out of range"}},
		{"Var_ddof", func(x *gojit.Tensor) *gojit.Tensor { return x.Std(-1) }, x, []string{"diff_ops_math_test.go:3", "Std", "ddof -1"}},
		{"Any_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Any(0, 0) }, x, []string{"diff_ops_math_test.go:3", "Any", "repeated"}},
		{"Softmax_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Softmax(-3) }, x, []string{"diff_ops_math_test.go:3", "Softmax", "out of range"}},
		{"LogSumExp_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.LogSumExp(5) }, x, []string{"diff_ops_math_test.go:3", "LogSumExp", "out of range"}},
		{"LogicalAnd_shapes", func(x *gojit.Tensor) *gojit.Tensor { return x.LogicalAnd(x.Sum(1)) }, x, []string{"diff_ops_math_test.go:3", "LogicalAnd", "broadcast"}},
		{"Clip_shapes", func(x *gojit.Tensor) *gojit.Tensor { return x.Clip(x.Sum(1), gojit.Scalar(1)) }, x, []string{"diff_ops_math_test.go:3", "Clip", "broadcast"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkTraceError(t, c.fn, []any{c.arg}, c.want...) })
	}
}

func TestDiffScan(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, ax := range []int{0, 1, 2, -1} {
				cs = append(cs,
					dcase{name: "CumSum" + shapeName([]int{ax}), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].CumSum(ax) }},
					dcase{name: "CumProd" + shapeName([]int{ax}), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].CumProd(ax) }},
				)
				if dt != gojit.Bool {
					// Fused producer and consumer.
					cs = append(cs, dcase{name: "CumSum_fused" + shapeName([]int{ax}), f: func(in []*gojit.Tensor) *gojit.Tensor {
						return in[0].Mul(gojit.Scalar(2)).CumSum(ax).Sub(in[0])
					}})
				}
			}
			checkDiff(t, cs, edgeArray(dt, 900, 3, 4, 5))
			checkDiff(t, cs, edgeArray(dt, 901, 2, 0, 3))
		})
	}
	t.Run("large", func(t *testing.T) {
		checkDiff(t, []dcase{
			{name: "rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].CumSum(1) }},
			{name: "cols", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].CumSum(0) }},
			{name: "prod", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].CumProd(0) }},
		}, randArray(gojit.Float32, 902, 0, 300, 500))
	})
}

// TestScanKnown checks CumSum and CumProd against a plain Go loop.
func TestScanKnown(t *testing.T) {
	const r, c = 37, 53
	p := newPRNG(77)
	xs := make([]int64, r*c)
	for i := range xs {
		xs[i] = int64(p.intn(7) - 3)
	}
	want0, want1, wantP := make([]int64, r*c), make([]int64, r*c), make([]int64, r*c)
	for i := range r {
		for j := range c {
			k := i*c + j
			want0[k], want1[k], wantP[k] = xs[k], xs[k], xs[k]
			if i > 0 {
				want0[k] += want0[k-c]
				wantP[k] *= wantP[k-c]
			}
			if j > 0 {
				want1[k] += want1[k-1]
			}
		}
	}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{x.CumSum(0), x.CumSum(-1), x.CumProd(0)}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromInt64(xs, r, c))
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range [][]int64{want0, want1, wantP} {
			if got := out[i].Int64(); !slices.Equal(got, w) {
				t.Errorf("%d options: output %d differs from the Go loop", len(opts), i)
			}
		}
	}
	checkTraceError(t, func(x *gojit.Tensor) *gojit.Tensor { return x.CumSum(2) }, []any{gojit.FromInt64(xs, r, c)}, "diff_ops_math_test.go:", "CumSum", "axis 2 out of range")
}
