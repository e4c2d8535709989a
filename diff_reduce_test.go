package gojit_test

// Differential tests of reductions, layout ops, matmul, weak scalars, Iota and Full.
// Helpers and comparison rules are in diff_test.go.

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

type redKind struct {
	name string
	kind gojit.ReduceKind
	arg  bool // one axis only
	bool bool // accepts Bool
}

var redKinds = []redKind{
	{"Sum", gojit.ReduceSum, false, true},
	{"Mean", gojit.ReduceMean, false, true},
	{"Prod", gojit.ReduceProd, false, true},
	{"Max", gojit.ReduceMax, false, false},
	{"Min", gojit.ReduceMin, false, false},
	{"ArgMax", gojit.ReduceArgMax, true, false},
	{"ArgMin", gojit.ReduceArgMin, true, false},
}

// reduceMethod calls the named method (Sum, Max, ArgMax...) of x.
func reduceMethod(x *gojit.Tensor, k redKind, axes ...int) *gojit.Tensor {
	switch k.kind {
	case gojit.ReduceSum:
		return x.Sum(axes...)
	case gojit.ReduceMean:
		return x.Mean(axes...)
	case gojit.ReduceProd:
		return x.Prod(axes...)
	case gojit.ReduceMax:
		return x.Max(axes...)
	case gojit.ReduceMin:
		return x.Min(axes...)
	case gojit.ReduceArgMax:
		return x.ArgMax(axes...)
	}
	return x.ArgMin(axes...)
}

// reduceCases are the reductions of a dt tensor over axes; empty says the
// reduced axes hold no element, where only Sum, Mean and Prod are defined
// (the others are errors, see TestReductionSemantics).
func reduceCases(dt gojit.DType, axes []int, keep, empty bool) []dcase {
	var cs []dcase
	for _, k := range redKinds {
		if (dt == gojit.Bool && !k.bool) || (k.arg && len(axes) > 1) {
			continue
		}
		if empty && k.kind != gojit.ReduceSum && k.kind != gojit.ReduceMean && k.kind != gojit.ReduceProd {
			continue
		}
		want := dt
		switch {
		case k.arg:
			want = gojit.Int64
		case k.kind == gojit.ReduceMean && dt == gojit.Int64:
			want = gojit.Float64 // an exact Int64 sum divided in Float64
		case k.kind == gojit.ReduceMean && !dt.IsFloat():
			want = gojit.Float32
		case (dt == gojit.Bool || dt == gojit.Uint8) && (k.kind == gojit.ReduceSum || k.kind == gojit.ReduceProd):
			want = gojit.Int64 // as NumPy
		}
		var bound func(in []*gojit.Tensor) *gojit.Tensor
		if want.IsFloat() && (k.kind == gojit.ReduceSum || k.kind == gojit.ReduceMean) {
			bound = func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(in[0], k.kind, keep, axes...) }
		}
		if keep {
			cs = append(cs, dcase{name: k.name + "_keep", dt: want, bound: bound, f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Reduce(k.kind, true, axes...)
			}})
			continue
		}
		cs = append(cs, dcase{name: k.name, dt: want, bound: bound, f: func(in []*gojit.Tensor) *gojit.Tensor { return reduceMethod(in[0], k, axes...) }})
	}
	return cs
}

