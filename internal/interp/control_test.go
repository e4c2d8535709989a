package interp

import (
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// collatz counts the Collatz steps of n (a while with a cond in its body),
// and doubles x that many times (a capture-free state value): checked
// against the same loop in Go.
const collatz = `graph {
  %0 = param 0 : i64[]
  %1 = param 1 : f32[2]
  %2 = const 0 : i32[]
  %3 = while %0, %2, %1 : (i64[], i32[], f32[2]) {
    %0 = param 0 : i64[]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[2]
    %3 = const 1 : i64[]
    %4 = gt %0, %3 : bool[]
    return %4
  } {
    %0 = param 0 : i64[]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[2]
    %3 = const 2 : i64[]
    %4 = div %0, %3 : i64[]
    %5 = mul %4, %3 : i64[]
    %6 = eq %5, %0 : bool[]
    %7 = cond %6, %0, %4 : (i64[]) {
      %0 = param 0 : i64[]
      %1 = param 1 : i64[]
      return %1
    } {
      %0 = param 0 : i64[]
      %1 = param 1 : i64[]
      %2 = const 3 : i64[]
      %3 = mul %0, %2 : i64[]
      %4 = const 1 : i64[]
      %5 = add %3, %4 : i64[]
      return %5
    }
    %8 = get %7 0 : i64[]
    %9 = const 1 : i32[]
    %10 = add %1, %9 : i32[]
    %11 = add %2, %2 : f32[2]
    return %8, %10, %11
  }
  %4 = get %3 1 : i32[]
  %5 = get %3 2 : f32[2]
  %6 = get %3 2 : f32[2]
  return %4, %5, %6, %1
}`

func TestWhileCollatz(t *testing.T) {
	g, err := ir.Parse(collatz)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1, 2, 6, 27, 97} {
		x := []float32{0.5, -1}
		out, err := Run(g, []any{[]int64{n}, x})
		if err != nil {
			t.Fatal(err)
		}
		steps := int32(0)
		for m := n; m > 1; steps++ {
			if m%2 == 0 {
				m /= 2
			} else {
				m = 3*m + 1
			}
		}
		if got := out[0].([]int32)[0]; got != steps {
			t.Errorf("n=%d: %d steps, want %d", n, got, steps)
		}
		want := []float32{0.5, -1}
		for range steps {
			want[0], want[1] = want[0]*2, want[1]*2
		}
		for _, o := range out[1:3] {
			if got := o.([]float32); got[0] != want[0] || got[1] != want[1] {
				t.Errorf("n=%d: x = %v, want %v", n, got, want)
			}
		}
		// Results never alias each other or the inputs.
		out[1].([]float32)[0] = 99
		if out[2].([]float32)[0] == 99 || x[0] != 0.5 || out[3].([]float32)[0] != 0.5 {
			t.Errorf("n=%d: results alias", n)
		}
	}
}
