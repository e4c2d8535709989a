package runtime

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// rowsGraph is a batch of rows: y = exp(x*w) - 1 and the row sums of x*w,
// with the batch size b as its dynamic dimension.
func rowsGraph(t testing.TB, b int) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(strings.ReplaceAll(`graph {
  %0 = param 0 : f32[B,100]
  %1 = param 1 : f32[100]
  %2 = broadcast %1 : f32[B,100]
  %3 = mul %0, %2 : f32[B,100]
  %4 = exp %3 : f32[B,100]
  %5 = const 1 : f32[]
  %6 = broadcast %5 : f32[B,100]
  %7 = sub %4, %6 : f32[B,100]
  %8 = reduce_sum %3 axes=[1] : f32[B]
  return %7, %8, %1
}`, "B", fmt.Sprint(b)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDynamicServesEverySize(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	e, err := BuildDynamic(rowsGraph(t, 61), rowsGraph(t, 67), 61, 67, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Scaled{{{PerB: 1}, {Fixed: 100}}, {{PerB: 1}}, {{Fixed: 100}}}
	if fmt.Sprint(e.Dynamic.Outputs) != fmt.Sprint(want) {
		t.Errorf("output shapes %v, want %v", e.Dynamic.Outputs, want)
	}
	compiles := ReadStats().Compiles
	for _, b := range []int{0, 1, 2, 61, 67, 200, 1500} {
		x := make([]float32, b*100+1) // +1: a valid pointer when b is 0
		w := make([]float32, 100)
		for i := range x {
			x[i] = float32(math.Sin(float64(i))) * 0.5
		}
		for i := range w {
			w[i] = float32(i%9) * 0.25
		}
		outs := [][]float32{make([]float32, b*100+1), make([]float32, b+1), make([]float32, 101)}
		ptrs := []unsafe.Pointer{unsafe.Pointer(&outs[0][0]), unsafe.Pointer(&outs[1][0]), unsafe.Pointer(&outs[2][0])}
		if err := e.RunWith([]unsafe.Pointer{unsafe.Pointer(&x[0]), unsafe.Pointer(&w[0])}, ptrs, RunOptions{Size: b}); err != nil {
			t.Fatal(err)
		}
		ref, err := interp.Run(rowsGraph(t, b), []any{x[:b*100], w})
		if err != nil {
			t.Fatal(err)
		}
		for j := range outs {
			r := ref[j].([]float32)
			for k := range r {
				if d := math.Abs(float64(outs[j][k] - r[k])); d > 1e-5*(1+math.Abs(float64(r[k]))) {
					t.Fatalf("b=%d: output %d[%d] = %v, interpreter %v", b, j, k, outs[j][k], r[k])
				}
			}
			if outs[j][len(r)] != 0 {
				t.Fatalf("b=%d: output %d written past its end", b, j)
			}
		}
	}
	if c := ReadStats().Compiles; c != compiles {
		t.Errorf("%d compiles while changing the dynamic size", c-compiles)
	}
}

func TestDynamicRejectsSizeDependentCode(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	drop := func(b int) *ir.Graph {
		g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d,100]
  %%1 = slice %%0 starts=[1,0] steps=[1,1] : f32[%d,100]
  return %%1
}`, b, b-1))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	_, err := BuildDynamic(drop(61), drop(67), 61, 67, Options{OptLevel: 3})
	want := "slice: slices the dynamic axis (axis 0 of its result [B-1,100]); one kernel cannot serve every batch size"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("BuildDynamic(a slice of the dynamic axis) = %v; want %q", err, want)
	}
}

// TestDynamicColumnSums checks a reduction over the dynamic axis: its loop
// runs over the other axis and reads the size from %size.
func TestDynamicColumnSums(t *testing.T) {
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	colSums := func(b int) *ir.Graph {
		g, err := ir.Parse(fmt.Sprintf(`graph {
  %%0 = param 0 : i32[%d,100]
  %%1 = reduce_sum %%0 axes=[0] : i32[100]
  return %%1
}`, b))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	e, err := BuildDynamic(colSums(61), colSums(67), 61, 67, Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{0, 1, 5, 300} {
		x := make([]int32, b*100+1)
		for i := range x {
			x[i] = int32(i%13) - 6
		}
		out := make([]int32, 100)
		if err := e.RunWith([]unsafe.Pointer{unsafe.Pointer(&x[0])}, []unsafe.Pointer{unsafe.Pointer(&out[0])}, RunOptions{Size: b}); err != nil {
			t.Fatal(err)
		}
		for j := range out {
			var want int32
			for i := range b {
				want += x[i*100+j]
			}
			if out[j] != want {
				t.Fatalf("b=%d: sum %d = %d, want %d", b, j, out[j], want)
			}
		}
	}
}
