//go:build cgo && !nollvm

package codegen

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// takeKernel compiles take(table, idx) along axis 0 for a rows x width
// float32 table and n int32 indices, with or without the bounds check.
func takeKernel(tb testing.TB, rows, width, n int, checked bool) (*llvm.Kernel, *Module) {
	tb.Helper()
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d,%d]
  %%1 = param 1 : i32[%d]
  %%2 = take %%0, %%1 axes=[0] : f32[%d,%d]
  return %%2
}`, rows, width, n, n, width))
	if err != nil {
		tb.Fatal(err)
	}
	checkIndices = checked
	defer func() { checkIndices = true }()
	_, features := llvm.HostCPU()
	mod, err := GenerateFor(passes.Fuse(g), fmt.Sprintf("take_%v", checked), Target{AVX512: hasAVX512(features)})
	if err != nil {
		tb.Fatal(err)
	}
	obj, err := llvm.Compile("take.ll", mod.Text, llvm.Options{OptLevel: 3})
	if err != nil {
		tb.Fatal(err)
	}
	k, err := llvm.Load(obj.Object, mod.Entry)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Free() })
	return k, mod
}

func hasAVX512(features string) bool {
	return strings.Contains(features, "+avx512f") && strings.Contains(features, "+avx512vl")
}

// runTake calls k on table, idx and out with a fresh error slot and
// returns the slot.
func runTake(k *llvm.Kernel, mod *Module, table []float32, idx []int32, out []float32) [4]uint64 {
	var errs [4]uint64
	var p [llvm.MaxDirect]unsafe.Pointer
	p[0], p[1], p[2] = unsafe.Pointer(&table[0]), unsafe.Pointer(&idx[0]), unsafe.Pointer(&out[0])
	n := 3
	if mod.ErrorSlot >= 0 {
		p[mod.ErrorSlot] = unsafe.Pointer(&errs[0])
		n++
	}
	k.CallDirect(&p, n)
	runtime.KeepAlive(&errs)
	return errs
}

// TestTakeKernel runs the compiled gather directly: the rows it copies, and
// the error slot filled with the first bad index, the others clamped.
func TestTakeKernel(t *testing.T) {
	const rows, width, n = 50, 8, 300
	k, mod := takeKernel(t, rows, width, n, true)
	table := make([]float32, rows*width)
	for i := range table {
		table[i] = float32(i)
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i%(2*rows) - rows)
	}
	out := make([]float32, n*width)
	if errs := runTake(k, mod, table, idx, out); errs != [4]uint64{} {
		t.Fatalf("error slot %v for valid indices", errs)
	}
	for r, i := range idx {
		row := (int(i) + rows) % rows
		for c := range width {
			if out[r*width+c] != table[row*width+c] {
				t.Fatalf("out[%d,%d] = %v, want %v", r, c, out[r*width+c], table[row*width+c])
			}
		}
	}
	idx[200], idx[7], idx[9] = rows, -rows-1, 1<<30
	errs := runTake(k, mod, table, idx, out)
	if errs[1] != 3 || errs[2] != 7 || int64(errs[3]) != -rows-1 {
		t.Errorf("error slot %v, want node 2 (+1), position 7, value %d", errs, -rows-1)
	}
	if out[7*width] != table[0] || out[200*width] != table[0] {
		t.Errorf("bad indices not clamped to 0")
	}
}

// BenchmarkTakeCheck measures what the bounds check costs: the gather of
// 1e6 random rows of width 64 from a 1e5x64 float32 table (issue 10's
// target), compiled with and without the check, against a plain Go loop
// copying the same rows, all on one thread, interleaved, best of rounds.
// x_go_loop is the Go loop's time over the kernel's; check_cost is the
// checked kernel's time over the unchecked one's.
func BenchmarkTakeCheck(b *testing.B) {
	const rows, width, n = 100_000, 64, 1_000_000
	table := make([]float32, rows*width)
	for i := range table {
		table[i] = float32(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(r.IntN(rows))
	}
	out := make([]float32, n*width)
	goOut := make([]float32, n*width)
	ck, cmod := takeKernel(b, rows, width, n, true)
	uk, umod := takeKernel(b, rows, width, n, false)
	checked := func() { runTake(ck, cmod, table, idx, out) }
	unchecked := func() { runTake(uk, umod, table, idx, out) }
	goLoop := func() {
		for r, i := range idx {
			copy(goOut[r*width:(r+1)*width], table[int(i)*width:(int(i)+1)*width])
		}
	}
	b.ResetTimer()
	for b.Loop() {
		checked()
	}
	b.StopTimer()
	best := make([]time.Duration, 3)
	for i := range best {
		best[i] = time.Hour
	}
	for range 7 {
		for i, f := range []func(){checked, unchecked, goLoop} {
			start := time.Now()
			f()
			best[i] = min(best[i], time.Since(start))
		}
	}
	b.ReportMetric(float64(best[2])/float64(best[0]), "x_go_loop")
	b.ReportMetric(float64(best[2])/float64(best[1]), "x_go_loop_unchecked")
	b.ReportMetric(float64(best[0])/float64(best[1]), "check_cost")
}
