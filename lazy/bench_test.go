package lazy

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// BenchmarkRecord is the cost of recording one op (an Add of two pending
// tensors); the flush is not counted. Every 1024 ops it starts a new
// Context (outside the timer) whose pending graph has the capacity a
// Context gives its pending graphs after the first (the size of the last
// one), as in a loop; "growing" starts each Context empty, so that the
// node list's growth is counted too. Record/gojit is the same op traced
// by gojit.Tensor directly, the recording core lazy wraps, into a trace
// that grows from empty.
//
// cpu-ns/op is the calling thread's CPU time per op (getrusage), which
// the other jobs of a shared machine do not inflate as they do wall time;
// it leaves out the collector's work on other threads.
func BenchmarkRecord(b *testing.B) {
	const block = 1024
	run := func(b *testing.B, prealloc bool) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ReportAllocs()
		var c *Context
		var x, y *Tensor
		var cpu, c0 int64
		for i := range b.N {
			if i%block == 0 {
				b.StopTimer()
				if i > 0 {
					cpu += threadCPU() - c0
				}
				c, _ = NewContext(WithBatchSize(1 << 30))
				if prealloc {
					c.reserve(block + 8)
				}
				x = c.FromFloat32(make([]float32, 16))
				y = x
				b.StartTimer()
				c0 = threadCPU()
			}
			y = y.Add(x)
		}
		cpu += threadCPU() - c0
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
	b.Run("lazy", func(b *testing.B) { run(b, true) })
	b.Run("lazy-growing", func(b *testing.B) { run(b, false) })
	b.Run("gojit", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ReportAllocs()
		var x, y *gojit.Tensor
		var cpu, c0 int64
		for i := range b.N {
			if i%block == 0 {
				b.StopTimer()
				if i > 0 {
					cpu += threadCPU() - c0
				}
				x = gojit.Full(gojit.Float32, 1, 16)
				y = x
				b.StartTimer()
				c0 = threadCPU()
			}
			y = y.Add(x)
		}
		cpu += threadCPU() - c0
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkGT2 is one iteration of the GT2 pattern once its kernel is
// cached: both inputs created from host slices, five ops, Item. Compiled
// is the same through gojit.Compile (inputs wrapped without copying), the
// floor lazy's overhead adds to.
//
// Besides wall time each variant reports the calling thread's CPU time
// (cpu-ns/op) and the process's (proc-cpu-ns/op: the kernel's worker
// thread, the collector and the cleanups too). On a shared host wall time
// mostly measures the benchmark thread waiting for a core (two to four
// times its CPU time at a load of 6-10), so compare CPU times. Each variant starts in the steady state: after
// warm-up rounds with a collection each, in which the off-heap memory
// for host copies is mapped (a chunk per collection) and faulted in, and
// two collections that give back the copies the warm-up and the variant
// before left. Otherwise the first variant that copies pays for faulting
// in 32 MiB (3-5 us per iteration over 3000 iterations), and a variant's
// copies go to fresh memory until the first collection.
func BenchmarkGT2(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	a, bb := randData(r, 100*100), randData(r, 100*100)
	b.Run("lazy", func(b *testing.B) {
		c, _ := NewContext()
		gt2Loop(b, func() error { _, err := gt2(c, a, bb, 100).Item(); return err })
	})
	b.Run("lazy-changed", func(b *testing.B) { // host data changed (its first element) every iteration
		c, _ := NewContext()
		ca, cb := slices.Clone(a), slices.Clone(bb)
		gt2Loop(b, func() error {
			ca[0], cb[0] = -ca[0], -cb[0]
			_, err := gt2(c, ca, cb, 100).Item()
			return err
		})
	})
	// lazy-changed, freeing both inputs after Item; -drops in a Context
	// made WithFreeDropsDerived.
	for _, v := range []struct {
		name string
		opts []Option
	}{{"lazy-free", nil}, {"lazy-free-drops", []Option{WithFreeDropsDerived()}}} {
		b.Run(v.name, func(b *testing.B) {
			c, _ := NewContext(v.opts...)
			ca, cb := slices.Clone(a), slices.Clone(bb)
			gt2Loop(b, func() error { return gt2Free(c, ca, cb) })
		})
	}
	b.Run("lazy-shared", func(b *testing.B) { // inputs not copied: recording and flush
		c, _ := NewContext()
		sa, sb := gojit.FromFloat32(a, 100, 100), gojit.FromFloat32(bb, 100, 100)
		gt2Loop(b, func() error {
			x, y := c.FromArray(sa), c.FromArray(sb)
			_, err := x.Add(y).Mul(x).MatMul(y).Relu().Mean().Item()
			return err
		})
	})
	b.Run("compiled", func(b *testing.B) {
		f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
			return x.Add(y).Mul(x).MatMul(y).Relu().Mean()
		})
		if err != nil {
			b.Fatal(err)
		}
		gt2Loop(b, func() error {
			out, err := f.Call(gojit.FromFloat32(a, 100, 100), gojit.FromFloat32(bb, 100, 100))
			if err == nil {
				_ = out[0].Float32()[0]
			}
			return err
		})
	})
}

