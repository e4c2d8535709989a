package gojit_test

// Differential and known-answer tests of the layout ops of issue 10
// (ops_layout.go) and of negative steps in Slice.

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

func newLayoutCases() []dcase {
	in0 := func(f func(x *gojit.Tensor) *gojit.Tensor) func([]*gojit.Tensor) *gojit.Tensor {
		return func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0]) }
	}
	return []dcase{
		{name: "Flip_all", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Flip() })},
		{name: "Flip_0", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(0) })},
		{name: "Flip_-1", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(-1) })},
		{name: "Flip_twice", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(1).Flip(1) })},
		{name: "Slice_neg", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{-1, 3}, []int{math.MinInt, 0}, -1, -2) })},
		{name: "Slice_neg_of_pos", f: in0(func(x *gojit.Tensor) *gojit.Tensor {
			return x.Slice([]int{1}, []int{3}, 1, 2).Slice([]int{1, -1}, []int{math.MinInt, math.MinInt}, -1, -1)
		})},
		{name: "Stack_0", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Stack(0, in[0], in[0].Flip(0)) }},
		{name: "Stack_-1", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Stack(-1, in[0], in[0], in[0].Flip()) }},
		{name: "Split_1", f: in0(func(x *gojit.Tensor) *gojit.Tensor { p := x.Split(2, 1); return gojit.Concat(1, p[1], p[0]) })},
		{name: "SplitAt_0", f: in0(func(x *gojit.Tensor) *gojit.Tensor {
			p := x.SplitAt(0, 1, -1)
			return gojit.Concat(0, p[2], p[0], p[1])
		})},
		{name: "Pad_constant", f: in0(func(x *gojit.Tensor) *gojit.Tensor {
			return x.Pad([][2]int{{1, 2}, {0, 3}, {2, 0}}, gojit.PadConstant, 1)
		})},
		{name: "Pad_edge", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Pad([][2]int{{2, 1}}, gojit.PadEdge, 0) })},
		{name: "Pad_reflect", f: in0(func(x *gojit.Tensor) *gojit.Tensor {
			return x.Pad([][2]int{{1, 1}, {3, 2}, {0, 1}}, gojit.PadReflect, 0)
		})},
		{name: "Tile_2x1x3", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Tile(2, 1, 3) })},
		{name: "Tile_more_reps", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Tile(2, 1, 1, 2) })},
		{name: "Tile_fewer_reps", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Tile(3) })},
		{name: "Tile_zero", f: in0(func(x *gojit.Tensor) *gojit.Tensor { return x.Tile(0, 2) })},
	}
}

func TestDiffNewLayout(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			checkDiff(t, newLayoutCases(), edgeArray(dt, 800, 3, 4, 5))
			// Fused into arithmetic (Bool has none: its layout results
			// above are compared as they are).
			if dt != gojit.Bool {
				var cs []dcase
				for _, c := range newLayoutCases() {
					cs = append(cs, dcase{name: c.name + "_fused", f: func(in []*gojit.Tensor) *gojit.Tensor {
						return c.f(in).Mul(gojit.Scalar(2)).Add(gojit.Scalar(1))
					}})
				}
				checkDiff(t, cs, edgeArray(dt, 801, 3, 4, 5))
			}
		})
	}
	// Large enough to be split across threads.
	t.Run("large", func(t *testing.T) {
		checkDiff(t, []dcase{
			{name: "Flip", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Flip(1).Add(in[0]) }},
			{name: "Pad_reflect", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Pad([][2]int{{2, 2}, {3, 3}}, gojit.PadReflect, 0)
			}},
			{name: "Tile", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Tile(2, 2) }},
		}, randArray(gojit.Float32, 802, 0, 300, 400))
	})
}

