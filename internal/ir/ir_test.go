package ir

import (
	"strings"
	"testing"
)

const sample = `graph {
  %0 = param 0 : f32[4,5]
  %1 = param 1 : f32[5]
  %2 = broadcast %1 : f32[4,5]
  %3 = add %0, %2 : f32[4,5]  @ main.go:12
  %4 = const 0.5 : f32[4,5]
  %5 = mul %3, %4 : f32[4,5]
  %6 = reduce_sum %5 axes=[1] : f32[4]
  %7 = transpose %5 axes=[1,0] : f32[5,4]
  %8 = slice %7 starts=[1,0] steps=[2,1] : f32[2,4]
  %9 = concat %8, %8 axes=[0] : f32[4,4]
  %10 = argmax %0 axes=[1] : i64[4]
  %11 = cast %10 : f32[4]
  %12 = lt %6, %11 : bool[4]
  %13 = where %12, %6, %11 : f32[4]
  %14 = iota axes=[0] : i32[3]
  %15 = reshape %0 : f32[20]
  %16 = matmul %0, %7 : f32[4,4]
  %17 = const nan : f64[]
  %18 = const -3 : i64[2]
  %19 = const true : bool[]
  return %13, %9, %14, %15, %16, %17, %18, %19
}
`

func TestPrintParseRoundTrip(t *testing.T) {
	g, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(g, true); got != sample {
		t.Errorf("round trip differs:\n got:\n%s\nwant:\n%s", got, sample)
	}
	if g.Nodes[3].Pos != "main.go:12" {
		t.Errorf("position = %q", g.Nodes[3].Pos)
	}
	if strings.Contains(Print(g, false), "@") {
		t.Error("Print without positions printed a position")
	}
}

func TestInferErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"%0 = param 0 : f32[4]\n%1 = param 1 : f32[5]\n%2 = add %0, %1 : f32[4]", "shapes differ"},
		{"%0 = param 0 : f32[4]\n%1 = param 1 : i32[4]\n%2 = add %0, %1 : f32[4]", "dtypes differ"},
		{"%0 = param 0 : i32[4]\n%1 = exp %0 : i32[4]", "needs a float"},
		{"%0 = param 0 : bool[4]\n%1 = neg %0 : bool[4]", "bool"},
		{"%0 = param 0 : f32[4]\n%1 = reshape %0 : f32[5]", "cannot reshape"},
		{"%0 = param 0 : f32[4,5]\n%1 = reduce_sum %0 axes=[1,0] : f32[]", "sorted"},
		{"%0 = param 0 : f32[4,5]\n%1 = reduce_sum %0 axes=[2] : f32[4,5]", "out of range"},
		{"%0 = param 0 : f32[4,5]\n%1 = transpose %0 axes=[0,0] : f32[4,4]", "permutation"},
		{"%0 = param 0 : f32[4]\n%1 = broadcast %0 : f32[3,5]", "cannot broadcast"},
		{"%0 = param 0 : f32[4]\n%1 = slice %0 starts=[2] steps=[1] : f32[3]", "out of range"},
		{"%0 = param 0 : f32[4,3]\n%1 = param 1 : f32[4,3]\n%2 = matmul %0, %1 : f32[4,3]", "contracting"},
		{"%0 = param 0 : f32[4]\n%1 = where %0, %0, %0 : f32[4]", "condition must be bool"},
		{"%0 = param 0 : f32[4]\n%1 = add %0, %7 : f32[4]", "not defined"},
		{"%0 = param 0 : f32[4]\n%1 = add %0, %0 : f32[5]", "recorded type"},
		{"%0 = param 0 : f32[4]\n%1 = frob %0 : f32[4]", "unknown op"},
		{"%0 = param 0 : f32[4]\n%1 = reduce_sum %0 axes=0] : f32[]", "expected [..]"},
	} {
		_, err := Parse("graph {\n" + tc.text + "\nreturn %0\n}\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.text, err, tc.want)
		}
	}
}

func TestHashSeesWiring(t *testing.T) {
	// GT2 hashed op names only, so these two graphs collided.
	a := "graph {\n%0 = param 0 : f32[4]\n%1 = param 1 : f32[4]\n%2 = sub %0, %1 : f32[4]\nreturn %2\n}\n"
	b := "graph {\n%0 = param 0 : f32[4]\n%1 = param 1 : f32[4]\n%2 = sub %1, %0 : f32[4]\nreturn %2\n}\n"
	ga, err := Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if Hash(ga) == Hash(gb) {
		t.Error("graphs differing only in wiring hash equal")
	}
	gc := ga.Clone()
	gc.Nodes[2].Pos = "elsewhere.go:3"
	if Hash(ga) != Hash(gc) {
		t.Error("position changed the hash")
	}
}

func TestCompact(t *testing.T) {
	g, err := Parse("graph {\n%0 = param 0 : f32[4]\n%1 = exp %0 : f32[4]\n%2 = neg %0 : f32[4]\nreturn %2\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	c, remap := Compact(g)
	if len(c.Nodes) != 2 || remap[1] != -1 || remap[2] != 1 || c.Outputs[0] != 1 {
		t.Fatalf("compact = %s remap %v", c, remap)
	}
	if err := Verify(c); err != nil {
		t.Fatal(err)
	}
}

func TestBroadcastShapes(t *testing.T) {
	for _, tc := range []struct {
		a, b, want Shape
		ok         bool
	}{
		{Shape{3, 1}, Shape{4}, Shape{3, 4}, true},
		{Shape{}, Shape{2, 2}, Shape{2, 2}, true},
		{Shape{3}, Shape{4}, nil, false},
		{Shape{2, 1, 5}, Shape{3, 1}, Shape{2, 3, 5}, true},
	} {
		got, ok := BroadcastShapes(tc.a, tc.b)
		if ok != tc.ok || (ok && !got.Equal(tc.want)) {
			t.Errorf("BroadcastShapes(%v, %v) = %v, %v", tc.a, tc.b, got, ok)
		}
	}
}