// gt2Loop runs one GT2 variant of BenchmarkGT2: warm-up rounds (the
// compile, mapping the off-heap memory) outside the timer, two
// collections, then b.N iterations on a locked thread, reporting thread
// and process CPU time per iteration.
func gt2Loop(b *testing.B, run func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range hostMapBytes / hostChunk {
		for range hostMapBytes / (80 << 10) { // a round of copies fills the off-heap memory

			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
		// The next chunk may be mapped once the collection's cleanup
		// has counted it (gcEpoch), which runs after runtime.GC returns.
		e := gcEpoch.Load()
		runtime.GC()
		for i := 0; gcEpoch.Load() == e && i < 100; i++ {
			time.Sleep(time.Millisecond)
		}
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // for the cleanups that give the buffers back
	b.ReportAllocs()
	b.ResetTimer()
	c0, p0 := threadCPU(), procCPU()
	for range b.N {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	c1, p1 := threadCPU(), procCPU()
	b.StopTimer()
	b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(p1-p0)/float64(b.N), "proc-cpu-ns/op")
}

// BenchmarkTargets runs the targets, interleaved: one iteration
// of each variant per round, reporting medians and their ratios. On a
// shared machine interleaving keeps the ratios honest when the load
// changes during the run. The chain and the GT2 pattern are separate
// groups so that the chain's 4 MB arrays do not bring garbage collection
// into the GT2 figures. Run it with -benchtime=100x or more.
// gt2Free is one iteration of the GT2 loop with new host data (the first
// element of each input flipped) in GT2's own style: the inputs freed
// once the result is read.
func gt2Free(c *Context, a, b []float32) error {
	a[0], b[0] = -a[0], -b[0]
	x, y := c.FromFloat32(a, 100, 100), c.FromFloat32(b, 100, 100)
	_, err := x.Add(y).Mul(x).MatMul(y).Relu().Mean().Item()
	x.Free()
	y.Free()
	return err
}

func BenchmarkTargets(b *testing.B) {
	b.Run("chain", func(b *testing.B) {
		x := randData(rand.New(rand.NewPCG(7, 8)), chainN)
		c, _ := NewContext()
		in, out := gojit.FromFloat32(x), gojit.New(gojit.Float32, chainN)
		chain, err := gojit.Compile(chainTraced)
		if err != nil {
			b.Fatal(err)
		}
		med := interleaveOrder(b, []variant{
			{"eager", func() error { chainEager(x); return nil }},
			{"lazy", func() error { _, err := chainLazy(c, x).Array(); return err }},
			{"lazy-shared", func() error { return chainShared(c, in) }},
			{"compiled-call", func() error { _, err := chain.Call(in); return err }},
			{"compiled-into", func() error { return chain.CallInto([]*gojit.Array{out}, in) }},
		}, true)
		b.ReportMetric(med["eager"]/med["lazy"], "eager/lazy")
		b.ReportMetric(med["eager"]/med["lazy-shared"], "eager/lazy-shared")
		b.ReportMetric(med["compiled-call"]/med["lazy"], "lazy-speed-vs-call")
		b.ReportMetric(med["compiled-call"]/med["lazy-shared"], "lazy-shared-speed-vs-call")
		b.ReportMetric(med["compiled-into"]/med["lazy-shared"], "lazy-shared-speed-vs-into")
		for _, v := range []string{"lazy", "lazy-shared", "compiled-call", "compiled-into"} {
			b.ReportMetric(med[v]/1e3, v+"-µs")
			b.ReportMetric(med["cpu:"+v]/1e3, v+"-cpu-µs")
		}
	})
	b.Run("gt2", func(b *testing.B) {
		c, _ := NewContext()
		r := rand.New(rand.NewPCG(5, 6))
		ga, gb := randData(r, 100*100), randData(r, 100*100)
		gt2c, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x).MatMul(y).Relu().Mean() })
		if err != nil {
			b.Fatal(err)
		}
		sa, sb := gojit.FromFloat32(ga, 100, 100), gojit.FromFloat32(gb, 100, 100)
		out := gojit.New(gojit.Float32)
		dstA, dstB := make([]float32, len(ga)), make([]float32, len(gb))
		ca, cb := slices.Clone(ga), slices.Clone(gb)
		// The free variants have a Context of their own: their slices would
		// take the slots of c's memory of unchanged copies (unchangedSlots).
		fc, _ := NewContext()
		fa, fb := slices.Clone(ga), slices.Clone(gb)
		dc, _ := NewContext(WithFreeDropsDerived())
		da, db := slices.Clone(ga), slices.Clone(gb)
		med := interleave(b, []variant{
			{"lazy", func() error { _, err := gt2(c, ga, gb, 100).Item(); return err }},
			{"lazy-changed", func() error { // host data changed every iteration (its first element)
				ca[0], cb[0] = -ca[0], -cb[0]
				_, err := gt2(c, ca, cb, 100).Item()
				return err
			}},
			{"lazy-free", func() error { return gt2Free(fc, fa, fb) }},
			{"lazy-free-first", func() error { // the inputs freed before Item: the free flush stores every op that uses them
				fa[0], fb[0] = -fa[0], -fb[0]
				x, y := fc.FromFloat32(fa, 100, 100), fc.FromFloat32(fb, 100, 100)
				r := x.Add(y).Mul(x).MatMul(y).Relu().Mean()
				x.Free()
				y.Free()
				_, err := r.Item()
				return err
			}},
			{"lazy-free-drops", func() error { return gt2Free(dc, da, db) }}, // WithFreeDropsDerived
			{"lazy-noshare", func() error { // unchanged data copied again, as before unchanged.go
				noUnchanged = true
				defer func() { noUnchanged = false }()
				_, err := gt2(c, ga, gb, 100).Item()
				return err
			}},
			{"lazy-clones", func() error { // host copies as lazy made them before
				cloneHostCopies, noUnchanged = true, true
				defer func() { cloneHostCopies, noUnchanged = false, false }()
				_, err := gt2(c, ga, gb, 100).Item()
				return err
			}},
			{"lazy-shared", func() error {
				x, y := c.FromArray(sa), c.FromArray(sb)
				_, err := x.Add(y).Mul(x).MatMul(y).Relu().Mean().Item()
				return err
			}},
			{"copies", func() error {
				_, _ = hostCopy(gojit.Float32, gojit.FromFloat32, ga, []int{100, 100})
				_, _ = hostCopy(gojit.Float32, gojit.FromFloat32, gb, []int{100, 100})
				return nil
			}},
			{"memcpy", func() error { // the floor: into two fixed buffers
				copy(dstA, ga)
				copy(dstB, gb)
				return nil
			}},
			{"clones", func() error { // the copies as lazy made them before
				sinkA, sinkB = slices.Clone(ga), slices.Clone(gb)
				return nil
			}},
			{"compiled", func() error {
				o, err := gt2c.Call(gojit.FromFloat32(ga, 100, 100), gojit.FromFloat32(gb, 100, 100))
				if err == nil {
					_ = o[0].Float32()[0]
				}
				return err
			}},
			// The kernel alone: shared inputs, a reused output.
			{"kernel", func() error { return gt2c.CallInto([]*gojit.Array{out}, sa, sb) }},
		})
		b.ReportMetric(med["lazy"]/1e3, "lazy-µs")
		b.ReportMetric(med["lazy-shared"]/1e3, "lazy-shared-µs")
		b.ReportMetric(med["lazy-changed"]/1e3, "lazy-changed-µs")
		b.ReportMetric(med["lazy-noshare"]/1e3, "lazy-noshare-µs")
		b.ReportMetric(med["cpu:lazy-changed"]/1e3, "lazy-changed-cpu-µs")
		b.ReportMetric(med["lazy-changed"]/med["compiled"], "lazy-changed/compiled")
		b.ReportMetric(med["lazy-free"]/1e3, "lazy-free-µs")
		b.ReportMetric(med["cpu:lazy-free"]/1e3, "lazy-free-cpu-µs")
		b.ReportMetric(med["lazy-free"]/med["compiled"], "lazy-free/compiled")
		b.ReportMetric(med["lazy-free-first"]/med["compiled"], "lazy-free-first/compiled")
		b.ReportMetric(med["lazy-free-drops"]/1e3, "lazy-free-drops-µs")
		b.ReportMetric(med["cpu:lazy-free-drops"]/1e3, "lazy-free-drops-cpu-µs")
		b.ReportMetric(med["lazy-free-drops"]/med["compiled"], "lazy-free-drops/compiled")
		b.ReportMetric(med["lazy-clones"]/1e3, "lazy-clones-µs")
		b.ReportMetric(med["copies"]/1e3, "copies-µs")
		b.ReportMetric(med["clones"]/1e3, "clones-µs")
		b.ReportMetric(med["memcpy"]/1e3, "memcpy-µs")
		b.ReportMetric(med["compiled"]/1e3, "compiled-µs")
		b.ReportMetric(med["kernel"]/1e3, "kernel-µs")
		b.ReportMetric((med["lazy"]-med["kernel"])/1e3, "overhead-µs")
		b.ReportMetric(med["lazy"]/med["compiled"], "lazy/compiled")
		b.ReportMetric(med["cpu:lazy"]/1e3, "lazy-cpu-µs")
		b.ReportMetric(med["cpu:copies"]/1e3, "copies-cpu-µs")
		b.ReportMetric(med["cpu:clones"]/1e3, "clones-cpu-µs")
		b.ReportMetric(med["cpu:lazy-shared"]/1e3, "lazy-shared-cpu-µs")
		b.ReportMetric(med["cpu:kernel"]/1e3, "kernel-cpu-µs")
		b.ReportMetric((med["cpu:lazy"]-med["cpu:kernel"])/1e3, "overhead-cpu-µs")
	})
}

