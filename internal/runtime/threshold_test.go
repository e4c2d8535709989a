package runtime

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/host"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// BenchmarkParallelThreshold measures one loop nest at sizes around
// ParallelWork on one thread and split across two (forced, whatever its
// size), for a memory-bound chain and a compute-bound one. The crossover,
// where two threads start to win clearly, is what ParallelWork should be:
//
//	go test ./internal/runtime -run '^$' -bench ParallelThreshold
//
// reports ns/op for each kernel, size and thread count.
func BenchmarkParallelThreshold(b *testing.B) {
	if !llvm.Available() {
		b.Skip("no LLVM in this build")
	}
	defer func(w int) { parallelWork = w }(parallelWork)
	parallelWork = 1 // every nest is marked for splitting
	kernels := map[string]string{
		"stream": `graph {
  %%0 = param 0 : f32[%d]
  %%1 = param 1 : f32[%d]
  %%2 = add %%0, %%1 : f32[%d]
  return %%2
}`,
		"exp-tanh": `graph {
  %%0 = param 0 : f32[%d]
  %%1 = param 1 : f32[%d]
  %%2 = exp %%0 : f32[%d]
  %%3 = tanh %%2 : f32[%d]
  %%4 = mul %%3, %%1 : f32[%d]
  return %%4
}`,
	}
	for _, name := range []string{"stream", "exp-tanh"} {
		for _, n := range []int{4 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 512 << 10, 8 << 20} {
			text := kernels[name]
			args := make([]any, 0, 8)
			for range 8 {
				args = append(args, n)
			}
			g, err := ir.Parse(fmt.Sprintf(text, args[:countVerbs(text)]...))
			if err != nil {
				b.Fatal(err)
			}
			e, err := Build(g, Options{OptLevel: 3})
			if err != nil {
				b.Fatal(err)
			}
			x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = float32(i%17)*0.01, 1
			}
			ins := []unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0])}
			outs := []unsafe.Pointer{unsafe.Pointer(&out[0])}
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/n=%dk/threads=%d", name, n>>10, threads), func(b *testing.B) {
					if threads > pool().Threads() {
						b.Skipf("the pool has %d threads", pool().Threads())
					}
					for b.Loop() {
						if err := e.RunWith(ins, outs, RunOptions{Threads: threads}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func countVerbs(s string) int {
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' {
			if s[i+1] == 'd' {
				n++
			}
			i++
		}
	}
	return n
}

// BenchmarkStreamThreshold times the 5-op chain's kernel (two inputs, one
// output: 12 bytes moved per element) with ordinary and with streaming
// stores around the host's last-level cache size, to check the threshold
// streamBytes derives from it. Compare the store=plain and store=stream
// lines of each n; the host threshold streams when n*12 bytes reach
// streamBytes.
func BenchmarkStreamThreshold(b *testing.B) {
	if !llvm.Available() {
		b.Skip("no LLVM in this build")
	}
	c := host.CacheSizes()
	b.Logf("host caches %+v: streaming from %d MiB", c, streamBytes(c, host.HostCPU().Vendor)>>20)
	const text = `graph {
  %%0 = param 0 : f32[%d]
  %%1 = param 1 : f32[%d]
  %%2 = add %%0, %%1 : f32[%d]
  %%3 = mul %%2, %%0 : f32[%d]
  %%4 = const 0.5 : f32[%d]
  %%5 = mul %%1, %%4 : f32[%d]
  %%6 = sub %%3, %%5 : f32[%d]
  %%7 = const 0 : f32[%d]
  %%8 = max %%6, %%7 : f32[%d]
  return %%8
}`
	for _, n := range []int{1 << 20, 4 << 20, 8 << 20} {
		g, err := ir.Parse(fmt.Sprintf(text, n, n, n, n, n, n, n, n, n))
		if err != nil {
			b.Fatal(err)
		}
		x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
		ins := []unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0])}
		outs := []unsafe.Pointer{unsafe.Pointer(&out[0])}
		for _, mode := range []struct {
			name  string
			bytes int64
		}{{"plain", 1 << 50}, {"stream", 1}} {
			e, err := Build(g, Options{OptLevel: 3, streamBytes: mode.bytes})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("n=%dM/store=%s", n>>20, mode.name), func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					if err := e.Run(ins, outs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestStreamThreshold(t *testing.T) {
	const amd, intel = "AuthenticAMD", "GenuineIntel"
	for _, c := range []struct {
		caches host.Caches
		vendor string
		want   int64
	}{
		// A 2-vCPU Zen 4 VM: 8 cores of 4 MiB behind the L3, a share of
		// 8 MiB; twice that is half the L3.
		{host.Caches{L2: 2 << 20, L3: 32 << 20, L3Shared: 2}, amd, 16 << 20},
		// A 2-vCPU Sapphire Rapids VM: about 52 cores behind 105 MiB.
		{host.Caches{L2: 2 << 20, L3: 105 << 20, L3Shared: 2}, intel, 2 * (105 << 20) * 2 / 52}, // 8.1 MiB
		// The same L3 on bare metal, all 112 threads seen: half the L3.
		{host.Caches{L2: 2 << 20, L3: 105 << 20, L3Shared: 112}, intel, 105 << 19},
		// A desktop whose 24 threads share 36 MiB.
		{host.Caches{L2: 2 << 20, L3: 36 << 20, L3Shared: 24}, intel, 18 << 20},
		// An unknown vendor: the L3 is taken as the process's own.
		{host.Caches{L2: 2 << 20, L3: 105 << 20, L3Shared: 2}, "", 105 << 19},
		{host.Caches{L2: 2 << 20, L3: 32 << 20}, "", 16 << 20},
		{host.Caches{L2: 2 << 20}, intel, 4 << 20},
		{host.Caches{L3: 1 << 20}, amd, 2 << 20},               // never below codegen's default
		{host.Caches{L3: 64 << 20, L3Shared: 1}, amd, 8 << 20}, // one CPU of 16 cores
		{host.Caches{}, intel, 2 << 20},
	} {
		if got := streamBytes(c.caches, c.vendor); got != c.want {
			t.Errorf("streamBytes(%+v, %q) = %d, want %d", c.caches, c.vendor, got, c.want)
		}
	}
	t.Setenv(EnvStreamBytes, "12345")
	if got := StreamThreshold(); got != 12345 {
		t.Errorf("StreamThreshold with %s=12345 = %d", EnvStreamBytes, got)
	}
	t.Setenv(EnvStreamBytes, "-3")
	if got, want := StreamThreshold(), streamBytes(host.CacheSizes(), host.HostCPU().Vendor); got != want {
		t.Errorf("StreamThreshold with a negative %s = %d, want the host's %d", EnvStreamBytes, got, want)
	}
	if got := (Options{}).target().StreamBytes; got != streamBytes(host.CacheSizes(), host.HostCPU().Vendor) {
		t.Errorf("target's StreamBytes = %d, want the host's threshold", got)
	}
}
