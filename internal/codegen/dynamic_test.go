package codegen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// dynamicCases are graphs with a batch axis B, generated as dynamic
// modules at two sizes.
var dynamicCases = map[string]string{
	// relu(x·w + bias) over a batch of rows: the matmul's rows follow B.
	"dynamic_dense": `graph {
  %0 = param 0 : f32[B,40]
  %1 = param 1 : f32[40,20]
  %2 = param 2 : f32[20]
  %3 = matmul %0, %1 : f32[B,20]
  %4 = broadcast %2 : f32[B,20]
  %5 = add %3, %4 : f32[B,20]
  %6 = const 0 : f32[B,20]
  %7 = max %5, %6 : f32[B,20]
  return %7
}`,
	// w·xT and xT·x: the columns, then the sum, follow B.
	"dynamic_cols_sum": `graph {
  %0 = param 0 : f64[30,20]
  %1 = param 1 : f64[B,20]
  %2 = transpose %1 axes=[1,0] : f64[20,B]
  %3 = matmul %0, %2 : f64[30,B]
  %4 = matmul %2, %1 : f64[20,20]
  return %3, %4
}`,
	// Column sums and a mean over the batch (its divisor is B), and a
	// concat along it.
	"dynamic_reduce_concat": `graph {
  %0 = param 0 : f32[B,6]
  %1 = reduce_sum %0 axes=[0] : f32[6]
  %2 = const B : f32[6]
  %3 = div %1, %2 : f32[6]
  %4 = const 0 : f32[1,6]
  %5 = concat %0, %4 axes=[0] : f32[B+1,6]
  return %3, %5
}`,
}

// dynamicAt parses case name at batch size b and generates its dynamic
// module, the dynamic axes found by comparing it with the graph at size 2b.
func dynamicAt(t *testing.T, name string, b int) *codegen.Module {
	t.Helper()
	parse := func(b int) *passes.Plan {
		text := strings.ReplaceAll(dynamicCases[name], "B+1", fmt.Sprint(b+1))
		g, err := ir.Parse(strings.ReplaceAll(text, "B", fmt.Sprint(b)))
		if err != nil {
			t.Fatal(err)
		}
		return passes.Fuse(g)
	}
	p, q := parse(b), parse(2*b)
	d := &codegen.Dynamic{Size: b, Axes: make([][]bool, len(p.Graph.Nodes)), Scale: make([]int, len(p.Graph.Nodes))}
	for v, n := range p.Graph.Nodes {
		m := q.Graph.Nodes[v]
		for k := range n.Shape {
			if n.Shape[k] != m.Shape[k] {
				if d.Axes[v] == nil {
					d.Axes[v] = make([]bool, len(n.Shape))
				}
				d.Axes[v][k] = true
			}
		}
		if n.Op == ir.OpConst && n.Const != m.Const {
			d.Scale[v] = int(n.Const.F) / b
		}
	}
	mod, err := codegen.GenerateDynamic(p, "k_"+name, codegen.Target{}, d)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// withoutFixedEntry drops comments and the entry that runs every group
// at the trace's size, which are all that may differ between sizes.
func withoutFixedEntry(text, entry string) string {
	var b strings.Builder
	skip := false
	for line := range strings.Lines(text) {
		switch {
		case skip:
			skip = line != "}\n"
		case strings.HasPrefix(line, "define void @"+entry+"("):
			skip = true
		case !strings.HasPrefix(line, ";"):
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestDynamicModules checks that a dynamic module is the same text at two
// batch sizes, and pins one size's text in testdata/NAME.ll for the
// modules without a tiled matmul (those run to thousands of lines).
func TestDynamicModules(t *testing.T) {
	for name := range dynamicCases {
		t.Run(name, func(t *testing.T) {
			a, b := dynamicAt(t, name, 61), dynamicAt(t, name, 67)
			checkStructure(t, a)
			if x, y := withoutFixedEntry(a.Text, a.Entry), withoutFixedEntry(b.Text, b.Entry); x != y {
				t.Errorf("the module depends on the batch size:\n%s", firstDiff(x, y))
			}
			if !strings.Contains(a.Text, "i64 %end, i64 %size) #1 {") {
				t.Errorf("group functions do not take the size")
			}
			if strings.Contains(dynamicCases[name], "matmul") {
				return
			}
			checkGolden(t, name, a.Text)
		})
	}
}
