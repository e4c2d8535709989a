package runtime

import (
	"fmt"
	"math"
	"syscall"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// guardedF32 returns n float32s that end where an inaccessible page
// begins, so that a kernel reading or writing past them faults.
func guardedF32(tb testing.TB, n int) []float32 {
	page := syscall.Getpagesize()
	size := (n*4+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		tb.Fatal(err)
	}
	end := size - page
	return unsafe.Slice((*float32)(unsafe.Pointer(&mem[end-n*4])), n)
}

// TestMatMulGuardedEdges runs float32 products whose A, B and output
// each end against an inaccessible page, at shapes whose narrow column
// tails are dot products along k (codegen's dotTail) with a partial last
// vector of k: a read of A's last row or B's last columns past their
// end, or a write past the output's, faults. Results are checked against
// a float64 loop within matmul's bound (k ulps of the sum of |a*b|).
func TestMatMulGuardedEdges(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	for _, m := range []int{1, 13, 16} {
		for _, k := range []int{1, 15, 16, 17, 31, 33} {
			for _, n := range []int{1, 15, 17, 33} {
				g, err := ir.Parse(fmt.Sprintf("graph {\n  %%0 = param 0 : f32[%d,%d]\n  %%1 = param 1 : f32[%d,%d]\n  %%2 = matmul %%0, %%1 : f32[%d,%d]\n  return %%2\n}", m, k, k, n, m, n))
				if err != nil {
					t.Fatal(err)
				}
				e, err := Build(g, Options{OptLevel: 3})
				if err != nil {
					t.Fatal(err)
				}
				a, b, c := guardedF32(t, m*k), guardedF32(t, k*n), guardedF32(t, m*n)
				for i := range a {
					a[i] = float32(math.Sin(float64(i)))
				}
				for i := range b {
					b[i] = float32(math.Cos(float64(3 * i)))
				}
				if err := e.Run([]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])}, []unsafe.Pointer{unsafe.Pointer(&c[0])}); err != nil {
					t.Fatal(err)
				}
				for i := range m {
					for j := range n {
						want, abs := 0.0, 0.0
						for l := range k {
							p := float64(a[i*k+l]) * float64(b[l*n+j])
							want += p
							abs += math.Abs(p)
						}
						if got := float64(c[i*n+j]); !(math.Abs(got-want) <= float64(k+1)*0x1p-23*abs) {
							t.Fatalf("%dx%dx%d: [%d,%d] = %v, want %v", m, k, n, i, j, got, want)
						}
					}
				}
			}
		}
	}
}
