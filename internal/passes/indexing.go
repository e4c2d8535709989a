package passes

import "github.com/gojit/gojit/internal/ir"

// Fusion rules of the indexing and random ops (Fuse, rowNests).
//
// A gather (take, take_along_axis) reads its table at data-dependent
// positions, so the table is materialized (unless reading it costs no
// arithmetic): recomputing an expression at scattered positions would
// repeat its work once per read. The gather itself fuses into its users,
// typically elementwise ops, as long as their group reads every element of
// it: compiled code checks an index only where it is read, and must meet
// the same out-of-range index as the interpreter, which checks them all.
// A gather whose group reads only part of it (a slice, a dynamic slice, a
// broadcast to an empty shape) is materialized instead.
//
// scatter_add is always a group of its own: it copies its first operand,
// then adds the updates in row-major order (the interpreter's order, so
// float sums agree bit for bit; threads split it only over the columns
// after the indexed axis, see internal/codegen/indexing.go); its operands
// fuse into it. The key of a random op and the starts of a dynamic slice are
// read at fixed positions of every element: they are materialized so a
// costly key (a split) is computed once, not per element. None of these
// ops joins a nest over rows.

// indexingForces reports whether operand a of node n must be materialized
// rather than computed inside n's loop.
func indexingForces(n *ir.Node, a ir.Value) bool {
	switch n.Op.Kind() {
	case ir.KindGather:
		return a == n.Args[0]
	case ir.KindRandom:
		return true
	case ir.KindDynamicSlice:
		return a != n.Args[0]
	}
	return false
}

// fullRead reports whether the group computing v, which v's users (all in
// that group) read, reads every element of v: each user is read whole
// (full) and reads all of v.
func fullRead(g *ir.Graph, v ir.Value, users []ir.Value, full []bool) bool {
	for _, u := range users {
		if !full[u] || !readsAll(g, u, v) {
			return false
		}
	}
	return true
}

// readsAll reports whether computing every element of u reads every element
// of its operand v.
func readsAll(g *ir.Graph, u, v ir.Value) bool {
	un := &g.Nodes[u]
	nonEmpty := un.Shape.Size() > 0 || g.Nodes[v].Shape.Size() == 0
	switch un.Op.Kind() {
	case ir.KindUnary, ir.KindCast, ir.KindBinary, ir.KindCompare, ir.KindSelect, ir.KindReduce, ir.KindArgReduce:
		return true
	case ir.KindLayout:
		switch un.Op {
		case ir.OpReshape, ir.OpTranspose, ir.OpConcat:
			return true
		case ir.OpBroadcast:
			return nonEmpty
		}
	case ir.KindGather:
		return v == un.Args[1] && nonEmpty
	case ir.KindScatter:
		if v == un.Args[1] {
			return (g.Nodes[un.Args[2]].Shape.Size() > 0 && un.Shape.Size() > 0) || g.Nodes[v].Shape.Size() == 0
		}
		return true
	}
	return false
}