func TestDiffReduce(t *testing.T) {
	patterns := []struct {
		name  string
		shape []int
		axes  []int
		keep  bool
	}{
		{"all_2x3x4", []int{2, 3, 4}, nil, false},
		{"axis0_2x3x4", []int{2, 3, 4}, []int{0}, false},
		{"last_2x3x4", []int{2, 3, 4}, []int{-1}, false},
		{"middle_2x3x4", []int{2, 3, 4}, []int{1}, false},
		{"two_axes_0_2", []int{2, 3, 4}, []int{2, 0}, false},
		{"keepdims_middle", []int{2, 3, 4}, []int{1}, true},
		{"keepdims_all", []int{2, 3, 4}, nil, true},
		{"keepdims_last_two", []int{2, 3, 4}, []int{-1, -2}, true},
		{"scalar_all", []int{}, nil, false},
		{"size1_1x5_axis0", []int{1, 5}, []int{0}, false},
		{"size0_0x3_axis0", []int{0, 3}, []int{0}, false},
		{"size0_0x3_axis1", []int{0, 3}, []int{1}, false},
		{"size0_3x0_axis1", []int{3, 0}, []int{1}, false},
		{"size0_3x0_all", []int{3, 0}, nil, false},
		{"long_rows_5x67_last", []int{5, 67}, []int{1}, false},
		{"long_cols_67x5_axis0", []int{67, 5}, []int{0}, false},
	}
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for pi, p := range patterns {
				if testing.Short() && pi%3 != 0 {
					continue // -short: a third of the patterns
				}
				t.Run(p.name, func(t *testing.T) {
					prob := 0.15
					if len(p.shape) == 2 && p.shape[0]*p.shape[1] > 100 {
						prob = 0.01
					}
					empty := false
					for i, d := range p.shape {
						if d == 0 && (p.axes == nil || slices.Contains(p.axes, i) || slices.Contains(p.axes, i-len(p.shape))) {
							empty = true
						}
					}
					checkDiff(t, reduceCases(dt, p.axes, p.keep, empty), randArray(dt, uint64(400+pi), prob, p.shape...))
				})
			}
		})
	}
	// A long float32 sum: the compiled code reassociates it (a vectorized
	// reduction), within the documented bound; sums over a leading axis
	// keep the sequential order and must be bit-exact.
	t.Run("f32_sum_order", func(t *testing.T) {
		x := randArray(gojit.Float32, 77, 0, 3, 1000)
		sb := func(kind gojit.ReduceKind, axes ...int) func(in []*gojit.Tensor) *gojit.Tensor {
			return func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(in[0], kind, false, axes...) }
		}
		checkDiff(t, []dcase{
			{name: "rows", bound: sb(gojit.ReduceSum, 1), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(1) }},
			{name: "all", bound: sb(gojit.ReduceSum), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum() }},
			{name: "mean_rows", bound: sb(gojit.ReduceMean, -1), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mean(-1) }},
			{name: "cols_exact", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(0) }},
			{name: "cols_transposed_exact", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Reshape(3, 10, 100).Sum(1) }},
			// Column chunks: the last axis is long enough to be split.
			{name: "cols_chunked_exact", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Reshape(2, 1500).Sum(0) }},
			{name: "cols_chunked_3d_exact", f: func(in []*gojit.Tensor) *gojit.Tensor {
				x := in[0].Reshape(1, 1, 3000)
				return x.BroadcastTo(2, 3, 3000).Mul(x.Abs().Floor()).Max(0)
			}},
			{name: "cols_chunked_two_axes_exact", f: func(in []*gojit.Tensor) *gojit.Tensor {
				x := in[0].Reshape(1, 1, 3000)
				return x.BroadcastTo(2, 2, 3000).Add(x.Mul(gojit.Scalar(3))).Prod(0, 1)
			}},
			{name: "prod_rows", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Mul(gojit.Scalar(0.125)).Add(gojit.Scalar(1)).Prod(1)
			}},
		}, x)
	})
	// Negative zeros: a sum of only -0 is +0; max/min order -0 < +0.
	t.Run("signed_zeros", func(t *testing.T) {
		x := gojit.FromFloat64([]float64{negZero, negZero, negZero, 0, negZero, 0}, 2, 3)
		var cs []dcase
		for _, ax := range [][]int{nil, {0}, {1}} {
			for _, k := range redKinds {
				cs = append(cs, dcase{name: fmt.Sprintf("%s_%v", k.name, ax), f: func(in []*gojit.Tensor) *gojit.Tensor { return reduceMethod(in[0], k, ax...) }})
			}
		}
		checkDiff(t, cs, x)
	})
}

// ---------------------------------------------------------------------------
// Layout ops.

