package lazy

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

const chainN = 1_000_000

// chainEager is the 10-op chain run one op at a time with intermediate
// slices, as eager Go code would.
func chainEager(x []float32) []float32 {
	op := func(in []float32, f func(int, float32) float32) []float32 {
		out := make([]float32, len(in))
		for i, v := range in {
			out[i] = f(i, v)
		}
		return out
	}
	y := op(x, func(_ int, v float32) float32 { return v * 1.5 })
	y = op(y, func(_ int, v float32) float32 { return v + 0.5 })
	y = op(y, func(_ int, v float32) float32 { return max(v, 0) })
	y = op(y, func(i int, v float32) float32 { return v * x[i] })
	y = op(y, func(_ int, v float32) float32 { return v - 0.5 })
	y = op(y, func(_ int, v float32) float32 {
		if v < 0 {
			return -v
		}
		return v
	})
	y = op(y, func(_ int, v float32) float32 { return min(v, 4) })
	y = op(y, func(_ int, v float32) float32 { return v * 0.25 })
	y = op(y, func(i int, v float32) float32 { return v + x[i] })
	return op(y, func(_ int, v float32) float32 { return -v })
}

// chainLazy is the same chain, step by step with lazy tensors.
func chainLazy(c *Context, x []float32) *Tensor { return chainOf(c.FromFloat32(x)) }

// chainShared is the chain over in, shared with lazy (FromArray), read
// as an Array.
func chainShared(c *Context, in *gojit.Array) error {
	_, err := chainOf(c.FromArray(in)).Array()
	return err
}

// chainOf records the 10-op chain over t, one op per statement.
func chainOf(t *Tensor) *Tensor {
	y := t.Mul(Scalar(1.5))
	y = y.Add(Scalar(0.5))
	y = y.Maximum(Scalar(0))
	y = y.Mul(t)
	y = y.Sub(Scalar(0.5))
	y = y.Abs()
	y = y.Minimum(Scalar(4))
	y = y.Mul(Scalar(0.25))
	y = y.Add(t)
	return y.Neg()
}

func chainTraced(t *gojit.Tensor) *gojit.Tensor {
	y := t.Mul(gojit.Scalar(1.5)).Add(gojit.Scalar(0.5)).Maximum(gojit.Scalar(0)).Mul(t).Sub(gojit.Scalar(0.5))
	return y.Abs().Minimum(gojit.Scalar(4)).Mul(gojit.Scalar(0.25)).Add(t).Neg()
}

