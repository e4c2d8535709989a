package passes

import (
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

// loopText is a while over (x f32[4], i i32[]) with a capture c f32[4]:
// the body adds exp(c) * 2 to x (invariant work: exp, and mul by a
// broadcast constant), and a broadcast of c (a layout op, cheap: stays).
const loopText = `graph {
  %0 = param 0 : f32[4]
  %1 = param 1 : f32[4]
  %2 = const 0 : i32[]
  %3 = while %0, %2, %1 : (f32[4], i32[]) {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = const 3 : i32[]
    %4 = lt %1, %3 : bool[]
    return %4
  } {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = exp %2 : f32[4]
    %4 = const 2 : f32[4]
    %5 = mul %3, %4 : f32[4]
    %6 = add %0, %5 : f32[4]
    %7 = reshape %2 : f32[2,2]
    %8 = reshape %7 : f32[4]
    %9 = add %6, %8 : f32[4]
    %10 = const 1 : i32[]
    %11 = add %1, %10 : i32[]
    return %9, %11
  }
  %4 = get %3 0 : f32[4]
  %5 = get %3 1 : i32[]
  return %4, %5
}
`

func TestHoist(t *testing.T) {
	runCases(t, Hoist, []rewriteCase{{
		name: "exp and mul move out, the layout ops stay",
		in:   loopText,
		want: `graph {
  %0 = param 0 : f32[4]
  %1 = param 1 : f32[4]
  %2 = const 0 : i32[]
  %3 = exp %1 : f32[4]
  %4 = const 2 : f32[4]
  %5 = mul %3, %4 : f32[4]
  %6 = while %0, %2, %1, %5 : (f32[4], i32[]) {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = param 3 : f32[4]
    %4 = const 3 : i32[]
    %5 = lt %1, %4 : bool[]
    return %5
  } {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = param 3 : f32[4]
    %4 = add %0, %3 : f32[4]
    %5 = reshape %2 : f32[2,2]
    %6 = reshape %5 : f32[4]
    %7 = add %4, %6 : f32[4]
    %8 = const 1 : i32[]
    %9 = add %1, %8 : i32[]
    return %7, %9
  }
  %7 = get %6 0 : f32[4]
  %8 = get %6 1 : i32[]
  return %7, %8
}
`,
	}, {
		name: "nothing invariant: unchanged",
		in:   strings.Replace(loopText, "%3 = exp %2 : f32[4]", "%3 = exp %0 : f32[4]", 1),
		want: strings.Replace(loopText, "%3 = exp %2 : f32[4]", "%3 = exp %0 : f32[4]", 1),
	}})
}

func TestFoldConstantCond(t *testing.T) {
	cond := func(pred string) string {
		return `graph {
  %0 = param 0 : f32[4]
  %1 = const ` + pred + ` : bool[]
  %2 = cond %1, %0 : (f32[4]) {
    %0 = param 0 : f32[4]
    %1 = exp %0 : f32[4]
    return %1
  } {
    %0 = param 0 : f32[4]
    %1 = neg %0 : f32[4]
    return %1
  }
  %3 = get %2 0 : f32[4]
  return %3
}
`
	}
	runCases(t, Fold, []rewriteCase{
		{"true takes then", cond("true"), graphText("%0 = param 0 : f32[4]", "%1 = exp %0 : f32[4]", "return %1")},
		{"false takes else", cond("false"), graphText("%0 = param 0 : f32[4]", "%1 = neg %0 : f32[4]", "return %1")},
	})
}

// TestOptimizeInsideRegions: the whole pipeline runs inside regions (x*1
// and a duplicated exp in the body), then hoists, and the result computes
// what the input does.
func TestOptimizeInsideRegions(t *testing.T) {
	text := strings.Replace(loopText, `    %9 = add %6, %8 : f32[4]
    %10 = const 1 : i32[]
    %11 = add %1, %10 : i32[]
    return %9, %11`, `    %9 = add %6, %8 : f32[4]
    %10 = const 1 : i32[]
    %11 = add %1, %10 : i32[]
    %12 = const 1 : f32[4]
    %13 = mul %9, %12 : f32[4]
    %14 = exp %2 : f32[4]
    %15 = mul %14, %4 : f32[4]
    %16 = sub %13, %15 : f32[4]
    %17 = add %16, %5 : f32[4]
    return %17, %11`, 1)
	g := mustParse(t, text)
	out, err := Optimize(g, Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	checkEquivalent(t, g, out, 7)
	var w *ir.Node
	for i := range out.Nodes {
		if out.Nodes[i].Op == ir.OpWhile {
			w = &out.Nodes[i]
		}
	}
	if w == nil {
		t.Fatalf("no while left:\n%s", out)
	}
	body := ir.Print(w.Regions[1], false)
	for _, gone := range []string{"exp", "= mul"} {
		if strings.Contains(body, gone) {
			t.Errorf("the body still has %q (cse, simplify or hoist missed it):\n%s", gone, out)
		}
	}
	if n := strings.Count(ir.Print(out, false), "exp"); n != 1 {
		t.Errorf("%d exps after cse and hoist, want 1:\n%s", n, out)
	}
}
