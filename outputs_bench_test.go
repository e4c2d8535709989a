package gojit_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkOutputWorkingSet shows what limits a loop of small Calls: the
// memory its outputs occupy between two reuses. The into-K lines are
// CallInto over K preallocated 4 KB outputs in turn (K=1 is the same
// output every time, as CallInto is usually used; K=256 is 1 MiB, K=1024
// 4 MiB, K=8192 32 MiB), and call is the natural loop, whose outputs come
// back only after a collection, a pool's worth later (outputs.go). All
// run in one loop in alternating blocks, so that they see the shared
// machine in the same state; -cpu is the benchmark thread's CPU time per
// call (it does not count the collector's work on other threads), -ns the
// wall time, and call/into1 the quotient of their CPU times.
//
// On the 2-vCPU host of November 2026 (2 MiB L2 per core), the kernel
// writing a 4 KB output last written 4 MiB ago costs about as much as
// rewriting the same one, but last written 8 MiB or more ago about
// 0.4 us more: so Call would have to reuse an output within about a
// thousand calls of 4 KB to keep it in cache, and a collection every
// thousand calls costs more than that (0.5-4 ms of CPU).
func BenchmarkOutputWorkingSet(b *testing.B) {
	f, err := gojit.Compile(bench.Chain5)
	if err != nil {
		b.Fatal(err)
	}
	const n = 1000
	x := gojit.FromFloat32(bench.RandFloat32(n, 1))
	y := gojit.FromFloat32(bench.RandFloat32(n, 2))
	var names []string
	var runs []func()
	for _, k := range []int{1, 256, 1024, 8192} {
		outs := make([]*gojit.Array, k)
		for i := range outs {
			outs[i] = gojit.New(gojit.Float32, n)
		}
		j := 0
		names = append(names, fmt.Sprintf("into%d", k))
		runs = append(runs, func() {
			if err := f.CallInto(outs[j%k:j%k+1], x, y); err != nil {
				b.Fatal(err)
			}
			j++
		})
	}
	var sink float32
	names = append(names, "call")
	runs = append(runs, func() {
		outs, err := f.Call(x, y)
		if err != nil {
			b.Fatal(err)
		}
		sink += outs[0].Float32()[n/2]
	})
	runtime.LockOSThread() // threadCPU is this thread's
	defer runtime.UnlockOSThread()
	const block = 4000 // calls: about 2-5 ms
	wall, cpu := make([]int64, len(runs)), make([]int64, len(runs))
	calls := make([]int, len(runs))
	i, w0, c0 := 0, time.Now(), threadCPU()
	for b.Loop() {
		k := i / block % len(runs)
		runs[k]()
		calls[k]++
		if i++; i%block == 0 {
			w1, c1 := time.Now(), threadCPU()
			wall[k] += int64(w1.Sub(w0))
			cpu[k] += c1 - c0
			w0, c0 = w1, c1
		}
	}
	_ = sink
	perCall := func(v []int64, k int) float64 { return float64(v[k]) / float64(max(calls[k], 1)) }
	for k, name := range names {
		b.ReportMetric(perCall(wall, k), name+"-ns")
		b.ReportMetric(perCall(cpu, k), name+"-cpu")
	}
	if c := perCall(cpu, 0); c > 0 {
		b.ReportMetric(perCall(cpu, len(runs)-1)/c, "call/into1")
	}
}
