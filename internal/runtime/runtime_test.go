package runtime

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

func TestPoolRunsEveryChunkOnce(t *testing.T) {
	p := NewPool(3)
	for _, chunks := range []int{0, 1, 2, 7, 64} {
		counts := make([]atomic.Int32, chunks)
		p.Run(chunks, func(c int) { counts[c].Add(1) })
		for c := range counts {
			if n := counts[c].Load(); n != 1 {
				t.Errorf("chunks=%d: chunk %d ran %d times", chunks, c, n)
			}
		}
	}
}

func TestPoolConcurrentCallersRace(t *testing.T) {
	p := NewPool(2)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for iter := range 200 {
				chunks := 1 + (g+iter)%5
				var sum atomic.Int64
				p.Run(chunks, func(c int) { sum.Add(int64(c + 1)) })
				if want := int64(chunks * (chunks + 1) / 2); sum.Load() != want {
					t.Errorf("sum %d, want %d", sum.Load(), want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// largeGraph is big enough that Run splits its groups across threads.
const largeGraph = `graph {
  %0 = param 0 : f32[512,300]
  %1 = param 1 : f32[300]
  %2 = broadcast %1 : f32[512,300]
  %3 = mul %0, %2 : f32[512,300]
  %4 = exp %3 : f32[512,300]
  %5 = reduce_sum %4 axes=[1] : f32[512]
  %6 = reduce_max %3 axes=[0] : f32[300]
  %7 = sub %0, %2 : f32[512,300]
  return %5, %6, %7
}`

// TestParallelRaceMatchesInterpreter runs a graph whose groups are split
// across threads, from several goroutines at once, and compares with the
// interpreter.
func TestParallelRaceMatchesInterpreter(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	g, err := ir.Parse(largeGraph)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(g, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !exe.parallel {
		t.Fatal("graph not marked for parallel execution")
	}
	a := make([]float32, 512*300)
	b := make([]float32, 300)
	for i := range a {
		a[i] = float32(math.Sin(float64(i))) * 0.01
	}
	for i := range b {
		b[i] = float32(i%7) - 3
	}
	want, err := interp.Run(exe.Graph, []any{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs := []any{make([]float32, 512), make([]float32, 300), make([]float32, 512*300)}
			ptrs := make([]unsafe.Pointer, len(outs))
			for i, o := range outs {
				ptrs[i] = unsafe.Pointer(&o.([]float32)[0])
			}
			for range 5 {
				if err := exe.Run([]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])}, ptrs); err != nil {
					t.Error(err)
					return
				}
				for i := range outs {
					got, ref := outs[i].([]float32), want[i].([]float32)
					for k := range ref {
						// exp goes through libm here and Go's math there.
						if d := math.Abs(float64(got[k] - ref[k])); d > 1e-5*math.Abs(float64(ref[k]))+1e-30 {
							t.Errorf("output %d[%d] = %v, interpreter %v", i, k, got[k], ref[k])
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestSignatureSeesOptions(t *testing.T) {
	g, err := ir.Parse(largeGraph)
	if err != nil {
		t.Fatal(err)
	}
	if Signature(g, Options{OptLevel: 3}) == Signature(g, Options{OptLevel: 2}) {
		t.Error("optimization level does not change the signature")
	}
	h := g.Clone()
	h.Nodes[3].Op = ir.OpAdd
	if Signature(g, Options{}) == Signature(h, Options{}) {
		t.Error("a different op does not change the signature")
	}
}