func layoutCases() []dcase {
	c := func(name string, f func(x *gojit.Tensor) *gojit.Tensor) dcase {
		return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0]) }}
	}
	return []dcase{
		c("Reshape_4x6", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(4, 6) }),
		c("Reshape_minus1", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(-1) }),
		c("Reshape_2_minus1_3", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(2, -1, 3) }),
		c("Transpose_default", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose() }),
		c("Transpose_1_0_2", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(1, 0, 2) }),
		c("Transpose_2_0_1", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(2, 0, 1) }),
		c("Transpose_neg_axes", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(-1, -3, -2) }),
		c("Transpose_rank2", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(6, 4).Transpose() }),
		c("Transpose_rank2_explicit", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(8, 3).Transpose(1, 0) }),
		c("BroadcastTo_new_dim", func(x *gojit.Tensor) *gojit.Tensor { return x.BroadcastTo(2, 2, 3, 4) }),
		c("BroadcastTo_size1", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 1}, []int{2, 2}).BroadcastTo(3, 2, 5, 4) }),
		c("Slice_basic", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 1}, []int{2, 2, 3}) }),
		c("Slice_negative", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{-1, -2}, []int{100, 3}) }),
		c("Slice_negative_stop", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, -3, -3}, []int{-1, -1, 4}) }),
		c("Slice_step2", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 0, 0}, []int{2, 3, 4}, 1, 2, 2) }),
		c("Slice_step3_clamped", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{-100, 1, 1}, []int{100, 100, 4}, 2, 3, 3) }),
		c("Slice_empty", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 2}, []int{2, 1}) }),
		c("Slice_partial_rank", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1}, []int{2}) }),
		c("Concat2_axis0", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Concat(0, x, x) }),
		c("Concat3_axis1", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(1, x, x.Slice([]int{0, 1}, []int{2, 2}), x.Slice([]int{0, 0}, []int{2, 2}))
		}),
		c("Concat3_last_neg_axis", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(-1, x.Slice([]int{0, 0, 3}, []int{2, 3, 4}), x, x.Slice([]int{0, 0, 0}, []int{2, 3, 2}))
		}),
		c("Concat_with_empty", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, x.Slice([]int{0}, []int{0}), x, x.Slice([]int{2}, []int{2}))
		}),
		c("Concat_computed", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, x.Transpose(0, 2, 1).Reshape(2, 3, 4), x.Slice([]int{1}, []int{2}))
		}),
		c("ExpandDims_0", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(0) }),
		c("ExpandDims_2", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(2) }),
		c("ExpandDims_neg1", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(-1) }),
		c("Squeeze_all", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze() }),
		c("Squeeze_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze(0) }),
		c("Squeeze_neg_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze(-1) }),
		c("Squeeze_to_scalar", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 2, 3}, []int{2, 3, 4}).Squeeze() }),
		c("chain_transpose_slice_reshape", func(x *gojit.Tensor) *gojit.Tensor {
			return x.Transpose(2, 1, 0).Slice([]int{1, 0, 0}, []int{4, 3, 2}, 2, 2, 1).Reshape(-1, 2).ExpandDims(1)
		}),
		c("identity", func(x *gojit.Tensor) *gojit.Tensor { return x }),
	}
}

func TestDiffLayout(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			checkDiff(t, layoutCases(), edgeArray(dt, 500, 2, 3, 4))
		})
	}
	// Layout ops on tensors with a dimension of size 0.
	for _, dt := range []gojit.DType{gojit.Bool, gojit.Float32, gojit.Int64} {
		t.Run("size0_"+dt.String(), func(t *testing.T) {
			c := func(name string, f func(x, y *gojit.Tensor) *gojit.Tensor) dcase {
				return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0], in[1]) }}
			}
			checkDiff(t, []dcase{
				c("Reshape", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Reshape(3, 0) }),
				c("Transpose", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Transpose() }),
				c("BroadcastTo", func(x, y *gojit.Tensor) *gojit.Tensor { return y.Slice([]int{0}, []int{1}).BroadcastTo(0, 3) }),
				c("Slice", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 1}, []int{0, 3}) }),
				c("ExpandDims", func(x, y *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(1) }),
				c("Concat_nonempty_and_empty", func(x, y *gojit.Tensor) *gojit.Tensor {
					return gojit.Concat(0, x, y.Reshape(2, 3))
				}),
				// A Concat of only empty operands is TestConcatAllEmpty.
			}, randArray(dt, 1, 0.2, 0, 3), randArray(dt, 2, 0.2, 6))
		})
	}
}

