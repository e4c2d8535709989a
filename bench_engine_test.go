package gojit_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkGT2Split is the GT2 pattern (add → mul → matmul → relu → mean)
// over 100×100 float32 through CallInto, whole and stage by stage, on
// one and two threads; cpu-ns/op as for BenchmarkMatMulThreads.
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
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				for b.Loop() {
					if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil {
						b.Fatal(err)
					}
				}
				reportThreadCPU(b, c0)
			})
		}
	}
}

// reportThreadCPU reports the calling thread's CPU time per op since c0
// (threadCPU), where the platform can measure it.
func reportThreadCPU(b *testing.B, c0 int64) {
	if c := threadCPU(); c > 0 && c0 > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}
