package gojit_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// sumOfProduct is the plain-Go reference of sum(f(x@w)) in float64, with
// the bound of a float32 (eps 2^-23) or float64 (2^-52) evaluation: each
// product element is off by at most K*eps times its sum of |terms|, and
// the sum of the M*N elements adds M*N*eps times the sum of their
// magnitudes. f must be 1-Lipschitz (relu, a shift).
func sumOfProduct(x, w []float64, M, K, N int, f func(v float64, j int) float64, eps float64) (sum, bound float64) {
	var absTerms, absVals float64
	for i := range M {
		for j := range N {
			var s, a float64
			for k := range K {
				s += x[i*K+k] * w[k*N+j]
				a += math.Abs(x[i*K+k] * w[k*N+j])
			}
			v := f(s, j)
			sum += v
			absTerms += a
			absVals += math.Abs(v)
		}
	}
	return sum, 2*float64(K)*eps*absTerms + 2*float64(M*N)*eps*absVals + 1e-30
}

// TestDiffMatMulSum covers the summed matmul epilogue (passes.matMulSum):
// a float sum of elementwise ops of a product, computed by the matmul's
// group from the product kept on the stack. Shapes cover a short last
// tile, column tails (dot products and narrow panels), A packed in
// several blocks of k, a product just over the size limit (not fused),
// a bias broadcast along rows (the epilogue's row loops instead of its
// flat loop), and float64. Compiled and interpreted results are both
// checked against a float64 Go loop.
func TestDiffMatMulSum(t *testing.T) {
	type shape struct{ m, k, n int }
	shapes := []shape{{1, 1, 1}, {5, 70, 37}, {13, 300, 40}, {100, 100, 100}, {37, 129, 21}, {12, 16, 16}, {127, 100, 127}, {128, 64, 128}, {25, 513, 33}, {64, 1024, 64}}
	relu := func(v float64, _ int) float64 { return max(v, 0) }
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		eps := 0x1p-23
		if dt == gojit.Float64 {
			eps = 0x1p-52
		}
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%s_m%d_k%d_n%d", dt, s.m, s.k, s.n), func(t *testing.T) {
				t.Parallel()
				xa, wa, ba := randArray(dt, 4001, 0, s.m, s.k), randArray(dt, 4002, 0, s.k, s.n), randArray(dt, 4003, 0, s.n)
				x, w, bias := floats(xa), floats(wa), floats(ba)
				want, bound := sumOfProduct(x, w, s.m, s.k, s.n, relu, eps)
				wantB, boundB := sumOfProduct(x, w, s.m, s.k, s.n, func(v float64, j int) float64 { return v + bias[j] }, eps)
				// A computed left operand: x*x+x rounds twice per
				// element, which the bound's K*eps per term covers with
				// its factor 2.
				x2 := make([]float64, len(x))
				for i, v := range x {
					x2[i] = v*v + v
				}
				wantL, boundL := sumOfProduct(x2, w, s.m, s.k, s.n, relu, eps)
				cases := []struct {
					name        string
					fn          any
					args        []any
					want, bound float64
				}{
					{"sum_relu", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Relu().Sum() }, []any{xa, wa}, want, bound},
					{"mean_relu", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Relu().Mean() }, []any{xa, wa},
						want / float64(s.m*s.n), bound / float64(s.m*s.n)},
					{"sum_bias", func(x, w, b *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Add(b).Sum() }, []any{xa, wa, ba}, wantB, boundB},
					{"sum_relu_lhs", func(x, w *gojit.Tensor) *gojit.Tensor { return x.Mul(x).Add(x).MatMul(w).Relu().Sum() }, []any{xa, wa}, wantL, boundL},
				}
				for _, c := range cases {
					for _, interp := range []bool{false, true} {
						var opts []gojit.Option
						if interp {
							opts = append(opts, gojit.WithInterpreter())
						}
						f, err := gojit.Compile(c.fn, opts...)
						if err != nil {
							t.Fatal(err)
						}
						out, err := f.Call(c.args...)
						if err != nil {
							t.Fatalf("%s: %v", c.name, err)
						}
						got := floats(out[0])[0]
						if math.Abs(got-c.want) > c.bound {
							t.Errorf("%s (interpreter %v): got %v, want %v ± %v", c.name, interp, got, c.want, c.bound)
						}
					}
				}
			})
		}
	}
}

// TestMatMulSumFused checks that GT2's pattern takes the summed epilogue:
// the product is not a group of its own, and no group reduces it
// separately.
func TestMatMulSumFused(t *testing.T) {
	f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x).MatMul(y).Relu().Mean() })
	if err != nil {
		t.Fatal(err)
	}
	x := gojit.FromFloat32(make([]float32, 100*100), 100, 100)
	l, err := f.Lower(x, x)
	if err != nil {
		t.Fatal(err)
	}
	plan := l.Fused[strings.Index(l.Fused, "group 0"):]
	if strings.Count(plan, "group ") != 3 || !strings.Contains(plan, "(reduce_sum): %4 ") {
		t.Errorf("plan:\n%s", plan)
	}
}

// TestMatMulSumLargeK checks that a product with too many multiply-adds
// for one thread (4.2M) keeps its own group, which the runtime may split.
func TestMatMulSumLargeK(t *testing.T) {
	f, err := gojit.Compile(func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Relu().Sum() })
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Lower(gojit.New(gojit.Float32, 64, 1024), gojit.New(gojit.Float32, 1024, 64))
	if err != nil {
		t.Fatal(err)
	}
	if plan := l.Fused[strings.Index(l.Fused, "group 0"):]; !strings.Contains(plan, "(matmul)") {
		t.Errorf("plan:\n%s", plan)
	}
}

// TestMatMulSumDynamic runs the pattern with a dynamic leading dimension,
// which takes no summed epilogue (passes.FuseDynamic), at three sizes.
func TestMatMulSumDynamic(t *testing.T) {
	f, err := gojit.Compile(func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Relu().Sum() }, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	wa := randArray(gojit.Float32, 5002, 0, 30, 20)
	for _, m := range []int{7, 9, 40, 13} {
		xa := randArray(gojit.Float32, uint64(5100+m), 0, m, 30)
		want, bound := sumOfProduct(floats(xa), floats(wa), m, 30, 20, func(v float64, _ int) float64 { return max(v, 0) }, 0x1p-23)
		out, err := f.Call(xa, wa)
		if err != nil {
			t.Fatal(err)
		}
		if got := floats(out[0])[0]; math.Abs(got-want) > bound {
			t.Errorf("m=%d: got %v, want %v ± %v", m, got, want, bound)
		}
	}
}

func floats(a *gojit.Array) []float64 {
	switch d := a.Data().(type) {
	case []float32:
		r := make([]float64, len(d))
		for i, v := range d {
			r[i] = float64(v)
		}
		return r
	case []float64:
		return d
	}
	panic("floats: " + a.DType().String())
}
