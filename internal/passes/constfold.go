package passes

import (
	"fmt"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
)

// foldWork bounds the elements one folding evaluation may touch, so a
// reduction of a huge constant is left to run time rather than making the
// compile slow.
const foldWork = 1 << 16

// Fold replaces every node whose value is known at compile time by a
// constant:
//
//	%2 = const 3 : f32[1000]               %2 = const 3 : f32[1000]
//	%3 = exp %2 : f32[1000]           =>   %3 = const 20.08553695678711 : f32[1000]
//
// The IR's only literal is a splat (one value broadcast to a shape), so a
// value is folded when it is uniform and computable without the inputs:
//   - an op whose operands are all constants (elementwise ops, reductions,
//     argmax/argmin, matmul, and layout ops, which move a splat's copies
//     around; concat only when its operands hold the same value);
//   - any value with no elements (a const of that shape is the same empty
//     tensor), and so a reduction or matmul over an empty operand;
//   - an iota whose axis has at most one element (all zeros).
//
// The value is computed by the interpreter, on a copy of the op shrunk to
// one output element (a scalar for elementwise ops; one row of the reduced
// axes for a reduction), so the folded constant is bit for bit what running
// the graph would produce: the interpreter defines the IR's semantics.
func Fold(g *ir.Graph) (*ir.Graph, error) {
	return rewrite(g, foldNode)
}

func foldNode(r *rewriter, v ir.Value, n ir.Node) (ir.Value, error) {
	if n.Op == ir.OpParam || n.Op == ir.OpConst {
		return r.emit(n)
	}
	if k := n.Op.Kind(); k == ir.KindControl || k == ir.KindGet {
		return foldControl(r, n) // control.go
	}
	if n.Shape.Size() == 0 {
		return r.constant(&n, ir.Const{})
	}
	if n.Op == ir.OpIota {
		if n.Shape[n.Axes[0]] <= 1 {
			return r.constant(&n, ir.Const{})
		}
		return r.emit(n)
	}
	// An operand is known when it is a constant or empty (an empty
	// parameter has no data to wait for).
	vals := make([]ir.Const, len(n.Args))
	for i, a := range n.Args {
		c, ok := r.splat(a)
		if !ok && r.node(a).Shape.Size() != 0 {
			return r.emit(n)
		}
		vals[i] = c
	}
	switch n.Op {
	case ir.OpReshape, ir.OpTranspose, ir.OpBroadcast, ir.OpSlice:
		return r.constant(&n, vals[0])
	case ir.OpConcat:
		var c *ir.Const
		for i, a := range n.Args {
			if r.node(a).Shape.Size() == 0 {
				continue
			}
			if c != nil && !sameConst(n.DType, *c, vals[i]) {
				return r.emit(n) // not uniform: the IR has no literal for it
			}
			c = &vals[i]
		}
		return r.constant(&n, *c) // some operand is non-empty, since n is
	}
	c, ok, err := evalOne(r, &n, vals)
	if err != nil {
		return -1, err
	}
	if !ok {
		return r.emit(n)
	}
	return r.constant(&n, c)
}

// evalOne computes one output element of n, whose operands are the
// constants vals (any value for an empty operand), by running the
// interpreter on a copy of n whose operands are shrunk to what one output
// element reads. Every output element of such an op is computed from
// identical inputs in an identical order, so they are all equal to this
// one. It reports false when the evaluation would touch more than foldWork
// elements.
func evalOne(r *rewriter, n *ir.Node, vals []ir.Const) (ir.Const, bool, error) {
	shapes := make([]ir.Shape, len(n.Args))
	switch n.Op.Kind() {
	case ir.KindUnary, ir.KindCast, ir.KindBinary, ir.KindCompare, ir.KindSelect:
		// scalars: nil shapes
	case ir.KindReduce, ir.KindArgReduce:
		in := r.node(n.Args[0]).Shape
		s := make(ir.Shape, len(in))
		for i := range s {
			s[i] = 1
		}
		for _, ax := range n.Axes {
			s[ax] = in[ax]
		}
		shapes[0] = s
	case ir.KindMatMul:
		a, b := r.node(n.Args[0]).Shape, r.node(n.Args[1]).Shape
		k := a[len(a)-1]
		sa, sb := make(ir.Shape, len(a)), make(ir.Shape, len(b))
		for i := range sa {
			sa[i], sb[i] = 1, 1
		}
		sa[len(sa)-1], sb[len(sb)-2] = k, k
		shapes[0], shapes[1] = sa, sb
	default:
		return ir.Const{}, false, nil
	}
	work := 0
	for _, s := range shapes {
		work += s.Size()
	}
	if work > foldWork {
		return ir.Const{}, false, nil
	}

	mini := &ir.Graph{}
	args := make([]ir.Value, len(n.Args))
	for i, a := range n.Args {
		dt := r.node(a).DType
		v, err := mini.Add(ir.Node{Op: ir.OpConst, DType: dt, Shape: shapes[i], Const: vals[i]})
		if err != nil {
			return ir.Const{}, false, fmt.Errorf("passes: fold: %w", err)
		}
		args[i] = v
	}
	m := *n
	m.Args = args
	m.Shape = nil // inferred by Add for every kind handled above
	out, err := mini.Add(m)
	if err != nil {
		return ir.Const{}, false, fmt.Errorf("passes: fold: %w", err)
	}
	mini.Outputs = []ir.Value{out}
	res, err := interp.Run(mini, nil)
	if err != nil {
		return ir.Const{}, false, fmt.Errorf("passes: fold: %w", err)
	}
	return firstElem(res[0]), true, nil
}

// firstElem returns element 0 of an interpreter slice as a Const.
func firstElem(x any) ir.Const {
	switch s := x.(type) {
	case []bool:
		if s[0] {
			return ir.Const{I: 1}
		}
		return ir.Const{}
	case []uint8:
		return ir.Const{I: int64(s[0])}
	case []int32:
		return ir.Const{I: int64(s[0])}
	case []int64:
		return ir.Const{I: s[0]}
	case []float32:
		return ir.Const{F: float64(s[0])}
	case []float64:
		return ir.Const{F: s[0]}
	case []half.Float16:
		return ir.Const{F: float64(s[0].Float32())}
	case []half.BFloat16:
		return ir.Const{F: float64(s[0].Float32())}
	}
	panic(fmt.Sprintf("passes: unexpected interpreter slice %T", x))
}