var sinkA, sinkB []float32

// BenchmarkGT2Blocks runs the GT2 loop in alternating blocks of 400
// iterations (a collection cycle spans a few hundred: interleaving single
// iterations, as BenchmarkTargets does, mixes the variants' effects on
// the collector, which is most of what the copies cost): lazy with its
// host copies outside the heap (the default; the same unchanged slices
// every iteration, so they share their copies), with new data every
// iteration (changed), with the unchanged data copied again in the output
// pool and as plain clones (lazy before both), lazy with FromArray
// inputs, and the
// kernel alone (gojit.Compile, CallInto with shared inputs and a reused
// output). It reports each one's median block, wall and calling-thread
// CPU per iteration, and lazy's overhead over the kernel.
func BenchmarkGT2Blocks(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, _ := NewContext()
	r := rand.New(rand.NewPCG(5, 6))
	ga, gb := randData(r, 100*100), randData(r, 100*100)
	f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x).MatMul(y).Relu().Mean() })
	if err != nil {
		b.Fatal(err)
	}
	sa, sb, out := gojit.FromFloat32(ga, 100, 100), gojit.FromFloat32(gb, 100, 100), gojit.New(gojit.Float32)
	lazyRun := func() error { _, err := gt2(c, ga, gb, 100).Item(); return err }
	ca, cb := slices.Clone(ga), slices.Clone(gb)
	fc, _ := NewContext() // for its own memory of unchanged copies (see BenchmarkTargets)
	fa, fb := slices.Clone(ga), slices.Clone(gb)
	dc, _ := NewContext(WithFreeDropsDerived())
	da, db := slices.Clone(ga), slices.Clone(gb)
	modes := []variant{
		{"offheap", lazyRun},
		{"changed", func() error { // new host data every iteration (its first element changed)
			ca[0], cb[0] = -ca[0], -cb[0]
			_, err := gt2(c, ca, cb, 100).Item()
			return err
		}},
		{"free", func() error { return gt2Free(fc, fa, fb) }},       // changed, freeing the inputs after Item
		{"free-drops", func() error { return gt2Free(dc, da, db) }}, // free, WithFreeDropsDerived
		{"pool", func() error {
			heapHostCopies, noUnchanged = true, true
			defer func() { heapHostCopies, noUnchanged = false, false }()
			return lazyRun()
		}},
		{"clones", func() error {
			cloneHostCopies, noUnchanged = true, true
			defer func() { cloneHostCopies, noUnchanged = false, false }()
			return lazyRun()
		}},
		{"shared", func() error {
			x, y := c.FromArray(sa), c.FromArray(sb)
			_, err := x.Add(y).Mul(x).MatMul(y).Relu().Mean().Item()
			return err
		}},
		{"kernel", func() error { return f.CallInto([]*gojit.Array{out}, sa, sb) }},
		{"compiled", func() error { // Targets' compiled: Call, the inputs wrapped without copying
			o, err := f.Call(gojit.FromFloat32(ga, 100, 100), gojit.FromFloat32(gb, 100, 100))
			if err == nil {
				_ = o[0].Float32()[0]
			}
			return err
		}},
	}
	for _, m := range modes {
		if err := m.run(); err != nil {
			b.Fatal(err)
		}
	}
	const block = 400
	wall, cpu := make([][]float64, len(modes)), make([][]float64, len(modes))
	b.ResetTimer()
	for range b.N {
		for i, m := range modes {
			t0, c0 := time.Now(), threadCPU()
			for range block {
				if err := m.run(); err != nil {
					b.Fatal(err)
				}
			}
			wall[i] = append(wall[i], float64(time.Since(t0).Nanoseconds())/block)
			cpu[i] = append(cpu[i], float64(threadCPU()-c0)/block)
		}
	}
	b.StopTimer()
	med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] / 1e3 }
	w, u := map[string]float64{}, map[string]float64{}
	for i, m := range modes {
		w[m.name], u[m.name] = med(wall[i]), med(cpu[i])
		b.ReportMetric(w[m.name], m.name+"-µs")
		b.ReportMetric(u[m.name], m.name+"-cpu-µs")
	}
	b.ReportMetric(w["offheap"]-w["kernel"], "overhead-µs")
	b.ReportMetric(u["offheap"]-u["kernel"], "overhead-cpu-µs")
	b.ReportMetric(w["shared"]-w["kernel"], "shared-overhead-µs")
	b.ReportMetric(w["changed"]-w["kernel"], "changed-overhead-µs")
	b.ReportMetric(w["free"]-w["kernel"], "free-overhead-µs")
	b.ReportMetric(w["free-drops"]-w["kernel"], "free-drops-overhead-µs")
	b.ReportMetric(w["free"]/w["compiled"], "free/compiled")
	b.ReportMetric(w["free-drops"]/w["compiled"], "free-drops/compiled")
	b.ReportMetric(u["free-drops"]/u["compiled"], "free-drops/compiled-cpu")
	b.ReportMetric(w["changed"]/w["compiled"], "changed/compiled")
	b.ReportMetric(0, "ns/op")
}