// BenchmarkChain10 runs a 10-op elementwise chain over 1e6 float32: eager
// Go with intermediate slices, lazy tensors (host input and reading the
// result included), and gojit.Compile (CallInto, no result allocation).
func BenchmarkChain10(b *testing.B) {
	x := randData(rand.New(rand.NewPCG(7, 8)), chainN)
	b.Run("eager", func(b *testing.B) {
		b.SetBytes(4 * chainN)
		for range b.N {
			chainEager(x)
		}
	})
	b.Run("lazy", func(b *testing.B) {
		c, _ := NewContext()
		if _, err := chainLazy(c, x).Array(); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(4 * chainN)
		b.ResetTimer()
		for range b.N {
			if _, err := chainLazy(c, x).Array(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lazy-shared-input", func(b *testing.B) {
		c, _ := NewContext()
		in := gojit.FromFloat32(x)
		run := func() error { return chainShared(c, in) }
		if err := run(); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(4 * chainN)
		b.ResetTimer()
		for range b.N {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compiled-call", func(b *testing.B) {
		f, err := gojit.Compile(chainTraced)
		if err != nil {
			b.Fatal(err)
		}
		in := gojit.FromFloat32(x)
		b.SetBytes(4 * chainN)
		for i := range b.N + 1 {
			if i == 1 {
				b.ResetTimer()
			}
			if _, err := f.Call(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compiled", func(b *testing.B) {
		f, err := gojit.Compile(chainTraced)
		if err != nil {
			b.Fatal(err)
		}
		in, out := gojit.FromFloat32(x), gojit.New(gojit.Float32, chainN)
		if err := f.CallInto([]*gojit.Array{out}, in); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(4 * chainN)
		b.ResetTimer()
		for range b.N {
			if err := f.CallInto([]*gojit.Array{out}, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The chain's lazy result is the eager one.
func TestChain10MatchesEager(t *testing.T) {
	x := randData(rand.New(rand.NewPCG(7, 8)), 4096)
	c := newCtx(t)
	got := mustF32(t, chainLazy(c, x))
	want := chainEager(x)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// BenchmarkChainBlocks runs the 10-op chain's variants in blocks of
// chainBlock iterations, in forward then backward order from one round to
// the next, so that each variant follows the others as often as it
// precedes them: a variant's cost depends on what the one before left
// in the caches (its dirty output lines, a parked worker). It reports
// medians per iteration of wall time, the calling thread's CPU time and
// the process's (the copy and the kernel also run on the worker pool).
func BenchmarkChainBlocks(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	x := randData(rand.New(rand.NewPCG(7, 8)), chainN)
	c, _ := NewContext()
	in, out := gojit.FromFloat32(x), gojit.New(gojit.Float32, chainN)
	chain, err := gojit.Compile(chainTraced)
	if err != nil {
		b.Fatal(err)
	}
	lazyWith := func(pool, memmove bool) func() error {
		return func() error {
			heapHostCopies, oneMemmove = pool, memmove
			defer func() { heapHostCopies, oneMemmove = false, false }()
			_, err := chainLazy(c, x).Array()
			return err
		}
	}
	modes := []variant{
		{"lazy", lazyWith(false, false)},
		{"lazy-memmove", lazyWith(false, true)}, // the copy by one memmove: streaming stores
		{"lazy-pool", lazyWith(true, true)},     // as before: one memmove into the output pool
		{"lazy-shared", func() error { return chainShared(c, in) }},
		{"call", func() error { _, err := chain.Call(in); return err }},
		{"into", func() error { return chain.CallInto([]*gojit.Array{out}, in) }},
	}
	for _, m := range modes {
		if err := m.run(); err != nil {
			b.Fatal(err)
		}
	}
	const chainBlock = 20
	wall, cpu, proc := make([][]float64, len(modes)), make([][]float64, len(modes)), make([][]float64, len(modes))
	b.ResetTimer()
	for r := range b.N {
		for k := range modes {
			i := k
			if r%2 == 1 {
				i = len(modes) - 1 - k
			}
			t0, c0, p0 := time.Now(), threadCPU(), procCPU()
			for range chainBlock {
				if err := modes[i].run(); err != nil {
					b.Fatal(err)
				}
			}
			wall[i] = append(wall[i], float64(time.Since(t0).Nanoseconds())/chainBlock)
			cpu[i] = append(cpu[i], float64(threadCPU()-c0)/chainBlock)
			proc[i] = append(proc[i], float64(procCPU()-p0)/chainBlock)
		}
	}
	b.StopTimer()
	median := func(s []float64) float64 {
		s = slices.Clone(s)
		slices.Sort(s)
		return s[len(s)/2]
	}
	for i, m := range modes {
		b.ReportMetric(median(wall[i])/1e3, m.name+"-µs")
		b.ReportMetric(median(cpu[i])/1e3, m.name+"-cpu-µs")
		b.ReportMetric(median(proc[i])/1e3, m.name+"-proc-µs")
	}
	w := func(i int) float64 { return median(wall[i]) }
	b.ReportMetric(w(4)/w(0), "lazy-speed-vs-call")
	b.ReportMetric(w(4)/w(3), "lazy-shared-speed-vs-call")
	b.ReportMetric(w(2)/w(0), "lazy-pool/lazy")
	b.ReportMetric(w(1)/w(0), "lazy-memmove/lazy")
	b.ReportMetric(median(cpu[2])/median(cpu[0]), "lazy-pool/lazy-cpu")
	b.ReportMetric(0, "ns/op")
}