// ---------------------------------------------------------------------------
// MatMul.

func TestDiffMatMul(t *testing.T) {
	mm := func(name string, i, j int) dcase {
		return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[i].MatMul(in[j]) },
			bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[i], in[j]) }}
	}
	for _, dt := range numDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			prob := 0.05
			a := randArray(dt, 601, prob, 3, 4)
			b := randArray(dt, 602, prob, 4, 5)
			c := randArray(dt, 603, prob, 2, 3, 4)
			d := randArray(dt, 604, prob, 2, 4, 5)
			v := randArray(dt, 605, prob, 4)
			w := randArray(dt, 606, prob, 3)
			checkDiff(t, []dcase{
				mm("2d_3x4_4x5", 0, 1),
				mm("batched_2x3x4_2x4x5", 2, 3),
				mm("batch_broadcast_2x3x4_4x5", 2, 1),
				mm("batch_broadcast_3x4_2x4x5", 0, 3),
				mm("vector_matrix_4_4x5", 4, 1),
				mm("matrix_vector_3x4_4", 0, 4),
				mm("vector_vector_4_4", 4, 4),
				mm("batched_vector_2x3x4_4", 2, 4),
				mm("vector_batched_4_2x4x5", 4, 3),
				mm("vector_matrix_3_3x4", 5, 0),
				{name: "transposed_operand", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Transpose().MatMul(in[0].Transpose()) },
					bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[1].Transpose(), in[0].Transpose()) }},
				{name: "fused_operand", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(in[0]).MatMul(in[1].Mul(in[1])) },
					bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[0].Add(in[0]), in[1].Mul(in[1])) }},
				{name: "batch_broadcast_size1", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[2].Reshape(2, 1, 3, 4).MatMul(in[3].Reshape(1, 2, 4, 5))
				}, bound: func(in []*gojit.Tensor) *gojit.Tensor {
					return matmulBound(in[2].Reshape(2, 1, 3, 4), in[3].Reshape(1, 2, 4, 5))
				}},
			}, a, b, c, d, v, w)
		})
	}
	t.Run("size0", func(t *testing.T) {
		checkDiff(t, []dcase{
			mm("K0_3x0_0x5", 0, 1),
			mm("M0_0x3_3x5", 2, 3),
			mm("N0_3x3_3x0", 4, 5),
		}, randArray(gojit.Float32, 1, 0, 3, 0), randArray(gojit.Float32, 2, 0, 0, 5),
			randArray(gojit.Float32, 3, 0, 0, 3), randArray(gojit.Float32, 4, 0, 3, 5),
			randArray(gojit.Float32, 5, 0, 3, 3), randArray(gojit.Float32, 6, 0, 3, 0))
	})
	t.Run("signed_zero_and_specials_f64", func(t *testing.T) {
		// -0 products onto the +0 accumulator give +0; Inf*0 gives NaN.
		a := gojit.FromFloat64([]float64{negZero, negZero, 1, math.Inf(1), -1, 0}, 2, 3)
		b := gojit.FromFloat64([]float64{0, 1, negZero, 2, 0, -3}, 3, 2)
		checkDiff(t, []dcase{mm("2x3_3x2", 0, 1)}, a, b)
	})
	t.Run("mixed_i32_f32", func(t *testing.T) {
		checkDiff(t, []dcase{{name: "promotes", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]) },
			bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[0], in[1]) }}},
			randArray(gojit.Int32, 1, 0, 3, 4), randArray(gojit.Float32, 2, 0, 4, 2))
	})
	t.Run("larger_f32_17x33x19", func(t *testing.T) {
		checkDiff(t, []dcase{mm("17x33_33x19", 0, 1)}, randArray(gojit.Float32, 1, 0, 17, 33), randArray(gojit.Float32, 2, 0, 33, 19))
	})
}