type variant struct {
	name string
	run  func() error
}

// interleave runs each variant once per round, b.N rounds after a warm-up
// round, and returns each one's median wall time in nanoseconds, and
// under "cpu:"+name its median CPU time on the calling thread (see
// threadCPU).
func interleave(b *testing.B, vs []variant) map[string]float64 { return interleaveOrder(b, vs, false) }

// interleaveOrder is interleave, running the variants in a new random
// order every round when shuffle is set: then each variant follows each
// other as often. For the 10-op chain that matters: a variant pays for
// what the one before left in the caches (4 MB of dirty output, or
// nothing but a reused buffer after compiled-into), and in the fixed order
// lazy-shared, after lazy, measured 0.83-0.97 of Call, and 0.85-0.96
// moved after compiled-into.
func interleaveOrder(b *testing.B, vs []variant, shuffle bool) map[string]float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	times := make([][]time.Duration, len(vs))
	cpus := make([][]int64, len(vs))
	for _, v := range vs {
		if err := v.run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range b.N {
		if shuffle {
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for _, i := range order {
			v := vs[i]
			c0 := threadCPU()
			t0 := time.Now()
			if err := v.run(); err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], time.Since(t0))
			cpus[i] = append(cpus[i], threadCPU()-c0)
		}
	}
	b.StopTimer()
	med := make(map[string]float64)
	for i, v := range vs {
		s := slices.Clone(times[i])
		slices.Sort(s)
		med[v.name] = float64(s[len(s)/2])
		cs := slices.Clone(cpus[i])
		slices.Sort(cs)
		med["cpu:"+v.name] = float64(cs[len(cs)/2])
	}
	b.ReportMetric(0, "ns/op")
	return med
}

