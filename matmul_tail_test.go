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