// ---------------------------------------------------------------------------
// Weak scalars, Iota and Full.

// intRanges bounds the values of the integer dtypes (for Int64, the
// values tests use).
var intRanges = map[gojit.DType][2]float64{gojit.Uint8: {0, 255}, gojit.Int32: {math.MinInt32, math.MaxInt32}, gojit.Int64: {-1 << 63, 1 << 62}}

func TestDiffScalar(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			ws := gojit.Scalar
			fracDT := dt // an int tensor combined with a fractional scalar is Float32
			if !dt.IsFloat() {
				fracDT = gojit.Float32
			}
			// wdt is the dtype of an op with Scalar(v): dt when dt holds v,
			// Float32 otherwise.
			wdt := func(v float64) gojit.DType {
				r, isInt := intRanges[dt]
				if !isInt || (v >= r[0] && v <= r[1] && v == math.Trunc(v)) {
					return dt
				}
				return gojit.Float32
			}
			var cs []dcase
			if dt != gojit.Bool {
				cs = append(cs,
					dcase{name: "Mul_2_keeps_dtype", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(ws(2)) }},
					dcase{name: "Add_0.5", dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(0.5)) }},
					dcase{name: "scalar_Sub_x", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(3).Sub(in[0]) }},
					dcase{name: "Div_0", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(ws(0)) }},
					dcase{name: "Div_minus1", dt: wdt(-1), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(ws(-1)) }},
					dcase{name: "scalar_Div_x", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(100).Div(in[0]) }},
					dcase{name: "Add_minus1", dt: wdt(-1), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(-1)) }},
					dcase{name: "Add_300", dt: wdt(300), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(300)) }},
					dcase{name: "Add_1e10", dt: wdt(1e10), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(1e10)) }},
					dcase{name: "Add_Inf", dt: wdt(math.Inf(1)), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(math.Inf(1))) }},
					dcase{name: "Less_Inf", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Less(ws(math.Inf(1))) }},
					dcase{name: "Greater_minus1e30", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Greater(ws(-1e30)) }},
					dcase{name: "scalar_LessEqual_x_frac", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(-2.5).LessEqual(in[0]) }},
					dcase{name: "Maximum_minus2.5", dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Maximum(ws(-2.5)) }},
					dcase{name: "Minimum_NaN", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Minimum(ws(math.NaN())) }},
					dcase{name: "Pow_2", ulps: transULPs, dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Pow(ws(2)) }},
					dcase{name: "scalar_Cast", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(300.7).Cast(dt).Add(in[0]) }},
					dcase{name: "folded_scalars", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(2).Add(ws(3)).Mul(ws(2)).Mul(in[0]) }},
					dcase{name: "Where_scalar_branches", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Where(in[0].Greater(ws(0)), in[0], ws(0))
					}},
				)
			}
			cs = append(cs,
				dcase{name: "Less_1.5", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Less(ws(1.5)) }},
				dcase{name: "Equal_1", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Equal(ws(1)) }},
				dcase{name: "scalar_GreaterEqual_x", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(0).GreaterEqual(in[0]) }},
				dcase{name: "Where_two_scalars", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[0].NotEqual(ws(0)), ws(1.5), ws(-2))
				}},
				dcase{name: "scalar_output", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(2.5) }},
				dcase{name: "scalar_Exp", ulps: transULPs, dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(1).Exp().Add(in[0].Cast(gojit.Float32)) }},
			)
			checkDiff(t, cs, edgeArray(dt, 700, 4, 8))
		})
	}
}

