package codegen

import (
	"fmt"
	"strings"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// A summed matmul epilogue (GT2's mean(relu(x@w)), passes.matMulSum) ran
// as one chunk, since its sum is the group's: the whole 100x100x100
// product stayed on one thread. A large enough one is instead cut into
// sumSplitChunks chunks of rows, fixed by the shape: each computes its
// rows of the product on its own stack, sums its part of the epilogue
// and stores that partial in a scratch buffer (%mmpart); a small
// function after it adds the partials in chunk order into the root. The
// chunks are the same on any number of threads (on one they run one
// after the other), so the result is the same bits.

// sumSplitChunks is the number of chunks of a split summed matmul: the
// host's two threads each take one.
const sumSplitChunks = 2

// sumSplitMACs is the fewest multiply-adds a summed matmul must do to be
// split: each chunk packs all of B for itself, which costs about as much
// as the arithmetic of a chunk below it.
const sumSplitMACs = 1 << 19

// sumSplit describes a summed matmul computed in chunks of rows.
type sumSplit struct {
	chunks int
	scrIdx int // the partials' index in Module.Scratch
}

// splitSummedMatMul returns how nest's summed matmul is split, or nil
// when it runs as one chunk: a static product of one batch with at least
// sumSplitMACs multiply-adds and a whole tile of rows per chunk.
func splitSummedMatMul(p *passes.Plan, nest []int, u *unit) *sumSplit {
	if len(nest) != 1 || u.dyn != nil {
		return nil
	}
	mm := p.MatMul[nest[0]]
	r := p.Roots[nest[0]]
	if mm < 0 || p.Graph.Node(r).Op != ir.OpReduceSum {
		return nil
	}
	a, b := p.Graph.Node(p.Graph.Node(mm).Args[0]).Shape, p.Graph.Node(p.Graph.Node(mm).Args[1]).Shape
	rank := a.Rank()
	M, K, N := a[rank-2], a[rank-1], b[rank-1]
	if a[:rank-2].Size() != 1 || M < sumSplitChunks*mmRows || M*K*N < sumSplitMACs {
		return nil
	}
	return &sumSplit{chunks: sumSplitChunks}
}

// combineSums writes the function that adds the partials of a split
// summed matmul in chunk order and stores the sum in the root.
func combineSums(out *strings.Builder, name string, dt ir.DType, chunks int) {
	t, mt := regType(dt), memType(dt)
	fmt.Fprintf(out, "define internal void @%s(ptr noalias readonly %%partials, ptr noalias %%out, i64 %%start, i64 %%end) #1 {\nentry:\n", name)
	fmt.Fprintf(out, "  %%v0 = load %s, ptr %%partials\n", mt)
	sum := "%v0"
	for c := 1; c < chunks; c++ {
		fmt.Fprintf(out, "  %%p%d = getelementptr inbounds %s, ptr %%partials, i64 %d\n", c, mt, c)
		fmt.Fprintf(out, "  %%v%d = load %s, ptr %%p%d\n", c, mt, c)
		fmt.Fprintf(out, "  %%s%d = fadd %s %s, %%v%d\n", c, t, sum, c)
		sum = fmt.Sprintf("%%s%d", c)
	}
	fmt.Fprintf(out, "  store %s %s, ptr %%out\n  ret void\n}\n\n", t, sum)
}
