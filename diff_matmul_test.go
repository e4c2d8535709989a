package gojit_test

// Differential tests of matmul epilogue fusion (internal/passes Fuse,
// Plan.MatMul; internal/codegen matmul.go): elementwise consumers that
// are a matmul's only users are applied as each panel of the product is
// finished. Every case is compiled on its own, so that no other case's
// use of the same matmul keeps it from being fused.

import (
	"fmt"
	"testing"

	"github.com/gojit/gojit"
)

func TestDiffMatMulEpilogue(t *testing.T) {
	// K = 300 spans several blocks of k for every dtype; N = 90 leaves a
	// narrower panel and single columns right of the last whole panel,
	// M = 25 rows below the last tile.
	const b, m, k, n = 2, 25, 300, 90
	type ecase struct {
		name string
		f    func(in []*gojit.Tensor) *gojit.Tensor
		// bound is the tolerance of float results; integers are exact.
		bound func(in []*gojit.Tensor) *gojit.Tensor
	}
	cases := []ecase{
		{"bias_relu", func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]).Add(in[2]).Relu() },
			func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[2]) }},
		{"residual", func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]).Add(in[3]) },
			func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[3]) }},
		{"used_twice", func(in []*gojit.Tensor) *gojit.Tensor {
			// 2x - x is x exactly, for floats too.
			x := in[0].MatMul(in[1])
			return x.Mul(gojit.Scalar(2)).Sub(x)
		}, func(in []*gojit.Tensor) *gojit.Tensor { return matmulBound(in[0], in[1]) }},
		{"clamp_where", func(in []*gojit.Tensor) *gojit.Tensor {
			x := in[0].MatMul(in[1])
			return gojit.Where(x.Less(gojit.Scalar(0)), x.Neg(), x.Maximum(in[3]))
		}, nil},
	}
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64, gojit.Int32, gojit.Int64} {
		args := []*gojit.Array{
			randArray(dt, 1001, 0.02, b, m, k), randArray(dt, 1002, 0.02, b, k, n),
			randArray(dt, 1003, 0.02, n), randArray(dt, 1004, 0.02, b, m, n),
		}
		for _, c := range cases {
			if dt.IsFloat() && c.bound == nil {
				continue // a comparison near 0 can flip with the rounding
			}
			t.Run(fmt.Sprintf("%s_%s", dt, c.name), func(t *testing.T) {
				t.Parallel()
				d := dcase{name: c.name, f: c.f}
				if dt.IsFloat() {
					d.bound = c.bound
				}
				checkDiff(t, []dcase{d}, args...)
			})
		}
	}
}

// TestDiffMatMulRowCounts covers row counts around the microkernel's tile
// height (12) and matrices split into several chunks, whose last chunk
// ends in a shorter tile of M % 12 rows.
func TestDiffMatMulRowCounts(t *testing.T) {
	const k, n = 70, 40
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Int32} {
		for _, m := range []int{1, 5, 11, 12, 13, 23, 200, 209, 397} {
			t.Run(fmt.Sprintf("%s_m%d", dt, m), func(t *testing.T) {
				t.Parallel()
				d := dcase{name: "bias_relu", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]).Add(in[2]).Relu() }}
				if dt.IsFloat() {
					d.bound = func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[2]) }
				}
				checkDiff(t, []dcase{d}, randArray(dt, 2001, 0.02, m, k), randArray(dt, 2002, 0.02, k, n), randArray(dt, 2003, 0.02, n))
			})
		}
	}
}

// TestDiffMatMulSmallShapes covers the microkernel reading A unpacked
// (one block of k: K <= 256 float32 or 128 float64 values) against the
// packed path just above it: M, N and K from 1 to 130 one at a time
// around GT2's 100x100x100, including counts that are not multiples of
// the vector width (16 float32, 8 float64) or the tile height (12),
// batched, with a bias+relu epilogue; and a few with A packed (several
// blocks of k).
func TestDiffMatMulSmallShapes(t *testing.T) {
	type shape struct{ b, m, k, n int }
	var shapes []shape
	for _, v := range []int{1, 4, 13, 16, 17, 33, 100, 127, 130} {
		shapes = append(shapes, shape{1, v, 100, 100}, shape{1, 100, v, 100}, shape{1, 100, 100, v})
	}
	shapes = append(shapes, shape{3, 100, 100, 100}, shape{2, 37, 129, 21}, shape{2, 130, 130, 130}, shape{1, 25, 256, 40}, shape{1, 25, 257, 40},
		// A packed row by row: several chunks, blocks of k with a short last one.
		shape{1, 209, 513, 40}, shape{2, 61, 300, 70},
		// Narrow tails computed as dot products along k (dotTail), with
		// several blocks of k, a batch and chunks.
		shape{2, 50, 300, 36}, shape{1, 209, 1030, 19}, shape{1, 13, 31, 17})
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64, gojit.Int32} {
		for _, s := range shapes {
			if dt != gojit.Float32 && s.m == 100 && s.k == 100 && s.n != 100 && s.n != 17 {
				continue // the other dtypes need only a sample
			}
			t.Run(fmt.Sprintf("%s_b%d_m%d_k%d_n%d", dt, s.b, s.m, s.k, s.n), func(t *testing.T) {
				t.Parallel()
				d := dcase{name: "bias_relu", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]).Add(in[2]).Relu() }}
				if dt.IsFloat() {
					d.bound = func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[2]) }
				}
				lead := func(d ...int) []int {
					if s.b > 1 {
						return append([]int{s.b}, d...)
					}
					return d
				}
				checkDiff(t, []dcase{d}, randArray(dt, 3001, 0.02, lead(s.m, s.k)...), randArray(dt, 3002, 0.02, lead(s.k, s.n)...), randArray(dt, 3003, 0.02, s.n))
			})
		}
	}
}
