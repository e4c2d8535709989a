package gojit

import "github.com/gojit/gojit/internal/ir"

// Float16 and BFloat16 in traced code: the IR carries them only through
// params, constants, casts, layout ops and Where; every other op is
// recorded on Float32 operands and its Float32 result cast back, so the
// kernel computes in Float32 (fused, the casts cost a conversion at each
// load and store) and each op's result is rounded to the half dtype.

// promoteDTypes is the dtype two strongly typed operands are converted to:
// the later in the order Bool < Uint8 < Int32 < Int64 < Float16 <
// BFloat16 < Float32 < Float64, except that Float16 with BFloat16 is
// Float32 (neither holds the other), as in JAX.
func promoteDTypes(a, b ir.DType) ir.DType {
	if a.IsHalf() && b.IsHalf() && a != b {
		return ir.Float32
	}
	return max(a, b)
}

// halfOperand returns the half dtype of n's operands when n is an op that
// computes (not a cast, layout op, select or source), else InvalidDType.
func halfOperand(tr *tracer, n *ir.Node) ir.DType {
	switch n.Op.Kind() {
	case ir.KindCast, ir.KindLayout, ir.KindSelect, ir.KindSource,
		ir.KindControl, ir.KindGet: // control flow moves its state as it is
		return ir.InvalidDType
	}
	for _, a := range n.Args {
		if a >= 0 && int(a) < len(tr.g.Nodes) && tr.g.Nodes[a].DType.IsHalf() {
			return tr.g.Nodes[a].DType
		}
	}
	return ir.InvalidDType
}

// addInFloat32 records n with its half operands widened to Float32, and
// narrows a Float32 result back to h (a Bool or Int64 result, of a
// comparison or an argmax, stays as it is).
func (tr *tracer) addInFloat32(n ir.Node, h ir.DType, pcs callStack) *Tensor {
	args := make([]ir.Value, len(n.Args))
	for i, a := range n.Args {
		args[i] = a
		if tr.g.Nodes[a].DType.IsHalf() {
			w := tr.add(ir.Node{Op: ir.OpCast, Args: []ir.Value{a}, DType: ir.Float32}, pcs)
			if w.v == poison {
				return w
			}
			args[i] = w.v
		}
	}
	n.Args = args
	r := tr.add(n, pcs)
	if r.v == poison || tr.node(r.v).DType != ir.Float32 {
		return r
	}
	return tr.add(ir.Node{Op: ir.OpCast, Args: []ir.Value{r.v}, DType: h}, pcs)
}
