package passes

import "github.com/gojit/gojit/internal/ir"

// DCE (dead-code elimination) removes the nodes no output depends on and
// renumbers the rest densely, in the same order:
//
//	%0 = param 0 : f32[8]             %0 = param 0 : f32[8]
//	%1 = exp %0 : f32[8]        =>    %1 = neg %0 : f32[8]
//	%2 = neg %0 : f32[8]              return %1
//	return %2
//
// Parameters are kept even when unused: they are the function's signature.
// Since the IR has no side effects, a node that no output reads can go.
// The other passes leave the nodes they replace behind for this one, so
// that their own output keeps the numbering of their input.
func DCE(g *ir.Graph) (*ir.Graph, error) {
	out, _ := ir.Compact(g)
	return out, nil
}
