package ir

import (
	"strings"
	"testing"
)

// whileSample counts %1 up to 10 while doubling %0, with a nested cond in
// the body and a capture (%2).
const whileSample = `graph {
  %0 = param 0 : f32[4]
  %1 = param 1 : i32[]
  %2 = param 2 : f32[4]
  %3 = while %0, %1, %2 : (f32[4], i32[]) {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = const 10 : i32[]
    %4 = lt %1, %3 : bool[]
    return %4
  } {
    %0 = param 0 : f32[4]
    %1 = param 1 : i32[]
    %2 = param 2 : f32[4]
    %3 = const 1 : i32[]
    %4 = add %1, %3 : i32[]
    %5 = const 5 : i32[]
    %6 = lt %1, %5 : bool[]
    %7 = cond %6, %0, %2 : (f32[4])  @ main.go:7 {
      %0 = param 0 : f32[4]
      %1 = param 1 : f32[4]
      %2 = add %0, %1 : f32[4]
      return %2
    } {
      %0 = param 0 : f32[4]
      %1 = param 1 : f32[4]
      return %0
    }
    %8 = get %7 0 : f32[4]
    return %8, %4
  }
  %4 = get %3 0 : f32[4]
  %5 = get %3 1 : i32[]
  return %4, %5
}
`

func TestControlRoundTrip(t *testing.T) {
	g, err := Parse(whileSample)
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(g, true); got != whileSample {
		t.Errorf("round trip differs:\n got:\n%s\nwant:\n%s", got, whileSample)
	}
	w := &g.Nodes[3]
	if w.Op != OpWhile || len(w.Regions) != 2 || Carried(w) != 2 {
		t.Fatalf("node 3 = %s with %d regions, %d carried", w.Op, len(w.Regions), Carried(w))
	}
	if c := &w.Regions[1].Nodes[7]; c.Op != OpCond || c.Pos != "main.go:7" {
		t.Errorf("nested cond = %s at %q", c.Op, c.Pos)
	}
	if !HasControl(g) || HasControl(w.Regions[0]) {
		t.Error("HasControl wrong")
	}
	// Clone is deep: changing the clone's region leaves g alone.
	c := g.Clone()
	c.Nodes[3].Regions[0].Nodes[3].Const = Const{I: 11}
	if Print(c, false) == Print(g, false) {
		t.Error("Clone shares regions")
	}
}

// TestHashSeesRegions: the canonical hash, which keys the compile cache,
// changes with anything inside a region.
func TestHashSeesRegions(t *testing.T) {
	g, err := Parse(whileSample)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(*Graph){
		func(c *Graph) { c.Nodes[3].Regions[0].Nodes[3].Const = Const{I: 11} },
		func(c *Graph) { c.Nodes[3].Regions[1].Nodes[7].Regions[0].Nodes[2].Op = OpMul },
		func(c *Graph) { c.Nodes[3].Regions[1].Nodes[7].Regions[1].Outputs[0] = 1 },
	} {
		c := g.Clone()
		edit(c)
		if Hash(c) == Hash(g) {
			t.Errorf("hash unchanged by an edit inside a region:\n%s", Print(c, false))
		}
	}
	h := g.Clone()
	h.Nodes[3].Regions[1].Nodes[7].Pos = "other.go:1"
	if Hash(h) != Hash(g) {
		t.Error("hash depends on a position inside a region")
	}
}

func TestControlVerifyErrors(t *testing.T) {
	good := whileSample
	for _, tc := range []struct{ from, to, want string }{
		// cond region returns an i32 instead of a bool
		{"    %4 = lt %1, %3 : bool[]\n    return %4", "    %4 = lt %1, %3 : bool[]\n    return %3", "must return one bool[]"},
		// body returns the state in the wrong order
		{"return %8, %4\n", "return %4, %8\n", "value 0 differs"},
		// branches disagree
		{"      return %0\n    }\n", "      %2 = const 1 : f32[3]\n      return %2\n    }\n", "then returns (f32[4]), else returns (f32[3])"},
		// the cond has a parameter too few
		{"  } {\n    %0 = param 0 : f32[4]\n    %1 = param 1 : i32[]\n    %2 = param 2 : f32[4]\n    %3 = const 1", "  } {\n    %0 = param 0 : f32[4]\n    %1 = param 1 : i32[]\n    %3 = const 1", "out of order"},
		// get out of range
		{"%5 = get %3 1 : i32[]", "%5 = get %3 2 : i32[]", "result 2 out of range"},
		// a tuple used directly
		{"%5 = get %3 1 : i32[]", "%5 = neg %3 : i32[]", "read one result with get"},
		// declared result types wrong
		{"%3 = while %0, %1, %2 : (f32[4], i32[])", "%3 = while %0, %1, %2 : (f32[4], i64[])", "recorded types"},
	} {
		text := strings.Replace(good, tc.from, tc.to, 1)
		if text == good {
			t.Fatalf("edit %q not applied", tc.from)
		}
		_, err := Parse(text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("edit %q: err = %v, want %q", tc.to, err, tc.want)
		}
	}
}
