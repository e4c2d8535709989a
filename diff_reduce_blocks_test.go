package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// TestDiffReduceBlocks covers reductions of every axis of a large operand,
// which the compiled code folds in fixed blocks split across threads and
// then combines in block order (internal/codegen reduce_blocks.go): a
// flat operand (one row cut into blocks), rows grouped into blocks, rows
// longer than a block, more than one leading axis, fused producers
// (among them a broadcast and an exp), every reduction that takes the
// path, and edge values (NaN, infinities, -0) for max and min, which must
// come out bit-exact. Smaller whole-array reductions of elementwise
// operands run as one loop over the linear offset (emitReduce). Each case is compiled alone against the interpreter.
func TestDiffReduceBlocks(t *testing.T) {
	type op = func(in []*gojit.Tensor) *gojit.Tensor
	ident := func(in []*gojit.Tensor) *gojit.Tensor { return in[0] }
	cases := []struct {
		name  string
		dt    gojit.DType
		shape []int
		kind  gojit.ReduceKind
		edge  float64
		arg   op
	}{
		{"flat_1d", gojit.Float32, []int{70001}, gojit.ReduceSum, 0, ident},
		{"flat_2d", gojit.Float32, []int{300, 701}, gojit.ReduceSum, 0, ident},
		{"mean_f64", gojit.Float64, []int{257, 513}, gojit.ReduceMean, 0, ident},
		{"exp", gojit.Float32, []int{65536}, gojit.ReduceSum, 0, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(gojit.Scalar(0.01)).Exp() }},
		{"rows_grouped", gojit.Float32, []int{1000, 97}, gojit.ReduceSum, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Add(gojit.Iota(gojit.Float32, 1, 1000, 97))
		}},
		{"rows_cut", gojit.Float32, []int{3, 40000}, gojit.ReduceSum, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(gojit.Iota(gojit.Float32, 0, 3, 40000).Add(gojit.Scalar(1)))
		}},
		{"rank3", gojit.Float32, []int{2, 3, 20000}, gojit.ReduceMean, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Sub(gojit.Iota(gojit.Float32, 1, 2, 3, 20000))
		}},
		{"transposed", gojit.Float32, []int{300, 400}, gojit.ReduceSum, 0, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Transpose(1, 0).Mul(in[0].Transpose(1, 0)) }},
		{"max_f32", gojit.Float32, []int{500, 300}, gojit.ReduceMax, 0.01, ident},
		{"min_f32", gojit.Float32, []int{500, 300}, gojit.ReduceMin, 0.01, ident},
		{"max_f64_rows", gojit.Float64, []int{1000, 70}, gojit.ReduceMax, 0.001, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Add(gojit.Iota(gojit.Float64, 1, 1000, 70))
		}},
		{"min_nan_free", gojit.Float32, []int{90000}, gojit.ReduceMin, 0, ident},
		{"sum_i32", gojit.Int32, []int{400, 300}, gojit.ReduceSum, 0.01, ident},
		{"sum_i64", gojit.Int64, []int{70000}, gojit.ReduceSum, 0.01, ident},
		{"prod_i32", gojit.Int32, []int{300, 300}, gojit.ReduceProd, 0, ident},
		{"max_u8", gojit.Uint8, []int{300, 300}, gojit.ReduceMax, 0.01, ident},
		{"min_i64", gojit.Int64, []int{300, 300}, gojit.ReduceMin, 0.01, ident},
		{"prod_f32_sequential", gojit.Float32, []int{300, 300}, gojit.ReduceProd, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(gojit.Scalar(1e-6)).Add(gojit.Scalar(1))
		}},
		// Below the blocks' size: one loop over the linear offset.
		{"small_relu_mean", gojit.Float32, []int{100, 100}, gojit.ReduceMean, 0, func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Relu() }},
		{"small_max_edges", gojit.Float32, []int{30, 40}, gojit.ReduceMax, 0.05, ident},
		{"small_min_rank3", gojit.Float64, []int{3, 7, 11}, gojit.ReduceMin, 0.05, ident},
		{"small_prod_i64", gojit.Int64, []int{20, 30}, gojit.ReduceProd, 0.01, ident},
		{"small_prod_f32", gojit.Float32, []int{20, 30}, gojit.ReduceProd, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(gojit.Scalar(1e-3)).Add(gojit.Scalar(1))
		}},
		{"small_broadcast", gojit.Float32, []int{50, 60}, gojit.ReduceSum, 0, func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Add(gojit.Iota(gojit.Float32, 0, 50, 60))
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := randArray(c.dt, uint64(1700+i), c.edge, c.shape...)
			dc := dcase{name: c.name, f: func(in []*gojit.Tensor) *gojit.Tensor { return c.arg(in).Reduce(c.kind, false) }}
			if c.dt.IsFloat() && (c.kind == gojit.ReduceSum || c.kind == gojit.ReduceMean) {
				dc.bound = func(in []*gojit.Tensor) *gojit.Tensor { return sumBound(c.arg(in), c.kind, false) }
			}
			if c.kind == gojit.ReduceProd && c.dt.IsFloat() {
				dc.ulps = 4
			}
			checkAlone(t, dc, x)
		})
	}
}

// TestReduceBlocksThreads checks that a whole-array reduction gives the
// same bits on 1, 2 and 3 threads, and agrees with a float64 Go loop.
func TestReduceBlocksThreads(t *testing.T) {
	const r, c = 1001, 1999
	x := randArray(gojit.Float32, 1800, 0, r, c)
	xs := x.Float32()
	sum, abs, hi := 0.0, 0.0, math.Inf(-1)
	for _, v := range xs {
		sum += float64(v)
		abs += math.Abs(float64(v))
		hi = max(hi, float64(v))
	}
	fns := []struct {
		name string
		f    func(x *gojit.Tensor) *gojit.Tensor
		want float64
		tol  float64
	}{
		{"sum", func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }, sum, 2 * r * c * 0x1p-24 * abs},
		{"mean", func(x *gojit.Tensor) *gojit.Tensor { return x.Mean() }, sum / (r * c), 2 * r * c * 0x1p-24 * abs / (r * c)},
		{"max", func(x *gojit.Tensor) *gojit.Tensor { return x.Max() }, hi, 0},
	}
	for _, fc := range fns {
		var first uint32
		for _, threads := range []int{1, 2, 3} {
			f, err := gojit.Compile(fc.f, gojit.WithThreads(threads))
			if err != nil {
				t.Fatal(err)
			}
			out := gojit.New(gojit.Float32)
			if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
				t.Fatal(err)
			}
			got := out.Float32()[0]
			if d := math.Abs(float64(got) - fc.want); d > fc.tol {
				t.Errorf("%s on %d threads: got %v, want %v (|diff| %g > %g)", fc.name, threads, got, fc.want, d, fc.tol)
			}
			if threads == 1 {
				first = math.Float32bits(got)
			} else if b := math.Float32bits(got); b != first {
				t.Errorf("%s on %d threads: %#x, on 1 thread %#x", fc.name, threads, b, first)
			}
		}
	}
}
