package gojit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojit/gojit"
)

// TestMatMulTailNextRowInf checks the narrow column tails computed as dot
// products along k (internal/codegen dotTail), whose last vector of a
// row of A is read with a masked load: the lanes past the row's end hold
// the next row's first values, here infinite in every other row. The
// finite rows must stay finite (a lane read and multiplied by the zero
// padding would make them NaN) and within matmul's tolerance of a float64
// loop; the others are the loop's infinities exactly.
func TestMatMulTailNextRowInf(t *testing.T) {
	const m = 26
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		for _, kn := range [][2]int{{100, 100}, {20, 67}, {13, 49}, {9, 34}} {
			k, n := kn[0], kn[1]
			t.Run(fmt.Sprintf("%s_k%d_n%d", dt, k, n), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(k), uint64(n)))
				a, b := make([]float64, m*k), make([]float64, k*n)
				for i := range a {
					a[i] = r.Float64()*2 - 1
				}
				for i := range b {
					b[i] = r.Float64()*2 - 1
				}
				if dt == gojit.Float32 { // the values the kernel sees
					for _, x := range [][]float64{a, b} {
						for i, v := range x {
							x[i] = float64(float32(v))
						}
					}
				}
				for i := 1; i < m; i += 2 {
					a[i*k] = math.Inf(1)
				}
				arg := func(x []float64, s ...int) *gojit.Array {
					if dt == gojit.Float64 {
						return gojit.FromFloat64(x, s...)
					}
					y := make([]float32, len(x))
					for i, v := range x {
						y[i] = float32(v)
					}
					return gojit.FromFloat32(y, s...)
				}
				f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.MatMul(y) })
				if err != nil {
					t.Fatal(err)
				}
				outs, err := f.Call(arg(a, m, k), arg(b, k, n))
				if err != nil {
					t.Fatal(err)
				}
				out := outs[0]
				got := make([]float64, m*n)
				if dt == gojit.Float64 {
					copy(got, out.Float64())
				} else {
					for i, v := range out.Float32() {
						got[i] = float64(v)
					}
				}
				eps := 0x1p-52
				if dt == gojit.Float32 {
					eps = 0x1p-23
				}
				for i := range m {
					for j := range n {
						want, abs := 0.0, 0.0
						for l := range k {
							p := a[i*k+l] * b[l*n+j]
							want += p
							abs += math.Abs(p)
						}
						g := got[i*n+j]
						if math.IsInf(want, 0) || math.IsNaN(want) {
							if g != want && !(math.IsNaN(g) && math.IsNaN(want)) {
								t.Fatalf("[%d,%d] = %v, want %v", i, j, g, want)
							}
							continue
						}
						if !(math.Abs(g-want) <= float64(k)*eps*abs+1e-30) { // NaN fails too
							t.Fatalf("[%d,%d] = %v, want %v (within %g)", i, j, g, want, float64(k)*eps*abs)
						}
					}
				}
			})
		}
	}
}

// TestDiffMatMulEdgeShapes compares products at the edges of the
// kernel's vectors (16 float32 or 8 float64 lanes) and row tiles against
// the interpreter, within matmul's bound: M, K and N of 1, 15, 16, 17, 31
// and 33 and K = 0, with a bias epilogue, batched too. Among them are
// the narrow column tails computed as dot products along k (dotTail)
// whose last vector of k is read with a masked load (N = 17 and 33, and
// 9 float64, with K = 15, 17, 31, 33): K below one vector (the masked
// load alone) and above (whole vectors, then the masked load).
func TestDiffMatMulEdgeShapes(t *testing.T) {
	type shape struct{ b, m, k, n int }
	var shapes []shape
	ms := []int{1, 15, 17}
	if testing.Short() {
		ms = []int{17}
	}
	for _, m := range ms {
		for _, k := range []int{0, 1, 15, 16, 17, 31, 33} {
			for _, n := range []int{1, 9, 15, 16, 17, 31, 33} {
				shapes = append(shapes, shape{1, m, k, n})
			}
		}
	}
	for _, k := range []int{0, 15, 17, 33} {
		for _, n := range []int{17, 33} {
			shapes = append(shapes, shape{2, 13, k, n})
		}
	}
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%s_b%d_m%d_k%d_n%d", dt, s.b, s.m, s.k, s.n), func(t *testing.T) {
				t.Parallel()
				d := dcase{name: "bias", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]).Add(in[2]) },
					bound: func(in []*gojit.Tensor) *gojit.Tensor { return matmulAddBound(in[0], in[1], in[2]) }}
				lead := func(d ...int) []int {
					if s.b > 1 {
						return append([]int{s.b}, d...)
					}
					return d
				}
				checkDiff(t, []dcase{d}, randArray(dt, 4001, 0.02, lead(s.m, s.k)...), randArray(dt, 4002, 0.02, lead(s.k, s.n)...), randArray(dt, 4003, 0.02, s.n))
			})
		}
	}
}