// TestLayoutKnown checks the layout ops against answers written out (NumPy
// gives the same).
func TestLayoutKnown(t *testing.T) {
	x := gojit.FromInt32([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	v := gojit.FromInt32([]int32{1, 2, 3})
	cases := []struct {
		name  string
		f     func(x, v *gojit.Tensor) *gojit.Tensor
		want  []int32
		shape []int
	}{
		{"flip", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Flip() }, []int32{6, 5, 4, 3, 2, 1}, []int{2, 3}},
		{"flip1", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Flip(1) }, []int32{3, 2, 1, 6, 5, 4}, []int{2, 3}},
		{"x[::-2]", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Slice(nil, nil, -2) }, []int32{3, 1}, []int{2}},
		{"x[1::-1]", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Slice([]int{1}, []int{math.MinInt}, -1) }, []int32{2, 1}, []int{2}},
		{"x[5:0:-1]", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Slice([]int{5}, []int{0}, -1) }, []int32{3, 2}, []int{2}},
		{"x[0:2:-1]", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Slice([]int{0}, []int{2}, -1) }, nil, []int{0}},
		{"stack0", func(_, v *gojit.Tensor) *gojit.Tensor { return gojit.Stack(0, v, v.Flip()) }, []int32{1, 2, 3, 3, 2, 1}, []int{2, 3}},
		{"stack1", func(_, v *gojit.Tensor) *gojit.Tensor { return gojit.Stack(1, v, v.Flip()) }, []int32{1, 3, 2, 2, 3, 1}, []int{3, 2}},
		{"split", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Split(3, 1)[2] }, []int32{3, 6}, []int{2, 1}},
		{"splitat", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.SplitAt(1, 1)[1] }, []int32{2, 3, 5, 6}, []int{2, 2}},
		{"constant", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Pad([][2]int{{2, 1}}, gojit.PadConstant, 9) }, []int32{9, 9, 1, 2, 3, 9}, []int{6}},
		{"edge", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Pad([][2]int{{2, 1}}, gojit.PadEdge, 0) }, []int32{1, 1, 1, 2, 3, 3}, []int{6}},
		{"reflect", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Pad([][2]int{{2, 2}}, gojit.PadReflect, 0) }, []int32{3, 2, 1, 2, 3, 2, 1}, []int{7}},
		{"reflect2d", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Pad([][2]int{{1, 0}, {0, 1}}, gojit.PadReflect, 0) },
			[]int32{4, 5, 6, 5, 1, 2, 3, 2, 4, 5, 6, 5}, []int{3, 4}},
		{"tile", func(_, v *gojit.Tensor) *gojit.Tensor { return v.Tile(2, 2) }, []int32{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, []int{2, 6}},
		{"tile2d", func(x, _ *gojit.Tensor) *gojit.Tensor { return x.Tile(1, 2) }, []int32{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}, []int{2, 6}},
	}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s_%d", c.name, len(opts)), func(t *testing.T) {
				f, err := gojit.Compile(c.f, opts...)
				if err != nil {
					t.Fatal(err)
				}
				out, err := f.Call(x, v)
				if err != nil {
					t.Fatal(err)
				}
				got := out[0].Int32()
				if !slices.Equal(got, c.want) && (len(got) != 0 || len(c.want) != 0) || !slices.Equal(out[0].Shape(), c.shape) {
					t.Errorf("got %v %v, want %v %v", got, out[0].Shape(), c.want, c.shape)
				}
			})
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	cases := []struct {
		name string
		fn   any
		want []string
	}{
		{"Flip_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(2) }, []string{"Flip", "axis 2 out of range"}},
		{"Slice_step0", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice(nil, nil, 0) }, []string{"Slice", "must not be 0"}},
		{"Stack_shapes", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Stack(0, x, x.Sum(0)) }, []string{"Stack", "shapes differ"}},
		{"Stack_axis", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Stack(3, x, x) }, []string{"Stack", "axis 3 out of range"}},
		{"Split_uneven", func(x *gojit.Tensor) *gojit.Tensor { return x.Split(2, 1)[1] }, []string{"Split", "3 into 2 equal parts"}},
		{"SplitAt_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.SplitAt(-3, 1)[0] }, []string{"SplitAt", "axis -3"}},
		{"Pad_pairs", func(x *gojit.Tensor) *gojit.Tensor { return x.Pad([][2]int{{1, 1}, {1, 1}, {1, 1}}, gojit.PadEdge, 0) }, []string{"Pad", "3 width pairs for rank 2"}},
		{"Pad_reflect", func(x *gojit.Tensor) *gojit.Tensor { return x.Pad([][2]int{{2, 0}}, gojit.PadReflect, 0) }, []string{"Pad", "reflect padding"}},
		{"Pad_value", func(x *gojit.Tensor) *gojit.Tensor {
			return x.Cast(gojit.Int32).Pad([][2]int{{1, 0}}, gojit.PadConstant, 0.5)
		}, []string{"Pad", "0.5 is not a i32 value"}},
		{"Pad_negative", func(x *gojit.Tensor) *gojit.Tensor { return x.Pad([][2]int{{-1, 0}}, gojit.PadConstant, 0) }, []string{"Pad", "negative width"}},
		{"Tile_negative", func(x *gojit.Tensor) *gojit.Tensor { return x.Tile(-1) }, []string{"Tile", "negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkTraceError(t, c.fn, []any{x}, append([]string{"diff_ops_layout_test.go:"}, c.want...)...)
		})
	}
}

// TestDiffReshapeRoot checks fused computations whose group ends in a
// reshape that keeps dimension 0: the compiled loops then run over the
// reshape's operand (internal/codegen reshapedLoops), including a gather,
// an iota and a broadcast per row, and a chain of two reshapes.
func TestDiffReshapeRoot(t *testing.T) {
	cases := []dcase{
		{name: "elementwise_to_channels", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(gojit.Scalar(2)).Add(gojit.Scalar(1)).Reshape(6, 10, 4, 3)
		}},
		{name: "iota_rowbroadcast", f: func(in []*gojit.Tensor) *gojit.Tensor {
			e := gojit.Iota(gojit.Float32, 1, 6, 120)
			row := in[0].Slice([]int{0, 0}, []int{6, 1}).BroadcastTo(6, 120)
			return gojit.Where(e.Less(gojit.Scalar(50)), in[0], row.Add(e)).Reshape(6, 40, 3)
		}},
		{name: "gather", f: func(in []*gojit.Tensor) *gojit.Tensor {
			idx := gojit.Iota(gojit.Int32, 1, 6, 120).Mul(gojit.Scalar(7)).Add(gojit.Scalar(3)).Mod(gojit.Scalar(120))
			return in[0].TakeAlongAxis(idx, 1).Add(in[0]).Reshape(6, 8, 5, 3)
		}},
		{name: "two_reshapes", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Sub(gojit.Scalar(3)).Reshape(6, 40, 3).Reshape(6, 4, 30)
		}},
		{name: "split_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { // dimension 0 changes: loops over the root
			return in[0].Mul(in[0]).Reshape(12, 20, 3)
		}},
	}
	checkDiff(t, cases, randArray(gojit.Float32, 803, 0.1, 6, 120))
	// Large enough to be split across threads.
	big := []dcase{{name: "large", f: func(in []*gojit.Tensor) *gojit.Tensor {
		return in[0].Mul(gojit.Scalar(3)).Add(in[0].Flip(1)).Reshape(256, 1000, 3)
	}}}
	checkDiff(t, big, randArray(gojit.Float32, 804, 0, 256, 3000))
}
