package passes

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// rewriteCase is a before/after test of one pass: the graph text in, and
// the text expected out once dead nodes are removed.
type rewriteCase struct {
	name     string
	in, want string
}

// graphText wraps node lines in the graph text syntax.
func graphText(lines ...string) string {
	return "graph {\n  " + strings.Join(lines, "\n  ") + "\n}\n"
}

func mustParse(t testing.TB, text string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return g
}

// runCases runs pass on each case's input, verifies the result, checks it
// against the expected text (after dead-code removal, without positions)
// and checks that the interpreter computes the same outputs from both.
func runCases(t *testing.T, pass func(*ir.Graph) (*ir.Graph, error), cases []rewriteCase) {
	t.Helper()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mustParse(t, tc.in)
			orig := ir.Print(in, true)
			out, err := pass(in)
			if err != nil {
				t.Fatal(err)
			}
			if ir.Print(in, true) != orig {
				t.Fatalf("the pass modified its input")
			}
			if err := ir.Verify(out); err != nil {
				t.Fatalf("invalid result: %v\n%s", err, out)
			}
			live, _ := ir.Compact(out)
			want := mustParse(t, tc.want)
			if got, w := ir.Print(live, false), ir.Print(want, false); got != w {
				t.Errorf("got:\n%swant:\n%s", got, w)
			}
			checkEquivalent(t, in, out, uint64(i))
		})
	}
}

func TestFold(t *testing.T) {
	var sum float32 // the interpreter's sequential float32 sum, written out
	for range 10 {
		sum += float32(0.1)
	}
	runCases(t, Fold, []rewriteCase{
		{
			name: "elementwise op of a splat, rounded to f32",
			in: graphText(
				"%0 = const 3 : f32[1000]",
				"%1 = exp %0 : f32[1000]",
				"return %1"),
			want: graphText(
				fmt.Sprintf("%%0 = const %v : f32[1000]", float64(float32(math.Exp(3)))),
				"return %0"),
		},
		{
			name: "a constant chain folds into the op that uses a param",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 1 : f32[]",
				"%2 = broadcast %1 : f32[4]",
				"%3 = const 2 : f32[4]",
				"%4 = add %2, %3 : f32[4]",
				"%5 = mul %0, %4 : f32[4]",
				"return %5"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = const 3 : f32[4]",
				"%2 = mul %0, %1 : f32[4]",
				"return %2"),
		},
		{
			name: "reduction of a splat is the sequential sum",
			in: graphText(
				"%0 = const 0.1 : f32[3,10]",
				"%1 = reduce_sum %0 axes=[1] : f32[3]",
				"return %1"),
			want: graphText(
				fmt.Sprintf("%%0 = const %v : f32[3]", float64(sum)),
				"return %0"),
		},
		{
			name: "integer ops wrap and divide by zero as the interpreter does",
			in: graphText(
				"%0 = const 300 : i32[2]",
				"%1 = cast %0 : u8[2]",
				"%2 = const 0 : u8[2]",
				"%3 = div %1, %2 : u8[2]",
				"%4 = const 2147483647 : i32[2]",
				"%5 = const 1 : i32[2]",
				"%6 = add %4, %5 : i32[2]",
				"return %1, %3, %6"),
			want: graphText(
				"%0 = const 44 : u8[2]",
				"%1 = const 0 : u8[2]",
				"%2 = const -2147483648 : i32[2]",
				"return %0, %1, %2"),
		},
		{
			name: "NaN casts to 0 and compares unequal to itself",
			in: graphText(
				"%0 = const nan : f32[2]",
				"%1 = cast %0 : i32[2]",
				"%2 = eq %0, %0 : bool[2]",
				"return %1, %2"),
			want: graphText(
				"%0 = const 0 : i32[2]",
				"%1 = const false : bool[2]",
				"return %0, %1"),
		},
		{
			name: "empty values are constants, and so are reductions of them",
			in: graphText(
				"%0 = param 0 : f32[0,4]",
				"%1 = exp %0 : f32[0,4]",
				"%2 = reduce_max %0 axes=[0] : f32[4]",
				"%3 = reduce_sum %0 axes=[0] : f32[4]",
				"return %1, %2, %3"),
			want: graphText(
				"%0 = param 0 : f32[0,4]",
				"%1 = const 0 : f32[0,4]",
				"%2 = const -inf : f32[4]",
				"%3 = const 0 : f32[4]",
				"return %1, %2, %3"),
		},
		{
			name: "layout ops move a splat's copies; matmul and argmax of splats",
			in: graphText(
				"%0 = const 2 : f32[2,3]",
				"%1 = transpose %0 axes=[1,0] : f32[3,2]",
				"%2 = const 0.5 : f32[3,4]",
				"%3 = matmul %0, %2 : f32[2,4]",
				"%4 = argmax %0 axes=[1] : i64[2]",
				"%5 = slice %1 starts=[1,0] steps=[1,1] : f32[2,2]",
				"return %3, %4, %5"),
			want: graphText(
				"%0 = const 3 : f32[2,4]",
				"%1 = const 0 : i64[2]",
				"%2 = const 2 : f32[2,2]",
				"return %0, %1, %2"),
		},
		{
			name: "concat folds only equal splats; iota only along a unit axis",
			in: graphText(
				"%0 = const 1 : f32[2]",
				"%1 = const 1 : f32[3]",
				"%2 = const 2 : f32[3]",
				"%3 = concat %0, %1 axes=[0] : f32[5]",
				"%4 = concat %0, %2 axes=[0] : f32[5]",
				"%5 = iota axes=[1] : i32[3,1]",
				"%6 = iota axes=[0] : i32[3,1]",
				"return %3, %4, %5, %6"),
			want: graphText(
				"%0 = const 1 : f32[2]",
				"%1 = const 2 : f32[3]",
				"%2 = const 1 : f32[5]",
				"%3 = concat %0, %1 axes=[0] : f32[5]",
				"%4 = const 0 : i32[3,1]",
				"%5 = iota axes=[0] : i32[3,1]",
				"return %2, %3, %4, %5"),
		},
		{
			name: "a reduction longer than foldWork is left to run time",
			in: graphText(
				fmt.Sprintf("%%0 = const 1 : f32[%d]", foldWork+1),
				"%1 = reduce_sum %0 axes=[0] : f32[]",
				"return %1"),
			want: graphText(
				fmt.Sprintf("%%0 = const 1 : f32[%d]", foldWork+1),
				"%1 = reduce_sum %0 axes=[0] : f32[]",
				"return %1"),
		},
	})
}

// TestFoldKeepsNumbering checks that a pass that inserts nothing keeps
// every value's number and position, so dumps before and after it line up.
func TestFoldKeepsNumbering(t *testing.T) {
	in := mustParse(t, graphText(
		"%0 = param 0 : f32[4]",
		"%1 = const 1 : f32[4]  @ a.go:1",
		"%2 = neg %1 : f32[4]  @ a.go:2",
		"%3 = add %0, %2 : f32[4]  @ a.go:3",
		"return %3"))
	out, err := Fold(in)
	if err != nil {
		t.Fatal(err)
	}
	want := graphText(
		"%0 = param 0 : f32[4]",
		"%1 = const 1 : f32[4]  @ a.go:1",
		"%2 = const -1 : f32[4]  @ a.go:2",
		"%3 = add %0, %2 : f32[4]  @ a.go:3",
		"return %3")
	if got := ir.Print(out, true); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}
