package runtime

import (
	"fmt"
	"testing"
	"unsafe"

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
