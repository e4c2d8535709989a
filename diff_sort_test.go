package gojit_test

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

func TestDiffSort(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, ax := range []int{0, 1, -1} {
				cs = append(cs,
					dcase{name: "Sort" + shapeName([]int{ax}), dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sort(ax) }},
					dcase{name: "ArgSort" + shapeName([]int{ax}), dt: gojit.Int64, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].ArgSort(ax) }},
				)
			}
			cs = append(cs,
				dcase{name: "TopK_values", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { v, _ := in[0].TopK(3); return v }},
				dcase{name: "TopK_indices", dt: gojit.Int64, f: func(in []*gojit.Tensor) *gojit.Tensor { _, i := in[0].TopK(3); return i }},
			)
			if dt != gojit.Bool {
				cs = append(cs, dcase{name: "Sort_fused", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Neg().Sort(1).Add(gojit.Scalar(1))
				}}, dcase{name: "ArgSort_fused", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Neg().ArgSort(-1).Add(gojit.Scalar(1))
				}})
			}
			checkDiff(t, cs, edgeArray(dt, 1000, 3, 7, 5))
			checkDiff(t, cs, randArray(dt, 1001, 0.5, 2, 40, 9)) // many ties
		})
	}
	t.Run("large", func(t *testing.T) {
		checkDiff(t, []dcase{
			{name: "rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sort(1) }},
			{name: "cols", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].ArgSort(0) }},
		}, randArray(gojit.Float32, 1002, 0.01, 300, 500))
	})
}

// TestSortKnown checks Sort, ArgSort and TopK against Go's slices package
// over a row with ties, signed zeros, infinities and NaN.
func TestSortKnown(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xs := []float64{3, nan, -1, 0, math.Copysign(0, -1), 3, -inf, 2, inf, -1, 3}
	key := func(x float64) (int, float64) { // NaN last, -0 before +0
		if x != x {
			return 1, 0
		}
		if x == 0 && math.Signbit(x) {
			return 0, -0.5e-300
		}
		return 0, x
	}
	idx := make([]int64, len(xs))
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(a, b int64) int {
		na, ka := key(xs[a])
		nb, kb := key(xs[b])
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
		return cmp.Compare(ka, kb)
	})
	// TopK: largest first (NaN the largest), ties by index.
	top := slices.Clone(idx)
	slices.SortStableFunc(top, func(a, b int64) int {
		na, ka := key(xs[a])
		nb, kb := key(xs[b])
		if c := cmp.Compare(nb, na); c != 0 {
			return c
		}
		if c := cmp.Compare(kb, ka); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
			v, i := x.TopK(5)
			return []*gojit.Tensor{x.Sort(0), x.ArgSort(0), v, i}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.FromFloat64(xs))
		if err != nil {
			t.Fatal(err)
		}
		sorted, args, tv, ti := out[0].Float64(), out[1].Int64(), out[2].Float64(), out[3].Int64()
		if !slices.Equal(args, idx) {
			t.Errorf("%d options: ArgSort = %v, want %v", len(opts), args, idx)
		}
		for i, j := range idx {
			if !same64(sorted[i], xs[j], 0) || math.Signbit(sorted[i]) != math.Signbit(xs[j]) && xs[j] == xs[j] {
				t.Errorf("%d options: Sort[%d] = %v, want %v", len(opts), i, sorted[i], xs[j])
			}
		}
		if !slices.Equal(ti, top[:5]) {
			t.Errorf("%d options: TopK indices = %v, want %v", len(opts), ti, top[:5])
		}
		for i, j := range top[:5] {
			if !same64(tv[i], xs[j], 0) {
				t.Errorf("%d options: TopK values[%d] = %v, want %v", len(opts), i, tv[i], xs[j])
			}
		}
	}
	checkTraceError(t, func(x *gojit.Tensor) *gojit.Tensor { v, _ := x.TopK(12); return v }, []any{gojit.FromFloat64(xs)}, "diff_sort_test.go:", "TopK", "k = 12 out of range")
	checkTraceError(t, func(x *gojit.Tensor) *gojit.Tensor { return x.Sort(1) }, []any{gojit.FromFloat64(xs)}, "diff_sort_test.go:", "Sort", "axis 1 out of range")
}
