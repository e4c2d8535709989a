package codegen_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// matmulGraph is the text of a graph computing an m x k by k x n float32
// product.
func matmulGraph(m, k, n int) string {
	return fmt.Sprintf(`graph {
  %%0 = param 0 : f32[%d,%d]
  %%1 = param 1 : f32[%d,%d]
  %%2 = matmul %%0, %%1 : f32[%d,%d]
  return %%2
}`, m, k, k, n, m, n)
}

// TestMatMulPlain checks which products run as the plain loop nest
// (mmPlainK in matmul.go): short matrix-vector ones, without tiles of
// one-lane vectors; longer sums and wider products keep them. The
// results of both are checked against the interpreter by the root
// package's differential tests (TestDiff*, FuzzCompiledVsInterpreter).
func TestMatMulPlain(t *testing.T) {
	for _, c := range []struct {
		m, k, n int
		plain   bool
	}{
		{256, 3, 1, true},
		{1000, 16, 1, true},
		{3, 256, 1, false},   // a long sum: tiles keep 12 sums in registers
		{2000, 16, 1, false}, // more than mmPlainWork multiply-adds
		{512, 8, 4, false},   // wider than one column
	} {
		name := fmt.Sprintf("%dx%dx%d", c.m, c.k, c.n)
		mod := generateText(t, "mm"+name, matmulGraph(c.m, c.k, c.n))
		checkStructure(t, mod)
		tiled := strings.Contains(mod.Text, "x float>")
		if tiled == c.plain {
			t.Errorf("%s: tiled %v, want plain %v", name, tiled, c.plain)
		}
	}
}

// TestMatMulLoopsDone checks that the microkernel's k loop, vectorized by
// hand, asks LLVM neither to vectorize nor to unroll it.
func TestMatMulLoopsDone(t *testing.T) {
	mod := generateText(t, "mm16", matmulGraph(16, 16, 16))
	if !strings.Contains(mod.Text, `!{!"llvm.loop.vectorize.enable", i1 false}`) {
		t.Fatalf("no loop of the 16x16x16 product is marked done:\n%s", mod.Text)
	}
	// The k loop is the first to close after a multiply-add of whole
	// vectors.
	body := mod.Text[strings.Index(mod.Text, "@llvm.fmuladd.v16f32"):]
	m := regexp.MustCompile(`, !llvm.loop (!\d+)\n`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no loop closes after the microkernel's multiply-adds:\n%s", mod.Text)
	}
	id := m[1]
	for _, line := range strings.Split(mod.Text, "\n") {
		if strings.HasPrefix(line, id+" = distinct") && !strings.HasSuffix(line, "; done") {
			t.Errorf("the microkernel's k loop %s is not marked done: %s", id, line)
		}
	}
}
