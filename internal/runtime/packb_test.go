package runtime

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// A static matmul's B is packed once per call by a nest of its own into
// a scratch buffer of the call's arena (codegen/matmul_pack.go). Every
// kind of panel (whole, narrower, tail), several blocks of k, a batch and
// an epilogue, with the nests split across threads (forced) and not, must
// agree with the interpreter, also when frames are reused.
func TestMatMulPackedB(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	cases := []struct{ batch, m, k, n int }{
		{1, 100, 100, 100}, // two chunks, a narrower panel and a tail
		{1, 37, 300, 53},   // two blocks of k, the shorter last one
		{3, 25, 70, 48},    // batch, whole vectors only
		{2, 13, 9, 7},      // tail panel only
		{1, 200, 40, 96},   // four chunks, whole panels only
	}
	for _, c := range cases {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%dx%dx%d/split=%v", c.batch, c.m, c.k, c.n, forced), func(t *testing.T) {
				if forced {
					defer func(w int) { parallelWork = w }(parallelWork)
					parallelWork = 1
				}
				checkPackedB(t, c.batch, c.m, c.k, c.n)
			})
		}
	}
}

func checkPackedB(t *testing.T, batch, m, k, n int) {
	shape := func(r, c int) string {
		if batch == 1 {
			return fmt.Sprintf("[%d,%d]", r, c)
		}
		return fmt.Sprintf("[%d,%d,%d]", batch, r, c)
	}
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32%s
  %%1 = param 1 : f32%s
  %%2 = matmul %%0, %%1 : f32%s
  %%3 = const 0 : f32%s
  %%4 = max %%2, %%3 : f32%s
  return %%4
}`, shape(m, k), shape(k, n), shape(m, n), shape(m, n), shape(m, n)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Build(g, Options{OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Module.Scratch) != 1 {
		t.Fatalf("module has %d scratch buffers, want one (the packed B)", len(e.Module.Scratch))
	}
	a, b := make([]float32, batch*m*k), make([]float32, batch*k*n)
	for i := range a {
		a[i] = float32(math.Sin(float64(i) * 0.7))
	}
	for i := range b {
		b[i] = float32(math.Cos(float64(i)*0.3)) * 0.5
	}
	want, err := interp.Run(g, []any{a, b})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, batch*m*n)
	for _, threads := range []int{1, 2, 1} { // reused frames
		clear(out)
		if err := e.RunWith([]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])}, []unsafe.Pointer{unsafe.Pointer(&out[0])}, RunOptions{Threads: threads}); err != nil {
			t.Fatal(err)
		}
		for i, v := range want[0].([]float32) {
			if d := math.Abs(float64(out[i] - v)); d > 1e-4*(1+math.Abs(float64(v)))*float64(k) {
				t.Fatalf("threads %d: out[%d] = %v, interpreter %v", threads, i, out[i], v)
			}
		}
	}
}
