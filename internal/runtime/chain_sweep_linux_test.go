package runtime

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/host"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// chain5Text is the 5-op chain max((a+b)*a - b*0.5, 0) over n float32.
const chain5Text = `graph {
  %%0 = param 0 : f32[%[1]d]
  %%1 = param 1 : f32[%[1]d]
  %%2 = add %%0, %%1 : f32[%[1]d]
  %%3 = mul %%2, %%0 : f32[%[1]d]
  %%4 = const 0.5 : f32[%[1]d]
  %%5 = mul %%1, %%4 : f32[%[1]d]
  %%6 = sub %%3, %%5 : f32[%[1]d]
  %%7 = const 0 : f32[%[1]d]
  %%8 = max %%6, %%7 : f32[%[1]d]
  return %%8
}`

// addText is out = a + b over n float32: the streaming floor.
const addText = `graph {
  %%0 = param 0 : f32[%[1]d]
  %%1 = param 1 : f32[%[1]d]
  %%2 = add %%0, %%1 : f32[%[1]d]
  return %%2
}`

// hugeF32 returns n float32 in an anonymous mapping advised to use 2 MiB
// pages, as NumPy's (and the peer benchmark's) large arrays are.
func hugeF32(tb testing.TB, n int) []float32 {
	mem, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Fatal(err)
	}
	_ = syscall.Madvise(mem, 14) // MADV_HUGEPAGE
	tb.Cleanup(func() { _ = syscall.Munmap(mem) })
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}

// procCPU is the process's user+system CPU time.
func procCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sweepVariant is one way to run a kernel, measured in blocks alternated
// with the other variants of the same size.
type sweepVariant struct {
	name string
	run  func()
	wall []float64 // ns per call, one per block
	cpu  []float64
}

// alternate runs each variant's run in blocks of about blockDur, rounds
// times, the variants taking turns, and logs each one's median wall and
// CPU time per call and its ratio to the first variant.
func alternate(tb testing.TB, label string, rounds int, blockDur time.Duration, vs []*sweepVariant) {
	per := make([]int, len(vs))
	for i, v := range vs {
		v.run() // warm
		t0 := time.Now()
		k := 0
		for time.Since(t0) < blockDur/4 {
			v.run()
			k++
		}
		per[i] = max(1, int(float64(k)*float64(blockDur)/float64(time.Since(t0))))
	}
	for r := range rounds {
		for j := range vs {
			i := (j + r) % len(vs) // rotate the order every round
			v := vs[i]
			c0, t0 := procCPU(), time.Now()
			for range per[i] {
				v.run()
			}
			v.wall = append(v.wall, float64(time.Since(t0).Nanoseconds())/float64(per[i]))
			v.cpu = append(v.cpu, float64((procCPU()-c0).Nanoseconds())/float64(per[i]))
		}
	}
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	base := med(vs[0].wall)
	for _, v := range vs {
		tb.Logf("%s %-22s wall %9.1f µs (best %9.1f)  cpu %9.1f µs  x_first %.3f", label, v.name, med(v.wall)/1e3, slices.Min(v.wall)/1e3, med(v.cpu)/1e3, med(v.wall)/base)
	}
}

