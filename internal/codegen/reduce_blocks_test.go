package codegen_test

import (
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// TestReduceBlocksModule checks the shape of a module whose whole-array
// reduction is folded in blocks: a nest of its own that runs first over
// the blocks, may be split, and writes one partial per block into a
// scratch buffer the reduction's group then reads; and that a small
// reduction, a product of floats and a reduction that keeps an axis do
// not take that path.
func TestReduceBlocksModule(t *testing.T) {
	cases := []struct {
		name, graph string
		blocks      int // 0: not in blocks
	}{
		{"sum_f32", `graph {
  %0 = param 0 : f32[300,701]
  %1 = reduce_sum %0 axes=[0,1] : f32[]
  return %1
}`, 13}, // 210,300 elements, flat: 12.8 blocks of 16,384
		{"max_rows", `graph {
  %0 = param 0 : f64[1000,70]
  %1 = iota axes=[1] : f64[1000,70]
  %2 = add %0, %1 : f64[1000,70]
  %3 = reduce_max %2 axes=[0,1] : f64[]
  return %3
}`, 5}, // rows of 70: 234 rows per block
		{"small", `graph {
  %0 = param 0 : f32[100,100]
  %1 = reduce_sum %0 axes=[0,1] : f32[]
  return %1
}`, 0},
		{"prod_f32", `graph {
  %0 = param 0 : f32[300,300]
  %1 = reduce_prod %0 axes=[0,1] : f32[]
  return %1
}`, 0},
		{"kept_axis", `graph {
  %0 = param 0 : f32[300,701]
  %1 = reduce_sum %0 axes=[1] : f32[300]
  return %1
}`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ir.Parse(c.graph)
			if err != nil {
				t.Fatal(err)
			}
			mod, err := codegen.GenerateSplit(passes.Fuse(g), "f", codegen.Target{}, func(int, codegen.Group) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(mod.Text, "define internal void @f.q0(")
			if c.blocks == 0 {
				if has || len(mod.Scratch) != 0 || len(mod.Groups) != 1 {
					t.Fatalf("reduced in blocks: scratch %v, groups %+v", mod.Scratch, mod.Groups)
				}
				return
			}
			dt := g.Node(g.Outputs[0]).DType
			if !has || len(mod.Groups) != 2 || len(mod.Scratch) != 1 {
				t.Fatalf("not reduced in blocks: scratch %v, groups %+v", mod.Scratch, mod.Groups)
			}
			if b, s := mod.Groups[0], mod.Scratch[0]; b.Extent != c.blocks || !b.Split || s.Bytes != c.blocks*dt.Size() || s.Nest != 0 {
				t.Errorf("blocks' nest %+v, scratch %+v: want %d blocks, split", b, s, c.blocks)
			}
			if m := mod.Groups[1]; m.Extent != 1 || m.Split {
				t.Errorf("combining group %+v: want extent 1, not split", m)
			}
		})
	}
}
