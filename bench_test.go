package gojit_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkChain5 compares the compiled 5-op chain with a fused Go loop and
// with op-by-op Go at several sizes; compare the sub-benchmarks' ns/op
// within one run (or use `gojit bench`, which prints the ratios).
func BenchmarkChain5(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000, 10_000_000} {
		cases, err := bench.ChainCases(n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d/gojit", n), cases[0].Run)
		b.Run(fmt.Sprintf("n=%d/go-fused", n), cases[0].Base)
		b.Run(fmt.Sprintf("n=%d/go-op-by-op", n), cases[1].Base)
	}
}

// BenchmarkCallOverhead is a cached CallInto with three 16-element inputs.
func BenchmarkCallOverhead(b *testing.B) {
	run, err := bench.CallOverhead()
	if err != nil {
		b.Fatal(err)
	}
	run(b)
}

// BenchmarkColdCompile traces and compiles a new 6-op function per op.
func BenchmarkColdCompile(b *testing.B) { bench.ColdCompile()(b) }

// BenchmarkCallAllocating compares the natural loop, `out, _ := f.Call(x)`
// every iteration with nothing else, against CallInto a preallocated
// output on the 5-op chain: the cost of handing out new output arrays.
// Compare each n's call and callinto lines; heap-MB reports the live heap
// after the loop (runtime.MemStats.HeapInuse), to show the recycled
// buffers' memory stays bounded.
func BenchmarkCallAllocating(b *testing.B) {
	f, err := gojit.Compile(bench.Chain5)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1_000, 1_000_000, 10_000_000} {
		x := gojit.FromFloat32(bench.RandFloat32(n, 1))
		y := gojit.FromFloat32(bench.RandFloat32(n, 2))
		b.Run(fmt.Sprintf("n=%d/call", n), func(b *testing.B) {
			var sink float32
			for b.Loop() {
				outs, err := f.Call(x, y)
				if err != nil {
					b.Fatal(err)
				}
				sink += outs[0].Float32()[n/2]
			}
			reportHeap(b)
			_ = sink
		})
		b.Run(fmt.Sprintf("n=%d/callinto", n), func(b *testing.B) {
			out := gojit.New(gojit.Float32, n)
			for b.Loop() {
				if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil {
					b.Fatal(err)
				}
			}
			reportHeap(b)
		})
	}
}

func reportHeap(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}
