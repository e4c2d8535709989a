package ir

import (
	"errors"
	"strings"
	"testing"
)

const indexingGraph = `graph {
  %0 = param 0 : f32[5,3]
  %1 = param 1 : i32[4]
  %2 = take %0, %1 axes=[0] : f32[4,3]
  %3 = param 2 : i32[2]
  %4 = random_uniform %3 : f32[4,3]
  %5 = add %2, %4 : f32[4,3]
  %6 = const 1 : i64[]
  %7 = dynamic_slice %0, %6, %6 : f32[2,2]
  %8 = split_key %3 : i32[3,2]
  %9 = scatter_add %0, %1, %5 axes=[0] : f32[5,3]
  %10 = param 3 : u8[5,2]
  %11 = take_along_axis %0, %10 axes=[1] : f32[5,2]
  %12 = random_normal %3 : f64[2,2]
  return %5, %7, %8, %9, %11, %12
}
`

func TestIndexingRoundTrip(t *testing.T) {
	g, err := Parse(indexingGraph)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(g, false); got != indexingGraph {
		t.Errorf("printed:\n%s\nwant:\n%s", got, indexingGraph)
	}
}

func TestIndexingInferErrors(t *testing.T) {
	// %0 is f32[5,3], %1 i32[4], %2 a key i32[2]; the node is %3.
	for _, tc := range []struct{ node, want string }{
		{"take %0, %1 axes=[2] : f32[4,3]", "axis [2] out of range"},
		{"take %0, %0 axes=[0] : f32[5,3,3]", "indices must be integers"},
		{"take_along_axis %0, %1 axes=[0] : f32[4]", "must have the rank"},
		{"scatter_add %0, %1, %0 axes=[0] : f32[5,3]", "updates have shape [5,3], want [4,3]"},
		{"dynamic_slice %0, %1, %1 : f32[2,2]", "must be a 0-D integer"},
		{"dynamic_slice %0 : f32[2,2]", "one start per axis"},
		{"random_uniform %1 : f32[3]", "key must be i32[2]"},
		{"random_uniform %2 : i32[3]", "produces f32 or f64"},
		{"split_key %2 : i32[3,3]", "produces i32[n,2]"},
	} {
		text := "graph {\n  %0 = param 0 : f32[5,3]\n  %1 = param 1 : i32[4]\n  %2 = param 2 : i32[2]\n  %3 = " +
			tc.node + "\n  return %3\n}\n"
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.node, err, tc.want)
		}
	}
}

func TestIndexError(t *testing.T) {
	g, err := Parse(indexingGraph)
	if err != nil {
		t.Fatal(err)
	}
	g.Nodes[11].Pos, g.Nodes[11].Call = "main.go:7", "TakeAlongAxis"
	e := NewIndexError(g, 11, 7, -9)
	want := "main.go:7: TakeAlongAxis: index -9 at indices[3,1] is out of range for axis 1 of size 3 (valid: -3 to 2)"
	if e.Error() != want {
		t.Errorf("got  %s\nwant %s", e, want)
	}
	if !errors.Is(e, ErrIndexOutOfRange) {
		t.Errorf("does not wrap ErrIndexOutOfRange")
	}
}
