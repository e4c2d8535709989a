package runtime

import (
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// Splitting a nest across threads pays when its work, weighted by what an
// element costs, exceeds parallelWork. The weights are rough cycle counts
// relative to an add: BenchmarkParallelThreshold found that two threads
// beat one on a streaming add from about 20,000 elements, but on an
// exp-tanh chain already at 4,000 (see ParallelWork).
func opWeight(op ir.Op) int {
	switch op {
	case ir.OpExp, ir.OpLog, ir.OpSin, ir.OpCos, ir.OpTanh, ir.OpSigmoid, ir.OpPow:
		return 20
	case ir.OpDiv, ir.OpSqrt, ir.OpRsqrt:
		return 2
	case ir.OpRandomUniform, ir.OpSplitKey: // ten Philox rounds (a quarter of one per element for a uniform root)
		return 10
	case ir.OpRandomNormal: // Philox, then a log, a sqrt and a cos in float64
		return 40
	}
	return 0
}

// chunkWork is the least weighted work a loop is split into per chunk
// beyond one chunk per thread: about a millisecond of a streaming loop,
// where claiming a chunk (a compare-and-swap that moves a cache line
// between cores, then a cgo call) costs well under a thousandth of it.
const chunkWork = 4 << 20

// nestWeights returns, per loop nest, 1 plus the weights of the ops its
// groups compute.
func nestWeights(p *passes.Plan) []int {
	nestOf := make([]int, len(p.Roots))
	for ni, nest := range p.Nests {
		for _, gi := range nest {
			nestOf[gi] = ni
		}
	}
	w := make([]int, len(p.Nests))
	for i := range w {
		w[i] = 1
	}
	for v, gi := range p.Group {
		if gi >= 0 {
			w[nestOf[gi]] += opWeight(p.Graph.Nodes[v].Op)
		}
	}
	return w
}