// BenchmarkRecordOps is BenchmarkRecord for the op kinds the GT2 pattern
// and training loops use besides same-shape binary ops: a broadcasting
// Add, a weak scalar, Relu, MatMul and Mean over 16x16 Float32 tensors,
// each with its fast path ("fast") and through gojit.Tensor's method
// ("method", noFastPaths), in the same run; cpu-ns/op is the calling
// thread's CPU time per op, as in BenchmarkRecord.
func BenchmarkRecordOps(b *testing.B) {
	const block = 256
	ops := []struct {
		name string
		op   func(x, row *Tensor) *Tensor
	}{
		{"add-row", func(x, row *Tensor) *Tensor { return x.Add(row) }},
		{"mul-scalar", func(x, _ *Tensor) *Tensor { return x.Mul(Scalar(1.5)) }},
		{"relu", func(x, _ *Tensor) *Tensor { return x.Relu() }},
		{"matmul", func(x, _ *Tensor) *Tensor { return x.MatMul(x) }},
		{"mean", func(x, _ *Tensor) *Tensor { return x.Mean() }},
		{"sum-axis", func(x, _ *Tensor) *Tensor { return x.Sum(1) }},
	}
	for _, o := range ops {
		for _, fast := range []bool{true, false} {
			name := o.name + "/fast"
			if !fast {
				name = o.name + "/method"
			}
			b.Run(name, func(b *testing.B) {
				noFastPaths = !fast
				defer func() { noFastPaths = false }()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ReportAllocs()
				var c *Context
				var x, row *Tensor
				var cpu, c0 int64
				for i := range b.N {
					if i%block == 0 {
						b.StopTimer()
						if i > 0 {
							cpu += threadCPU() - c0
						}
						c, _ = NewContext(WithBatchSize(1 << 30))
						c.reserve(4*block + 8)
						x = c.FromFloat32(make([]float32, 256), 16, 16)
						row = c.FromFloat32(make([]float32, 16), 16)
						b.StartTimer()
						c0 = threadCPU()
					}
					o.op(x, row)
				}
				cpu += threadCPU() - c0
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkBatchSize measures what docs/lazy.md's batch-size table
// reports, for batch sizes around DefaultBatchSize: a logistic-regression
// loop (256x3 data, about 12 nodes a step, 200 steps that never read, then
// one read of the weights) run once with empty kernel caches (cold-ms; its
// kernels' build time is compile-ms, their number kernels) and then b.N
// times warm (ns/op, one whole loop). The disk cache is off for the whole
// benchmark, so that cold runs compile; it is restored afterwards.
func BenchmarkBatchSize(b *testing.B) {
	const n, d, steps, lr = 256, 3, 200, 0.5
	X, y := make([]float32, n*d), make([]float32, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range X {
		X[i] = float32(r.NormFloat64())
	}
	for i := range y {
		y[i] = float32(r.IntN(2))
	}
	if err := gojit.ConfigureCache(gojit.CacheConfig{DisableDisk: true}); err != nil {
		b.Fatal(err)
	}
	defer gojit.ConfigureCache(gojit.CacheConfig{})
	for _, bs := range []int{16, 32, DefaultBatchSize, 128, 256} {
		b.Run(fmt.Sprintf("batch=%d", bs), func(b *testing.B) {
			c, err := NewContext(WithBatchSize(bs))
			if err != nil {
				b.Fatal(err)
			}
			loop := func() {
				xs, ys := c.FromFloat32(X, n, d), c.FromFloat32(y, n, 1)
				w := c.Full(gojit.Float32, 0, d, 1)
				for range steps {
					p := xs.MatMul(w).Sigmoid()
					grad := xs.Transpose().MatMul(p.Sub(ys)).Mul(Scalar(1.0 / n))
					w = w.Sub(grad.Mul(Scalar(lr)))
				}
				if _, err := w.Float32(); err != nil {
					b.Fatal(err)
				}
			}
			forgetKernels()
			before, start := Stats(), time.Now()
			loop()
			cold, after := time.Since(start), Stats()
			b.ResetTimer()
			for range b.N {
				loop()
			}
			b.StopTimer()
			// After the loop: ResetTimer drops metrics reported before it.
			b.ReportMetric(float64(cold.Microseconds())/1e3, "cold-ms")
			b.ReportMetric(float64((after.CompileTime-before.CompileTime).Microseconds())/1e3, "compile-ms")
			b.ReportMetric(float64(after.CacheMisses-before.CacheMisses), "kernels")
		})
	}
}

// forgetKernels empties lazy's kernel cache and the engine's, so that the
// next batches compile again.
func forgetKernels() {
	kcache.Lock()
	clear(kcache.exact)
	clear(kcache.shapeless)
	kcache.recent = nil
	kcache.Unlock()
	gojit.PurgeCache()
}
