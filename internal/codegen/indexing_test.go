package codegen_test

import (
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
)

// indexGoldenCases pin the code of the indexing and random ops in
// testdata/NAME.ll, like goldenCases.
var indexGoldenCases = map[string]string{
	// A gather of rows fused with an elementwise consumer: one loop nest,
	// the bounds check's cold call, the error slot as the last parameter.
	"take_fused": `graph {
  %0 = param 0 : f32[10,4]
  %1 = param 1 : i32[6]
  %2 = take %0, %1 axes=[0] : f32[6,4]
  %3 = const 2 : f32[6,4]
  %4 = mul %2, %3 : f32[6,4]
  return %4
}`,
	"scatter_add": `graph {
  %0 = param 0 : f32[5,3]
  %1 = param 1 : i64[4]
  %2 = param 2 : f32[4,3]
  %3 = scatter_add %0, %1, %2 axes=[0] : f32[5,3]
  return %3
}`,
	"dynamic_slice": `graph {
  %0 = param 0 : u8[8,8]
  %1 = param 1 : i32[]
  %2 = param 2 : i64[]
  %3 = dynamic_slice %0, %1, %2 : u8[3,4]
  return %3
}`,
	// A uniform root written a block at a time, with a partial last block;
	// a normal draw fused into an add; split keys.
	"random": `graph {
  %0 = param 0 : i32[2]
  %1 = random_uniform %0 : f32[10]
  %2 = random_normal %0 : f64[3]
  %3 = param 1 : f64[3]
  %4 = add %2, %3 : f64[3]
  %5 = split_key %0 : i32[2,2]
  return %1, %4, %5
}`,
}

func generateIndexing(t *testing.T, name string) *codegen.Module {
	t.Helper()
	return generateText(t, name, indexGoldenCases[name])
}

func TestGoldenIndexing(t *testing.T) {
	for name := range indexGoldenCases {
		t.Run(name, func(t *testing.T) {
			mod := generateIndexing(t, name)
			checkStructure(t, mod)
			checkGolden(t, name, mod.Text)
		})
	}
}

// TestErrorSlot: modules that check indices take the error slot after
// their buffers; the others have none.
func TestErrorSlot(t *testing.T) {
	for name, want := range map[string]int{"take_fused": 3, "scatter_add": 4, "dynamic_slice": -1, "random": -1} {
		mod := generateIndexing(t, name)
		if mod.ErrorSlot != want {
			t.Errorf("%s: ErrorSlot %d, want %d (slots %v)", name, mod.ErrorSlot, want, mod.Slots)
		}
		if checks := strings.Contains(mod.Text, "@gojit.index_error("); checks != (want >= 0) {
			t.Errorf("%s: calls the index error path: %v", name, checks)
		}
	}
}
