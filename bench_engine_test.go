package gojit_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkGT2Split is the GT2 pattern (add → mul → matmul → relu → mean)
// over 100×100 float32 through CallInto, whole and stage by stage, on
// one and two threads; cpu-ns/op as for BenchmarkMatMulThreads,
// median-ns and best-ns the median and the fastest call's wall time.
func BenchmarkGT2Split(b *testing.B) {
	const n = 100
	x := gojit.FromFloat32(bench.RandFloat32(n*n, 1), n, n)
	y := gojit.FromFloat32(bench.RandFloat32(n*n, 2), n, n)
	stages := []struct {
		name string
		fn   any
		out  []int
	}{
		{"full", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x).MatMul(y).Relu().Mean() }, nil},
		{"addmul", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x) }, []int{n, n}},
		{"matmul", func(x, y *gojit.Tensor) *gojit.Tensor { return x.MatMul(y) }, []int{n, n}},
		{"relumean", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Relu().Mean() }, nil},
	}
	for _, s := range stages {
		for _, th := range []int{1, 2} {
			f, err := gojit.Compile(s.fn, gojit.WithThreads(th))
			if err != nil {
				b.Fatal(err)
			}
			out := gojit.New(gojit.Float32, s.out...)
			if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil { // compile outside the loop
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/threads=%d", s.name, th), func(b *testing.B) {
				timeCalls(b, func() error { return f.CallInto([]*gojit.Array{out}, x, y) })
			})
		}
	}
}

// timeCalls runs call in b's loop on a locked thread and reports the
// thread's CPU time per call (cpu-ns/op), the median call's wall time
// (median-ns: on a shared host the mean counts the time other processes
// held the CPUs) and the fastest call's (best-ns).
func timeCalls(b *testing.B, call func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadCPU()
	walls := make([]time.Duration, 0, 1<<16)
	for b.Loop() {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		if len(walls) < cap(walls) {
			walls = append(walls, time.Since(t0))
		}
	}
	reportThreadCPU(b, c0)
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Nanoseconds()), "median-ns")
	b.ReportMetric(float64(walls[0].Nanoseconds()), "best-ns")
}

// reportThreadCPU reports the calling thread's CPU time per op since c0
// (threadCPU), where the platform can measure it.
func reportThreadCPU(b *testing.B, c0 int64) {
	if c := threadCPU(); c > 0 && c0 > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMatMulThreads is relu(a·w + bias) for m×n a, n×n w (float32),
// or a batch of such products (batch×m×n a, batch×n×n w), on one and two
// threads; cpu-ns/op is the calling thread's CPU time, which on one thread
// is the kernel's whole cost, and unlike wall time does not count the time
// other processes hold the CPU; best-ms is the fastest call's wall time.
// internal/bench/peers/matmul_threads.py times NumPy/OpenBLAS on the same
// shapes.
func BenchmarkMatMulThreads(b *testing.B) {
	// m x n @ n x n; 4096 rows is where the chunking once mattered
	// (applyEpilogue in internal/codegen/matmul.go); 64 products of
	// 128 x 128 @ 128 x 128 are issue 15's batched case.
	for _, c := range []struct{ batch, m, n int }{{1, 256, 256}, {1, 1024, 1024}, {1, 4096, 1024}, {64, 128, 128}} {
		m, n := c.m, c.n
		lead := []int{}
		if c.batch > 1 {
			lead = []int{c.batch}
		}
		shape := func(dims ...int) []int { return append(slices.Clone(lead), dims...) }
		a := gojit.FromFloat32(bench.RandFloat32(c.batch*m*n, 9), shape(m, n)...)
		w := gojit.FromFloat32(bench.RandFloat32(c.batch*n*n, 10), shape(n, n)...)
		bias := gojit.FromFloat32(bench.RandFloat32(n, 11), n)
		for _, th := range []int{1, 2} {
			f, err := gojit.Compile(func(a, w, bias *gojit.Tensor) *gojit.Tensor { return a.MatMul(w).Add(bias).Relu() }, gojit.WithThreads(th))
			if err != nil {
				b.Fatal(err)
			}
			out := []*gojit.Array{gojit.New(gojit.Float32, shape(m, n)...)}
			if err := f.CallInto(out, a, w, bias); err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("n=%d", n)
			switch {
			case c.batch > 1:
				name = fmt.Sprintf("batch=%d,n=%d", c.batch, n)
			case m != n:
				name = fmt.Sprintf("m=%d,n=%d", m, n)
			}
			b.Run(fmt.Sprintf("%s/threads=%d", name, th), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				best := time.Duration(math.MaxInt64)
				for b.Loop() {
					t0 := time.Now()
					if err := f.CallInto(out, a, w, bias); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
				}
				reportThreadCPU(b, c0)
				b.ReportMetric(2*float64(c.batch*m)*float64(n)*float64(n)/b.Elapsed().Seconds()*float64(b.N)/1e9, "GFLOP/s")
				// The best call's wall time, as matmul_threads.py reports
				// NumPy's: on a shared host the mean counts the time other
				// processes held the CPUs.
				b.ReportMetric(float64(best.Nanoseconds())/1e6, "best-ms")
			})
		}
	}
}
