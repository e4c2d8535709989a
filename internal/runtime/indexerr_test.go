package runtime

import (
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// TestIndexErrorSlot runs a gather large enough to be split across
// threads, from several goroutines at once, alternating valid and invalid
// indices: an invalid call returns the interpreter's error, and the valid
// call after it on a reused frame has no stale error.
func TestIndexErrorSlot(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	const rows, width, n = 1000, 64, 4000
	g, err := ir.Parse(`graph {
  %0 = param 0 : f32[1000,64]
  %1 = param 1 : i64[4000]
  %2 = take %0, %1 axes=[0] : f32[4000,64]
  %3 = iota axes=[0] : i64[1000]
  %4 = scatter_add %3, %1, %1 axes=[0] : i64[1000]
  return %2, %4
}`)
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
	table := make([]float32, rows*width)
	for i := range table {
		table[i] = float32(i)
	}
	good := make([]int64, n)
	bad := make([]int64, n)
	for i := range good {
		good[i] = int64(i*7%(2*rows) - rows)
		bad[i] = good[i]
	}
	bad[3999], bad[2500], bad[2501] = rows, -rows-1, 5*rows
	wantErr := func(idx []int64) error {
		_, err := interp.Run(exe.Graph, []any{table, idx})
		return err
	}
	want := wantErr(bad)
	var ie *ir.IndexError
	if !errors.As(want, &ie) || ie.Index != -rows-1 {
		t.Fatalf("interpreter: %v", want)
	}
	ref, err := interp.Run(exe.Graph, []any{table, good})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float32, n*width)
			sum := make([]int64, rows)
			outs := []unsafe.Pointer{unsafe.Pointer(&out[0]), unsafe.Pointer(&sum[0])}
			for k := range 6 {
				idx := good
				if k%2 == 1 {
					idx = bad
				}
				err := exe.Run([]unsafe.Pointer{unsafe.Pointer(&table[0]), unsafe.Pointer(&idx[0])}, outs)
				if k%2 == 1 {
					if err == nil || err.Error() != want.Error() {
						t.Errorf("call %d: error %v, want %v", k, err, want)
					}
					continue
				}
				if err != nil {
					t.Errorf("call %d (valid indices): %v", k, err)
					return
				}
				for i, v := range ref[0].([]float32) {
					if out[i] != v {
						t.Errorf("out[%d] = %v, want %v", i, out[i], v)
						return
					}
				}
				for i, v := range ref[1].([]int64) {
					if sum[i] != v {
						t.Errorf("sum[%d] = %v, want %v", i, sum[i], v)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
