package passes

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit/internal/ir"
)

func TestTableOrder(t *testing.T) {
	if err := checkTable(table); err != nil {
		t.Fatal(err)
	}
	if got := Names(); !slices.Equal(got, []string{"fold", "simplify", "cse", "hoist", "dce"}) {
		t.Errorf("Names() = %v", got)
	}
	if p, ok := Lookup("cse"); !ok || p.Name != "cse" || p.About == "" {
		t.Errorf("Lookup(cse) = %+v, %v", p, ok)
	}
	if _, ok := Lookup("nosuch"); ok {
		t.Error("Lookup(nosuch) found a pass")
	}
	id := func(g *ir.Graph) (*ir.Graph, error) { return g, nil }
	for _, tc := range []struct {
		name  string
		table []Pass
		want  string // in the error; "" for none
	}{
		{"good", []Pass{{Name: "a", Run: id}, {Name: "b", Run: id, After: []string{"a"}}}, ""},
		{"wrong order", []Pass{{Name: "b", Run: id, After: []string{"a"}}, {Name: "a", Run: id}}, `"b" must come after "a"`},
		{"self", []Pass{{Name: "a", Run: id, After: []string{"a"}}}, `"a" must come after "a"`},
		{"missing", []Pass{{Name: "a", Run: id, After: []string{"z"}}}, "not in the table"},
		{"duplicate", []Pass{{Name: "a", Run: id}, {Name: "a", Run: id}}, "twice"},
		{"unnamed", []Pass{{Run: id}}, "no name"},
		{"no run", []Pass{{Name: "a"}}, "no Run"},
	} {
		err := checkTable(tc.table)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: checkTable = %v, want error containing %q", tc.name, err, tc.want)
		}
	}
}

// softmaxText is a traced row softmax, as the tracer records it: a
// broadcast scalar, a reduction over a unit axis and a duplicated exp.
const softmaxText = `graph {
  %0 = param 0 : f32[4,8]
  %1 = reduce_max %0 axes=[1] : f32[4]  @ s.go:1
  %2 = reshape %1 : f32[4,1]  @ s.go:1
  %3 = broadcast %2 : f32[4,8]  @ s.go:1
  %4 = sub %0, %3 : f32[4,8]  @ s.go:1
  %5 = exp %4 : f32[4,8]  @ s.go:1
  %6 = exp %4 : f32[4,8]  @ s.go:2
  %7 = reduce_sum %6 axes=[1] : f32[4]  @ s.go:2
  %8 = reshape %7 : f32[4,1]  @ s.go:2
  %9 = reduce_max %8 axes=[1] : f32[4]  @ s.go:3
  %10 = reshape %9 : f32[4,1]  @ s.go:3
  %11 = broadcast %10 : f32[4,8]  @ s.go:3
  %12 = const 1 : f32[]  @ s.go:4
  %13 = broadcast %12 : f32[4,8]  @ s.go:4
  %14 = mul %5, %13 : f32[4,8]  @ s.go:4
  %15 = div %14, %11 : f32[4,8]  @ s.go:4
  return %15
}
`

func TestOptimize(t *testing.T) {
	g := mustParse(t, softmaxText)
	var seen []string
	out, err := Optimize(g, Options{Verify: true, Observe: func(p Pass, g *ir.Graph, took time.Duration) {
		if err := ir.Verify(g); err != nil {
			t.Errorf("after %s: %v", p.Name, err)
		}
		seen = append(seen, p.Name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, Names()) {
		t.Errorf("observed passes %v, want %v", seen, Names())
	}
	want := `graph {
  %0 = param 0 : f32[4,8]
  %1 = reduce_max %0 axes=[1] : f32[4]  @ s.go:1
  %2 = reshape %1 : f32[4,1]  @ s.go:1
  %3 = broadcast %2 : f32[4,8]  @ s.go:1
  %4 = sub %0, %3 : f32[4,8]  @ s.go:1
  %5 = exp %4 : f32[4,8]  @ s.go:1
  %6 = reduce_sum %5 axes=[1] : f32[4]  @ s.go:2
  %7 = reshape %6 : f32[4,1]  @ s.go:2
  %8 = broadcast %7 : f32[4,8]  @ s.go:3
  %9 = div %5, %8 : f32[4,8]  @ s.go:4
  return %9
}
`
	if got := ir.Print(out, true); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	checkEquivalent(t, g, out, 1)
}

func TestOptimizeCatchesBrokenPasses(t *testing.T) {
	g := mustParse(t, softmaxText)
	for _, tc := range []struct {
		name string
		run  func(*ir.Graph) (*ir.Graph, error)
		want string
	}{
		{"fails", func(*ir.Graph) (*ir.Graph, error) { return nil, errors.New("boom") }, "broken: boom"},
		{"drops an output", func(g *ir.Graph) (*ir.Graph, error) {
			c := g.Clone()
			c.Outputs = nil
			return c, nil
		}, "interface"},
		{"changes a param", func(g *ir.Graph) (*ir.Graph, error) {
			c := g.Clone()
			c.Nodes[0].Shape = ir.Shape{32}
			return c, nil
		}, "param 0 changed type"},
		{"breaks an invariant", func(g *ir.Graph) (*ir.Graph, error) {
			c := g.Clone()
			c.Nodes[5].DType = ir.Float64 // exp of f32 recorded as f64
			return c, nil
		}, "broken produced an invalid graph"},
	} {
		_, err := optimize([]Pass{{Name: "broken", Run: tc.run}}, g, Options{Verify: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// BenchmarkOptimize measures the whole pipeline on the traced softmax, the
// compile-time cost the passes add to every new signature.
func BenchmarkOptimize(b *testing.B) {
	g := mustParse(b, softmaxText)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Optimize(g, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
