package passes

import (
	"slices"
	"strconv"

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
	// The key reads as fmt's "%d %d %v a%v x%v s%v t%v i%d c%x" of the
	// fields (cseKeyFmt in the tests), appended without fmt: this is a
	// tenth of a fresh process's first cached kernel otherwise.
	b := make([]byte, 0, 64)
	b = strconv.AppendInt(b, int64(n.Op), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(n.DType), 10)
	b = append(b, ' ', '[')
	for i, d := range n.Shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(d), 10)
	}
	b = append(b, ']')
	args := n.Args
	if commutes(n.Op) {
		args = slices.Clone(args)
		slices.Sort(args)
	}
	b = appendList(append(b, " a"...), args)
	b = appendList(append(b, " x"...), n.Axes)
	b = appendList(append(b, " s"...), n.Starts)
	b = appendList(append(b, " t"...), n.Steps)
	b = strconv.AppendInt(append(b, " i"...), int64(n.Index), 10)
	if n.Op == ir.OpConst {
		b = strconv.AppendUint(append(b, " c"...), constBits(n.DType, n.Const), 16)
	}
	return string(b)
}

// appendList appends xs as fmt's %v prints a slice: "[1 2 3]".
func appendList[T ~int | ~int32](b []byte, xs []T) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
