//go:build cgo && !nollvm

package codegen

import (
	"fmt"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// rowSumKernel compiles the sum over the last axis of a rows x cols
// float32, several rows at a time or (rowsAtOnce false) one at a time,
// and returns it with the address of its range entry.
func rowSumKernel(tb testing.TB, rows, cols int, rowsAtOnce bool) (*llvm.Kernel, uintptr) {
	return rowSumKernelFor(tb, rows, cols, rowsAtOnce, SumRows{})
}

// rowSumKernelFor is rowSumKernel for a target with the given row-sum
// shape (the zero value: the default).
func rowSumKernelFor(tb testing.TB, rows, cols int, rowsAtOnce bool, shape SumRows) (*llvm.Kernel, uintptr) {
	tb.Helper()
	g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d,%d]
  %%1 = reduce_sum %%0 axes=[1] : f32[%d]
  return %%1
}`, rows, cols, rows))
	if err != nil {
		tb.Fatal(err)
	}
	reduceRows = rowsAtOnce
	defer func() { reduceRows = true }()
	_, features := llvm.HostCPU()
	name := fmt.Sprintf("rowsum_%v_%dx%d", rowsAtOnce, shape.Rows, shape.Vectors)
	mod, err := GenerateSplit(passes.Fuse(g), name, Target{AVX512: hasAVX512(features), SumRows: shape}, func(int, Group) bool { return true })
	if err != nil {
		tb.Fatal(err)
	}
	obj, err := llvm.Compile(name+".ll", mod.Text, llvm.Options{OptLevel: 3})
	if err != nil {
		tb.Fatal(err)
	}
	k, err := llvm.Load(obj.Object, mod.Entry)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Free() })
	addr, err := k.Lookup(mod.RangeEntry)
	if err != nil {
		tb.Fatal(err)
	}
	return k, addr
}

// runRows runs rows [0, rows) of a row-sum kernel's range entry split
// into threads contiguous parts, each on a goroutine of its own.
func runRows(addr uintptr, x, out []float32, rows, threads int) {
	var p [llvm.MaxDirect]unsafe.Pointer
	p[0], p[1] = unsafe.Pointer(&x[0]), unsafe.Pointer(&out[0])
	var wg sync.WaitGroup
	for t := range threads {
		wg.Go(func() {
			llvm.CallRangeDirect(addr, &p, 0, int64(rows*t/threads), int64(rows*(t+1)/threads), 0)
		})
	}
	wg.Wait()
}

// TestRowSumKernels runs the row sum one row at a time and several at
// a time, in the default shape and others (rows that do not divide 11,
// vectors that leave a remainder of the 300 columns), over every range of
// rows [a, b) through the range entry, and over every split of all rows
// across 1-3 threads, and checks the rows against a float64 loop and
// that no element outside the range, nor past the end, is written.
func TestRowSumKernels(t *testing.T) {
	const rows, cols = 11, 300
	x := make([]float32, rows*cols)
	want := make([]float64, rows)
	for i := range x {
		x[i] = float32(i%17) - 8.25
		want[i/cols] += float64(x[i])
	}
	const sentinel = -1e30
	check := func(t *testing.T, out []float32, a, b int) {
		t.Helper()
		for r, v := range out {
			switch {
			case r >= a && r < b && float64(v) != want[r]: // small integers and quarters: exact
				t.Errorf("rows [%d, %d): row %d = %v, want %v", a, b, r, v, want[r])
			case (r < a || r >= b) && v != sentinel:
				t.Errorf("rows [%d, %d): element %d written (%v)", a, b, r, v)
			}
		}
	}
	forms := []struct {
		at    bool
		shape SumRows
	}{{true, SumRows{}}, {false, SumRows{}}, {true, SumRows{Rows: 4, Vectors: 1}}, {true, SumRows{Rows: 3, Vectors: 2}}, {true, SumRows{Rows: 1, Vectors: 8}}}
	for _, f := range forms {
		t.Run(fmt.Sprintf("rows=%v_%dx%d", f.at, f.shape.Rows, f.shape.Vectors), func(t *testing.T) {
			_, addr := rowSumKernelFor(t, rows, cols, f.at, f.shape)
			var p [llvm.MaxDirect]unsafe.Pointer
			out := make([]float32, rows+2)
			p[0], p[1] = unsafe.Pointer(&x[0]), unsafe.Pointer(&out[0])
			for a := 0; a <= rows; a++ {
				for b := a; b <= rows; b++ {
					for i := range out {
						out[i] = sentinel
					}
					llvm.CallRangeDirect(addr, &p, 0, int64(a), int64(b), 0)
					check(t, out, a, b)
				}
			}
			for threads := 1; threads <= 3; threads++ {
				for i := range out {
					out[i] = sentinel
				}
				runRows(addr, x, out, rows, threads)
				check(t, out, 0, rows)
			}
		})
	}
}

// BenchmarkReduceRows measures the row sum of a 4096x4096 float32 (64 MB,
// read from memory) with the default shape against four rows of one
// vector each (the shape before; vs_4x1 is its time over the default's)
// and one row at a time (rows_speedup), on one and two threads,
// interleaved, best of rounds. The operand is advised to use 2 MiB pages,
// as gojit bench's inputs are.
func BenchmarkReduceRows(b *testing.B) {
	const rows, cols = 4096, 4096
	x := hugeFloats(b, rows*cols)
	for i := range x {
		x[i] = float32(i%1000) / 1000
	}
	out := make([]float32, rows)
	_, fast := rowSumKernel(b, rows, cols, true)
	_, slow := rowSumKernel(b, rows, cols, false)
	_, old := rowSumKernelFor(b, rows, cols, true, SumRows{Rows: 4, Vectors: 1})
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			for b.Loop() {
				runRows(fast, x, out, rows, threads)
			}
			best := [3]time.Duration{time.Hour, time.Hour, time.Hour}
			for range 15 {
				for i, addr := range []uintptr{fast, slow, old} {
					start := time.Now()
					runRows(addr, x, out, rows, threads)
					best[i] = min(best[i], time.Since(start))
				}
			}
			b.ReportMetric(float64(best[1])/float64(best[0]), "rows_speedup")
			b.ReportMetric(float64(best[2])/float64(best[0]), "vs_4x1")
			b.ReportMetric(float64(rows*cols*4)/best[0].Seconds()/1e9, "GB/s")
		})
	}
}
