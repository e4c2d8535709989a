package passes

import (
	"fmt"
	"math"
	"slices"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// rewriter rebuilds a graph node by node, the way fold, simplify and cse
// work: each source node, its operands already mapped to the new graph, is
// handed to a visit function that either emits a node in its place (itself
// or a rewritten form, possibly after emitting helper nodes) or answers with
// a value already in the new graph that computes the same thing.
//
// When a node is forwarded to another value, its unchanged copy is still
// emitted, dead, at its old place: so a pass that inserts nothing keeps
// every value's number, and the IR printed before and after it differs
// only where something changed. The dce pass removes the dead copies.
type rewriter struct {
	src, dst *ir.Graph
	val      []ir.Value // src value -> the dst value holding its result
	// inlined maps a control-flow op of dst whose region a pass copied
	// into dst to the values holding its results (control.go).
	inlined map[ir.Value][]ir.Value
}

// visitFunc returns the dst value that computes source node v, whose
// operands n.Args already name dst values. It may emit nodes with r.emit.
type visitFunc func(r *rewriter, v ir.Value, n ir.Node) (ir.Value, error)

// rewrite runs visit over g's nodes in order and returns the new graph. The
// new graph keeps g's parameters and outputs, in order and with their
// dtypes and shapes: a visit answering with a value of another type is a
// bug in the pass and is reported as an error. g itself is not modified.
func rewrite(g *ir.Graph, visit visitFunc) (*ir.Graph, error) {
	r := &rewriter{
		src: g,
		dst: &ir.Graph{Nodes: make([]ir.Node, 0, len(g.Nodes)), Params: make([]ir.Value, len(g.Params))},
		val: make([]ir.Value, len(g.Nodes)),
	}
	for i := range g.Nodes {
		v := ir.Value(i)
		n := g.Nodes[i]
		n.Args = slices.Clone(n.Args)
		for j, a := range n.Args {
			n.Args[j] = r.val[a]
		}
		before := len(r.dst.Nodes)
		nv, err := visit(r, v, n)
		if err != nil {
			return nil, err
		}
		got := &r.dst.Nodes[nv]
		if got.DType != n.DType || !got.Shape.Equal(n.Shape) {
			return nil, fmt.Errorf("passes: internal error: %%%d (%s) of type %s%s replaced by %%%d of type %s%s",
				v, n.Op, n.DType, n.Shape, nv, got.DType, got.Shape)
		}
		if len(r.dst.Nodes) == before && n.Op != ir.OpParam {
			// Forwarded: keep the original, dead, so numbering stays put.
			if _, err := r.emit(n); err != nil {
				return nil, err
			}
		}
		r.val[v] = nv
	}
	r.dst.Outputs = make([]ir.Value, len(g.Outputs))
	for i, o := range g.Outputs {
		r.dst.Outputs[i] = r.val[o]
	}
	return r.dst, nil
}

// emit appends n to the new graph, checking it as ir.Graph.Add does. A
// parameter keeps its Index and its place in Params.
func (r *rewriter) emit(n ir.Node) (ir.Value, error) {
	v, err := r.dst.Add(n)
	if err != nil {
		return -1, fmt.Errorf("passes: internal error: rewritten node does not check: %w", err)
	}
	if n.Op == ir.OpParam {
		if n.Index >= len(r.dst.Params) {
			return -1, fmt.Errorf("passes: param index %d out of range", n.Index)
		}
		r.dst.Params[n.Index] = v
	}
	return v, nil
}

// node returns the new graph's node v.
func (r *rewriter) node(v ir.Value) *ir.Node { return &r.dst.Nodes[v] }

// constant emits a splat constant with n's type and position.
func (r *rewriter) constant(n *ir.Node, c ir.Const) (ir.Value, error) {
	return r.emit(ir.Node{Op: ir.OpConst, DType: n.DType, Shape: n.Shape, Const: c, Pos: n.Pos, Call: n.Call})
}

// normConst returns the value a const of dtype dt holds, as the
// interpreter materializes it: float32 rounding, integer wrap-around, bool
// as 0 or 1. Two constants of one dtype are the same value exactly when
// their normalized forms have the same bits (sameConst).
func normConst(dt ir.DType, c ir.Const) ir.Const {
	switch dt {
	case ir.Float32:
		return ir.Const{F: float64(float32(c.F))}
	case ir.Float64:
		return ir.Const{F: c.F}
	case ir.Float16:
		return ir.Const{F: float64(half.Float16From(float32(c.F)).Float32())}
	case ir.BFloat16:
		return ir.Const{F: float64(half.BFloat16From(float32(c.F)).Float32())}
	case ir.Uint8:
		return ir.Const{I: int64(uint8(c.I))}
	case ir.Int32:
		return ir.Const{I: int64(int32(c.I))}
	case ir.Bool:
		if c.I != 0 {
			return ir.Const{I: 1}
		}
		return ir.Const{}
	}
	return ir.Const{I: c.I}
}

// constBits is a key for a constant's value: equal keys mean the same
// value bit for bit. All NaNs share one key, since the IR's semantics do
// not distinguish NaN payloads; +0 and -0 differ.
func constBits(dt ir.DType, c ir.Const) uint64 {
	c = normConst(dt, c)
	if dt.Floating() {
		if math.IsNaN(c.F) {
			return 0x7ff8000000000001
		}
		return math.Float64bits(c.F)
	}
	return uint64(c.I)
}

// sameConst reports whether two constants of dtype dt are the same value.
func sameConst(dt ir.DType, a, b ir.Const) bool { return constBits(dt, a) == constBits(dt, b) }

// splat returns the value of node v of the new graph if it is a constant.
func (r *rewriter) splat(v ir.Value) (ir.Const, bool) {
	n := r.node(v)
	if n.Op != ir.OpConst {
		return ir.Const{}, false
	}
	return normConst(n.DType, n.Const), true
}

// isConst reports whether v is a constant equal to x (for floats, with its
// exact sign: isConst(v, 0) is false for -0) or, for integer dtypes, to
// int64(x) wrapped to the dtype.
func (r *rewriter) isConst(v ir.Value, x float64) bool {
	c, ok := r.splat(v)
	if !ok {
		return false
	}
	dt := r.node(v).DType
	if dt.Floating() {
		return constBits(dt, c) == constBits(dt, ir.Const{F: x})
	}
	return constBits(dt, c) == constBits(dt, ir.Const{I: int64(x)})
}
