package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// CSE (common-subexpression elimination) makes every node that computes
// the same thing as an earlier one use the earlier one:
//
//	%2 = exp %0 : f32[8]              %2 = exp %0 : f32[8]
//	%3 = exp %0 : f32[8]        =>    %3 = exp %0 : f32[8]   (dead)
//	%4 = add %2, %3 : f32[8]          %4 = add %2, %2 : f32[8]
//
// Two nodes are the same when they have the same op, result type,
// attributes and operands (after their own operands were merged), so whole
// duplicated expressions merge in one pass. Constants merge by value, as
// the interpreter materializes it: f32 consts 0.1 and 0.10000000149011612
// are one value, +0 and -0 are two, and all NaNs are one. The operands of
// commutative ops (add, mul, max, min, eq, ne) are compared as a set, since
// swapping them changes no bit of the result. Parameters never merge.
//
// The IR is pure (no op has side effects or reads mutable state), so
// merging is always sound. The first node keeps its source position.
func CSE(g *ir.Graph) (*ir.Graph, error) {
	seen := make(map[string]ir.Value)
	return rewrite(g, func(r *rewriter, _ ir.Value, n ir.Node) (ir.Value, error) {
		if n.Op == ir.OpParam || n.Op.Kind() == ir.KindControl {
			// Control-flow ops own regions, which the key leaves out.
			return r.emit(n)
		}
		key := cseKey(&n)
		if v, ok := seen[key]; ok {
			return v, nil
		}
		v, err := r.emit(n)
		if err == nil {
			seen[key] = v
		}
		return v, err
	})
}

// cseKey is a string that two nodes share exactly when they compute the
// same value from the same operands.
func cseKey(n *ir.Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d %v", n.Op, n.DType, n.Shape)
	args := n.Args
	if commutes(n.Op) {
		args = slices.Clone(args)
		slices.Sort(args)
	}
	fmt.Fprintf(&b, " a%v x%v s%v t%v i%d", args, n.Axes, n.Starts, n.Steps, n.Index)
	if n.Op == ir.OpConst {
		fmt.Fprintf(&b, " c%x", constBits(n.DType, n.Const))
	}
	return b.String()
}
