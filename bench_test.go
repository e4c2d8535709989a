package gojit_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

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

// BenchmarkColdCompile traces, compiles and first calls a new 6-op
// function per op, over 16 elements (issue 15's case; a Tiny module,
// quick backend) and 1,024 (the full backend). Run it with
// GOJIT_CACHE=off, or the disk cache's writes are counted too.
func BenchmarkColdCompile(b *testing.B) {
	for _, n := range []int{16, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), bench.ColdCompile(n))
	}
}

// BenchmarkCallAllocating compares the natural loop, `out, _ := f.Call(x)`
// every iteration with nothing else, against CallInto a preallocated
// output on the 5-op chain: the cost of handing out new output arrays.
// Compare each n's call and callinto lines; heap-MB reports the live heap
// after the loop (runtime.MemStats.HeapInuse) and rss-MB the process's
// resident memory (VmRSS), to show the recycled buffers' memory stays
// bounded.
//
// The pair lines alternate blocks of Calls and CallIntos in one loop
// (about 10 ms each), so that both see the shared machine in the same
// state: call-ns and into-ns are their wall times per call, ratio their
// quotient, and cpu-ratio the same for the process's CPU time, which does
// not count the time other processes held the CPU (it does count the
// collector's and the kernel threads' work).
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
			ps := startPoolStats()
			for b.Loop() {
				outs, err := f.Call(x, y)
				if err != nil {
					b.Fatal(err)
				}
				sink += outs[0].Float32()[n/2]
			}
			ps.report(b)
			reportHeap(b)
			_ = sink
		})
		b.Run(fmt.Sprintf("n=%d/call-noforce", n), func(b *testing.B) {
			defer gojit.SetForcedCollections(gojit.SetForcedCollections(false))
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
		// A program that keeps its last 8 outputs, with and without the
		// collections Call starts: they must not slow it down.
		for _, force := range []bool{true, false} {
			name := "keep8"
			if !force {
				name += "-noforce"
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
				defer gojit.SetForcedCollections(gojit.SetForcedCollections(force))
				var ring [8]*gojit.Array
				i := 0
				ps := startPoolStats()
				for b.Loop() {
					outs, err := f.Call(x, y)
					if err != nil {
						b.Fatal(err)
					}
					ring[i%len(ring)] = outs[0]
					i++
				}
				ps.report(b)
				reportHeap(b)
			})
		}
		b.Run(fmt.Sprintf("n=%d/callinto", n), func(b *testing.B) {
			out := gojit.New(gojit.Float32, n)
			for b.Loop() {
				if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil {
					b.Fatal(err)
				}
			}
			reportHeap(b)
		})
		b.Run(fmt.Sprintf("n=%d/pair", n), func(b *testing.B) {
			out := gojit.New(gojit.Float32, n)
			var sink float32
			pairRatio(b, n, func() {
				outs, err := f.Call(x, y)
				if err != nil {
					b.Fatal(err)
				}
				sink += outs[0].Float32()[n/2]
			}, func() {
				if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil {
					b.Fatal(err)
				}
			})
			_ = sink
			reportHeap(b)
		})
		// The pair again with each Call's result released at once
		// (Array.Release): call-ns is Call plus Release.
		b.Run(fmt.Sprintf("n=%d/release-pair", n), func(b *testing.B) {
			out := gojit.New(gojit.Float32, n)
			pairRatio(b, n, func() {
				outs, err := f.Call(x, y)
				if err != nil {
					b.Fatal(err)
				}
				outs[0].Release()
			}, func() {
				if err := f.CallInto([]*gojit.Array{out}, x, y); err != nil {
					b.Fatal(err)
				}
			})
			reportHeap(b)
		})
	}
}

// pairRatio runs call and into in alternate blocks of about 10 ms each
// (for n elements per call) and reports their mean wall times per call
// (call-ns, into-ns), the ratio, and the ratio of process CPU time.
func pairRatio(b *testing.B, n int, call, into func()) {
	block := max(2, 10_000_000/(n+2000)) // calls per block: about 10 ms
	var wall, cpu [2]int64               // call, into
	var calls [2]int
	i, w0, c0 := 0, time.Now(), procCPU()
	for b.Loop() {
		k := i / block % 2
		if k == 0 {
			call()
		} else {
			into()
		}
		calls[k]++
		if i++; i%block == 0 {
			w1, c1 := time.Now(), procCPU()
			wall[k] += int64(w1.Sub(w0))
			cpu[k] += c1 - c0
			w0, c0 = w1, c1
		}
	}
	if calls[0] > 0 && calls[1] > 0 {
		cw, iw := float64(wall[0])/float64(calls[0]), float64(wall[1])/float64(calls[1])
		b.ReportMetric(cw, "call-ns")
		b.ReportMetric(iw, "into-ns")
		b.ReportMetric(cw/iw, "ratio")
		if cpu[1] > 0 {
			b.ReportMetric(float64(cpu[0])/float64(calls[0])/(float64(cpu[1])/float64(calls[1])), "cpu-ratio")
		}
	}
}

// poolStats are the output pool's counters at the start of a benchmark.
type poolStats struct{ hits, misses, forced int64 }

func startPoolStats() poolStats {
	h, m, f, _ := gojit.OutputPoolStats()
	return poolStats{h, m, f}
}

// report reports the share of outputs that were new buffers (new-%), the
// collections Call started per call (gc/op) and their measured cost
// (gc-us).
func (p poolStats) report(b *testing.B) {
	h, m, f, gcns := gojit.OutputPoolStats()
	if h, m := h-p.hits, m-p.misses; h+m > 0 {
		b.ReportMetric(100*float64(m)/float64(h+m), "new-%")
		b.ReportMetric(float64(f-p.forced)/float64(b.N), "gc/op")
		b.ReportMetric(float64(gcns)/1e3, "gc-us")
	}
}

func reportHeap(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	if rss := residentBytes(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
	}
}
