package gojit_test

import (
	"fmt"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkWholeReduction reduces every element of a 4096x4096 float32
// (64 MB, read from memory) on one and two threads: x.Sum() and x.Max(),
// which fold fixed blocks across threads (internal/codegen
// reduce_blocks.go), and x.Sum(1).Sum(), a row sum split over rows and
// then a short sum. Figures as timeCalls reports them.
func BenchmarkWholeReduction(b *testing.B) {
	const n = 4096
	x := gojit.FromFloat32(bench.RandFloat32(n*n, 3), n, n)
	fns := []struct {
		name string
		f    func(x *gojit.Tensor) *gojit.Tensor
	}{
		{"sum", func(x *gojit.Tensor) *gojit.Tensor { return x.Sum() }},
		{"max", func(x *gojit.Tensor) *gojit.Tensor { return x.Max() }},
		{"rows_then_sum", func(x *gojit.Tensor) *gojit.Tensor { return x.Sum(1).Sum() }},
	}
	for _, c := range fns {
		for _, th := range []int{1, 2} {
			f, err := gojit.Compile(c.f, gojit.WithThreads(th))
			if err != nil {
				b.Fatal(err)
			}
			out := []*gojit.Array{gojit.New(gojit.Float32)}
			if err := f.CallInto(out, x); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, th), func(b *testing.B) {
				timeCalls(b, func() error { return f.CallInto(out, x) })
			})
		}
	}
}