// TestChainSweep measures the 5-op chain with streaming stores forced on
// and off, on one and two threads, alternated in blocks, and checks its
// output. It is a measurement, so it runs only when GOJIT_CHAIN_SWEEP is
// set (to the sizes, comma-separated, or to 1 for the default ones):
//
//	GOJIT_CHAIN_SWEEP=1 go test ./internal/runtime -run ChainSweep -v
//
// More variables add variants: GOJIT_CHAIN_SWEEP_CHUNKS, a list of chunk
// counts to split the two-thread runs into; GOJIT_CHAIN_SWEEP_HEAPOUT,
// the output on the Go heap (4 KiB pages) instead of 2 MiB pages;
// GOJIT_CHAIN_SWEEP_T2, two threads only; GOJIT_CHAIN_SWEEP_ROUNDS, the
// blocks per variant (9); GOJIT_CHAIN_SWEEP_BW, first a bandwidth sweep
// of out=a+b and Go's copy over working sets of 1-256 MiB, which shows
// how much cache the process really gets.
func TestChainSweep(t *testing.T) {
	env := os.Getenv("GOJIT_CHAIN_SWEEP")
	if env == "" {
		t.Skip("a measurement: set GOJIT_CHAIN_SWEEP")
	}
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	c := host.CacheSizes()
	t.Logf("host caches %+v; streaming from %.1f MiB; threads %d", c, float64(StreamThreshold())/(1<<20), pool().Threads())
	sizes := []int{1e5, 1e6, 2e6, 4e6, 1e7}
	if env != "1" {
		sizes = sizes[:0]
		for _, f := range strings.Split(env, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, int(v))
		}
	}
	if os.Getenv("GOJIT_CHAIN_SWEEP_BW") != "" {
		bandwidthSweep(t)
	}
	defer func(w int64) { chunkWorkVar = w }(chunkWorkVar)
	for _, n := range sizes {
		g, err := ir.Parse(fmt.Sprintf(chain5Text, n))
		if err != nil {
			t.Fatal(err)
		}
		x, y, out := hugeF32(t, n), hugeF32(t, n), hugeF32(t, n)
		for i := range x {
			x[i], y[i] = float32(math.Sin(float64(i))), float32(math.Cos(float64(i)))
		}
		ins := []unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0])}
		outs := []unsafe.Pointer{unsafe.Pointer(&out[0])}
		var vs []*sweepVariant
		for _, mode := range []struct {
			name  string
			bytes int64
		}{{"host", 0}, {"plain", 1 << 50}, {"stream", 1}} {
			e, err := Build(g, Options{OptLevel: 3, streamBytes: mode.bytes})
			if err != nil {
				t.Fatal(err)
			}
			threadCounts := []int{2, 1}
			if os.Getenv("GOJIT_CHAIN_SWEEP_T2") != "" {
				threadCounts = threadCounts[:1]
			}
			for _, threads := range threadCounts {
				works := []int64{chunkWork}
				for _, f := range strings.Split(os.Getenv("GOJIT_CHAIN_SWEEP_CHUNKS"), ",") {
					if c, err := strconv.Atoi(f); err == nil && c > 0 {
						works = append(works, max(1, int64(n/c)))
					}
				}
				for _, cw := range works {
					if cw != chunkWork && threads == 1 || mode.name == "host" && (threads == 1 || cw != chunkWork) {
						continue
					}
					name := fmt.Sprintf("%s/t%d", mode.name, threads)
					if cw != chunkWork {
						name += fmt.Sprintf("/chunks%d", max(2, int64(n)/cw))
					}
					vs = append(vs, &sweepVariant{name: name, run: func() {
						chunkWorkVar = cw
						if err := e.RunWith(ins, outs, RunOptions{Threads: threads}); err != nil {
							t.Fatal(err)
						}
					}})
				}
			}
		}
		rounds := 9
		if r, err := strconv.Atoi(os.Getenv("GOJIT_CHAIN_SWEEP_ROUNDS")); err == nil && r > 0 {
			rounds = r
		}
		if os.Getenv("GOJIT_CHAIN_SWEEP_HEAPOUT") != "" {
			// The output on the Go heap (4 KiB pages), as gojit.New
			// allocates it, against the mapping with 2 MiB pages.
			heapOut := make([]float32, n)
			hv := []*sweepVariant{}
			for _, v := range vs {
				if v.name == "host/t2" || v.name == "stream/t1" || v.name == "plain/t1" {
					hv = append(hv, v)
				}
			}
			for _, v := range hv[:len(hv):len(hv)] {
				run := v.run
				ho := []unsafe.Pointer{unsafe.Pointer(&heapOut[0])}
				hv = append(hv, &sweepVariant{name: v.name + "/heapout", run: func() {
					outs[0], ho[0] = ho[0], outs[0]
					run()
					outs[0], ho[0] = ho[0], outs[0]
				}})
			}
			vs = hv
		}
		alternate(t, fmt.Sprintf("chain5 n=%.0e", float64(n)), rounds, 30*time.Millisecond, vs)
		for i := range x {
			if want := max((x[i]+y[i])*x[i]-y[i]*0.5, 0); out[i] != want {
				t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, out[i], want)
			}
		}
	}
}

// bandwidthSweep logs the bytes per second of out=a+b (ordinary stores,
// one and two threads) and of Go's copy over working sets from 1 to 256
// MiB: where it drops is where the working set leaves the cache this
// process really gets.
func bandwidthSweep(t *testing.T) {
	for mb := 1; mb <= 256; mb *= 2 {
		bytes := mb << 20
		n := bytes / 12 // a, b and out
		g, err := ir.Parse(fmt.Sprintf(addText, n))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Build(g, Options{OptLevel: 3, streamBytes: 1 << 50})
		if err != nil {
			t.Fatal(err)
		}
		es, err := Build(g, Options{OptLevel: 3, streamBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		a, b, out := hugeF32(t, n), hugeF32(t, n), hugeF32(t, n)
		src, dst := hugeF32(t, bytes/8), hugeF32(t, bytes/8)
		// Every page written first: an untouched anonymous page reads as
		// the shared zero page, which stays in cache and would make the
		// reads look several times faster than memory.
		for _, s := range [][]float32{a, b, out, src, dst} {
			for i := range s {
				s[i] = float32(i & 1023)
			}
		}
		ins := []unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])}
		outs := []unsafe.Pointer{unsafe.Pointer(&out[0])}
		run := func(e *Executable, threads int) func() {
			return func() {
				if err := e.RunWith(ins, outs, RunOptions{Threads: threads}); err != nil {
					t.Fatal(err)
				}
			}
		}
		vs := []*sweepVariant{
			{name: "add/t1", run: run(e, 1)},
			{name: "add/t2", run: run(e, 2)},
			{name: "add-stream/t2", run: run(es, 2)},
			{name: "copy/t1", run: func() { copy(dst, src) }},
		}
		per := []float64{float64(bytes), float64(bytes), float64(bytes), float64(bytes)}
		alternate(t, fmt.Sprintf("bw %3d MiB", mb), 5, 20*time.Millisecond, vs)
		line := fmt.Sprintf("bw %3d MiB GB/s:", mb)
		for i, v := range vs {
			w := slices.Clone(v.wall)
			slices.Sort(w)
			line += fmt.Sprintf("  %s %.1f", v.name, per[i]/w[len(w)/2])
		}
		t.Log(line)
	}
}