func TestDiffIotaFull(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			if dt != gojit.Bool {
				cs = append(cs,
					dcase{name: "Iota_axis0", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 3, 4) }},
					dcase{name: "Iota_axis1", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 1, 3, 4) }},
					dcase{name: "Iota_neg_axis", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, -2, 2, 3, 4) }},
					dcase{name: "Iota_300_wraps_u8", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 300) }},
					dcase{name: "Iota_plus_x", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(gojit.Iota(dt, 1, 3, 4)) }},
					dcase{name: "Iota_size1_axis", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 1, 3, 1).Add(gojit.Iota(dt, 0, 3, 1)) }},
					dcase{name: "Iota_in_reduction", f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Iota(dt, 1, 3, 4).Mul(in[0]).Sum(1)
					}},
					dcase{name: "Iota_transposed", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 3, 4).Transpose() }},
				)
			}
			cs = append(cs,
				dcase{name: "Full", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 1, 2, 3) }},
				dcase{name: "Full_scalar_shape", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 0, 1).Reshape() }},
				dcase{name: "Full_size0", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 1, 0, 4) }},
				dcase{name: "Full_eq_x", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 1, 4).Equal(in[0]) }},
				dcase{name: "Full_where", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(gojit.Full(gojit.Bool, 1, 3, 1), in[0], gojit.Full(dt, 0, 3, 4))
				}},
				dcase{name: "Full_concat", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Concat(0, in[0], gojit.Full(dt, 1, 2, 4)) }},
			)
			// Values only some dtypes hold (Full refuses the others, see
			// TestFullValueChecked).
			if dt != gojit.Bool {
				cs = append(cs, dcase{name: "Full_200", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 200, 2) }})
			}
			if dt != gojit.Bool && dt != gojit.Uint8 {
				cs = append(cs, dcase{name: "Full_minus1", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, -1, 3) }},
					dcase{name: "Full_300", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 300, 1).Reshape() }})
			}
			if dt.IsFloat() {
				cs = append(cs, dcase{name: "Full_2.5", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 2.5, 2, 3) }},
					dcase{name: "Full_NaN", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, math.NaN(), 2) }})
			}
			checkDiff(t, cs, edgeArray(dt, 800, 3, 4))
		})
	}
	// A function of constants only, with no parameter at all.
	t.Run("no_params", func(t *testing.T) {
		checkDiff(t, []dcase{
			{name: "Iota_mul_Full", dt: gojit.Float64, f: func([]*gojit.Tensor) *gojit.Tensor {
				return gojit.Iota(gojit.Float64, 0, 5).Mul(gojit.Full(gojit.Float64, 0.5, 5))
			}},
			{name: "Iota_sum", dt: gojit.Int32, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(gojit.Int32, 1, 4, 6).Sum(1) }},
		})
	})
}

// ---------------------------------------------------------------------------
// Fused multi-op chains.

// TestDiffRowNests covers the plans in which a reduction and the
// elementwise groups that use it run in one loop over rows
// (passes.Plan.Nests): softmax, layer norm, row normalization, argmax
// masks, with row-local and materialized intermediates, at sizes the
// runtime splits across threads. The inputs are small integers, so the
// plain sums are exact in any order and those results must be
// bit-identical; softmax and layer norm divide by a reassociated sum of
// non-negative terms (sumChainULPs).
func TestDiffRowNests(t *testing.T) {
	ints := func(dt gojit.DType, seed uint64, shape ...int) *gojit.Array {
		x := randArray(gojit.Int32, seed, 0, shape...)
		comp, _, cerr, _ := runBoth(t, func(x *gojit.Tensor) *gojit.Tensor {
			return x.Sub(x.Div(gojit.Scalar(64)).Mul(gojit.Scalar(64))).Cast(dt)
		}, []any{x})
		if cerr != nil {
			t.Fatal(cerr)
		}
		return comp[0]
	}
	cases := []dcase{
		{name: "softmax", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return softmax(in[0].Mul(gojit.Scalar(0.125))) }},
		// Without the shift: adding beta can cancel, which turns a relative
		// difference into any number of ulps.
		{name: "layer_norm", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return layerNorm(in[0], in[1], gojit.Scalar(0)) }},
		{name: "row_normalize_and_max", f: func(in []*gojit.Tensor) *gojit.Tensor {
			x := in[0].Abs().Add(gojit.Scalar(1))
			return x.Div(x.Reduce(gojit.ReduceSum, true, -1)).Add(x.Reduce(gojit.ReduceMax, true, 1))
		}},
		{name: "center_then_column_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
			d := in[0].Sub(in[0].Reduce(gojit.ReduceMin, true, -1))
			return d.Sum(0).Add(d.Sum(1).Sum())
		}},
		{name: "argmax_mask", f: func(in []*gojit.Tensor) *gojit.Tensor {
			am := in[0].ArgMax(-1).ExpandDims(-1)
			cols := gojit.Iota(gojit.Int64, 1, in[0].Shape()...)
			return gojit.Where(cols.Equal(am), in[0], gojit.Scalar(0)).Sum(-1)
		}},
		{name: "two_nests_by_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor {
			s := in[0].Reduce(gojit.ReduceSum, true, -1)
			y := in[0].Sub(s)
			return y.Mul(y.Reduce(gojit.ReduceMax, true, -1)).Sum(0)
		}},
		{name: "walked_middle_axis_in_nest", f: func(in []*gojit.Tensor) *gojit.Tensor {
			x := in[0].Reshape(in[0].Shape()[0], 2, -1)
			d := x.Sub(x.Reduce(gojit.ReduceMax, true, 1, 2))
			s := d.Reduce(gojit.ReduceSum, true, 1)
			return d.Mul(s).Add(d.Reduce(gojit.ReduceMin, true, 1))
		}},
		{name: "rank3_rows", f: func(in []*gojit.Tensor) *gojit.Tensor {
			x := in[0].Reshape(in[0].Shape()[0], 2, -1)
			return x.Sub(x.Reduce(gojit.ReduceMean, true, 1, 2)).Mul(x.Reduce(gojit.ReduceMax, true, 2))
		}},
	}
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		for _, shape := range [][]int{{16, 8}, {33, 66}, {300, 256}} {
			t.Run(dt.String()+"_"+shapeName(shape), func(t *testing.T) {
				checkDiff(t, cases, ints(dt, 11, shape...), ints(dt, 12, shape[1]), ints(dt, 13, shape[1]))
			})
		}
	}
}

// TestDiffMatMulTiled covers the register-tiled matmul (internal/codegen
// matmul.go): shapes with full tiles and panels, partial ones on both
// sides, several row chunks, batches, K spanning several packed blocks,
// and a bias + relu epilogue. Float results are compared with the bound
// of matmulBound (the tiles use fused multiply-adds); integer ones must
// be bit-exact.
func TestDiffMatMulTiled(t *testing.T) {
	shapes := []struct{ batch, m, k, n int }{
		{0, 6, 5, 32}, {0, 13, 7, 70}, {0, 50, 33, 129}, {2, 7, 3, 40}, {0, 100, 64, 256}, {3, 49, 2, 17}, {0, 13, 600, 40},
	}
	for _, dt := range numDTypes {
		for si, s := range shapes {
			if testing.Short() && si%2 == 1 {
				continue
			}
			t.Run(fmt.Sprintf("%s_%dx%dx%dx%d", dt, s.batch, s.m, s.k, s.n), func(t *testing.T) {
				as, bs := []int{s.m, s.k}, []int{s.k, s.n}
				if s.batch > 0 {
					as, bs = append([]int{s.batch}, as...), append([]int{s.batch}, bs...)
				}
				args := []*gojit.Array{randArray(dt, uint64(700+si), 0.02, as...), randArray(dt, uint64(800+si), 0.02, bs...), randArray(dt, uint64(900+si), 0.02, s.n)}
				checkDiff(t, []dcase{
					{name: "matmul", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]) },
						bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[0], in[1]) }},
				}, args...)
				// Compiled alone, so the matmul's only users are its
				// epilogue and the two are fused.
				checkDiff(t, []dcase{
					{name: "bias_relu", f: func(in []*gojit.Tensor) *gojit.Tensor {
						return in[0].MatMul(in[1]).Add(in[2]).Relu()
					}, bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[2]) }},
				}, args...)
			})
		}
	}
}
