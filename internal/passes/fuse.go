package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Plan says how a graph runs as fused loops. Every value is either
// materialized (it lives in a buffer) or computed inside the loop of the one
// group that uses it, at the index that group needs it, never touching memory.
type Plan struct {
	Graph *ir.Graph
	// Materialized[v] reports whether v lives in a buffer: parameters,
	// outputs, reduction and matmul results, and values used by more than
	// one group.
	Materialized []bool
	// Roots lists the materialized values that a group computes (every
	// materialized value but the parameters), in execution order. Group i
	// computes Roots[i].
	Roots []ir.Value
	// Group[v] is the index in Roots of the group that computes v, or -1 for
	// parameters, dead values, and cheap values (const, iota, layout ops
	// over values in memory used by several groups) that any group
	// recomputes where it needs them.
	Group []int
	// Nests partitions the groups (indices into Roots, in execution order)
	// into loop nests. A nest of several groups runs them inside one outer
	// loop over rows (dimension 0 of every group's iteration space): each
	// group reads rows of the nest's earlier groups only at the row being
	// computed, so row r of every group is done before row r+1 starts and a
	// row's intermediates stay in cache (see rowNests).
	Nests [][]int
	// RowLocal[v] reports a materialized value that lives one row at a
	// time in a scratch buffer of its nest: no later nest and no output
	// reads it, and its rows are small.
	RowLocal []bool
	// MatMul[i] is the matmul that group i computes before its root, or
	// -1. Such a group's root is an elementwise epilogue of the matmul
	// (relu(x@w + b)): the matmul's only users are elementwise ops of the
	// group with its shape, and the root has its shape and dtype, so the
	// group computes the product a tile at a time in the root's buffer
	// and applies the epilogue while the tile is in cache (see
	// matMulEpilogue). The root may instead be a float sum of all of such
	// ops' elements (mean(relu(x@w))): the group then keeps the product
	// on the stack and sums the epilogue as it goes (matMulSum). The
	// matmul itself is not materialized.
	MatMul []ir.Value
}

// Fuse builds the plan for g, which must be compacted (no dead nodes). The
// rules, applied from the outputs backwards:
//   - parameters, outputs, reductions, argmax/argmin and matmuls are
//     materialized; a reduction's producers are fused into its loop (they
//     are computed as it accumulates);
//   - matmul operands are materialized, since the product reads each one
//     many times; a matmul whose users are all elementwise ops of one
//     group with its shape (bias add, relu) is computed by that group,
//     its root being the epilogue (Plan.MatMul);
//   - a value used by more than one group is materialized, except constants,
//     iotas and layout ops over values in memory (cheapLayout), which cost
//     nothing to recompute;
//   - a value that a broadcast stretches to more elements is materialized
//     unless reading it costs no arithmetic (see cheapIndexing) or it is a
//     short sum of products of integers (indexSum), so an expensive
//     expression is not recomputed once per copy.
func Fuse(g *ir.Graph) *Plan { return fuse(g, true) }

// FuseDynamic is Fuse for a module with dynamic dimensions: its matmuls
// take no summed epilogue (matMulSum), which needs the product's size.
func FuseDynamic(g *ir.Graph) *Plan { return fuse(g, false) }

func fuse(g *ir.Graph, sums bool) *Plan {
	n := len(g.Nodes)
	p := &Plan{Graph: g, Materialized: make([]bool, n), Group: make([]int, n)}
	isOut := g.IsOutput()
	users := g.Users()
	const (
		unassigned = -1
		anyGroup   = -2
	)
	// group holds, during the backward walk, the root value (not yet the
	// index in Roots) of the group computing each value.
	group := make([]int, n)
	for i := range group {
		group[i] = unassigned
	}
	forced := make([]bool, n)
	// full[v]: v's group reads every element of v (indexing.go).
	full := make([]bool, n)
	epilogue := make(map[int]ir.Value) // group root -> its fused matmul
	for i := n - 1; i >= 0; i-- {
		nd := &g.Nodes[i]
		if nd.Op == ir.OpParam {
			p.Materialized[i] = true
			continue
		}
		if k := nd.Op.Kind(); k == ir.KindControl || k == ir.KindGet {
			// Control flow is a group boundary: its results are in
			// memory, like parameters, and so are its operands. The
			// runtime runs its regions (each fused on its own) between
			// the groups before it and those after.
			p.Materialized[i] = k == ir.KindGet
			for _, a := range nd.Args {
				forced[a] = true
			}
			continue
		}
		own := isOut[i] || forced[i] // needed in memory for its own sake
		root := own
		switch nd.Op.Kind() {
		case ir.KindReduce, ir.KindArgReduce, ir.KindScan, ir.KindSort:
			root = true
		case ir.KindMatMul:
			root = true
			e, ok := matMulEpilogue(g, ir.Value(i), users, group)
			if !ok && sums {
				e, ok = matMulSum(g, ir.Value(i), users, group)
			}
			if ok && !own {
				if _, taken := epilogue[e]; !taken {
					epilogue[e] = ir.Value(i)
					group[i] = e
					root = false
				}
			}
		}
		if nd.Op.Kind() == ir.KindScatter {
			root = true
		}
		if !root && group[i] == unassigned {
			seen := -3
			multi := false
			for _, u := range users[i] {
				gu := group[u]
				if gu == seen {
					continue
				}
				if seen != -3 {
					multi = true
				}
				seen = gu
			}
			switch {
			case seen == -3:
				continue // dead; Compact removes these
			case nd.Op == ir.OpConst || nd.Op == ir.OpIota || (multi && cheapLayout(g, ir.Value(i))):
				group[i] = anyGroup
				continue
			case multi:
				root = true
			default:
				group[i] = seen
				// A gather checks its indices as it reads them: fused, it must
				// still read every one (see fullRead, indexing.go).
				full[i] = fullRead(g, ir.Value(i), users[i], full)
				if nd.Op.Kind() == ir.KindGather && !full[i] {
					root = true
				}
			}
		}
		if root {
			p.Materialized[i] = true
			group[i] = i
			full[i] = true
		}
		// Operands that must not be recomputed inside this node's loop.
		for _, a := range nd.Args {
			an := &g.Nodes[a]
			cheap := cheapIndexing(g, a)
			switch {
			case nd.Op == ir.OpMatMul, nd.Op == ir.OpArgSort: // argsort reads its keys in any order
				forced[a] = true
			case nd.Op == ir.OpBroadcast && !cheap && !indexSum(g, a, 8) && an.Shape.Size() < nd.Shape.Size():
				forced[a] = true
			case !cheap && indexingForces(nd, a):
				forced[a] = true
			}
		}
	}
	index := make([]int, n)
	for i := range g.Nodes {
		index[i] = -1
		if p.Materialized[i] && g.Nodes[i].Op != ir.OpParam && g.Nodes[i].Op != ir.OpGet {
			index[i] = len(p.Roots)
			p.Roots = append(p.Roots, ir.Value(i))
		}
	}
	for i := range g.Nodes {
		switch gi := group[i]; {
		case gi >= 0:
			p.Group[i] = index[gi]
		default:
			p.Group[i] = -1
		}
	}
	p.MatMul = make([]ir.Value, len(p.Roots))
	for gi, r := range p.Roots {
		p.MatMul[gi] = -1
		if mm, ok := epilogue[int(r)]; ok {
			p.MatMul[gi] = mm
		}
	}
	p.rowNests(isOut, users)
	return p
}

// matMulEpilogue reports whether the group that will compute matmul mm's
// users can take it as a fused matmul, and returns that group's root.
// group holds, during Fuse's backward walk, the root of each later value's
// group. Every user of mm, and every value of the group that depends on
// mm, must be an elementwise op with mm's shape inside one group, whose
// root is one of them and has mm's dtype: the group then stores the
// product's partial sums in the root's buffer and overwrites each element
// with the epilogue once its sum is complete.
func matMulEpilogue(g *ir.Graph, mm ir.Value, users [][]ir.Value, group []int) (int, bool) {
	m := &g.Nodes[mm]
	e, seen := epilogueGroup(g, mm, users, group, func(*ir.Node) bool { return false })
	if e < 0 {
		return 0, false
	}
	return e, seen[ir.Value(e)] && g.Nodes[e].DType == m.DType
}

// epilogueGroup walks the values that depend on matmul mm through its
// users: each must be an elementwise op of mm's shape, or a value last
// accepts, which must then be its group's root and is not walked past.
// It returns the one group they all belong to (-1 when there is none or
// they are in several) and the values walked.
func epilogueGroup(g *ir.Graph, mm ir.Value, users [][]ir.Value, group []int, last func(*ir.Node) bool) (int, map[ir.Value]bool) {
	m := &g.Nodes[mm]
	e := -1
	stack := []ir.Value{mm}
	seen := map[ir.Value]bool{}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range users[v] {
			if seen[u] {
				continue
			}
			seen[u] = true
			un := &g.Nodes[u]
			end := last(un)
			if !end && (!un.Op.IsElementwise() || !slices.Equal(un.Shape, m.Shape)) {
				return -1, nil
			}
			switch gu := group[u]; {
			case gu < 0:
				return -1, nil
			case e == -1:
				e = gu
			case gu != e:
				return -1, nil
			}
			if end {
				if int(u) != e {
					return -1, nil
				}
				continue
			}
			stack = append(stack, u)
		}
	}
	return e, seen
}

// matMulSumBytes bounds the product a summed epilogue keeps (on the
// stack of the thread running it, matMulSum), and matMulSumMACs its
// multiply-adds: the group runs on one thread, and from 3.1M of them
// (runtime.ParallelWork elements of internal/codegen's mmMACsPerElement)
// the runtime splits a product across threads.
const (
	matMulSumBytes = 64 << 10
	matMulSumMACs  = 32 << 10 * 96
)

// matMulSum is matMulEpilogue for a group whose root is a float sum over
// every element (mean(relu(x@w)), GT2's pattern) of elementwise ops of
// the product with its shape: the group computes the product into a
// buffer on the stack and adds each element of the sum's operand into
// per-column partial sums while the product's panel is in cache, instead
// of storing the product for a reduction loop of its own. Only a 2-D
// product of at most matMulSumBytes qualifies; the group then runs as one
// piece (no split across threads).
func matMulSum(g *ir.Graph, mm ir.Value, users [][]ir.Value, group []int) (int, bool) {
	m := &g.Nodes[mm]
	if m.Shape.Rank() != 2 || m.DType != ir.Float32 && m.DType != ir.Float64 ||
		m.Shape.Size()*m.DType.Size() > matMulSumBytes || m.Shape.Size() == 0 ||
		m.Shape.Size()*g.Nodes[m.Args[0]].Shape[1] > matMulSumMACs {
		return 0, false
	}
	e, seen := epilogueGroup(g, mm, users, group, func(un *ir.Node) bool {
		return un.Op == ir.OpReduceSum && un.Shape.Rank() == 0 && un.DType == m.DType
	})
	return e, e >= 0 && seen[ir.Value(e)] && g.Nodes[e].Op == ir.OpReduceSum
}

// cheapLayout reports whether v is a layout op (not a concat, which
// selects) that only maps indices into a value always in memory: every
// group that uses it recomputes it, as it does a constant, rather than
// reading a copy.
func cheapLayout(g *ir.Graph, v ir.Value) bool {
	n := &g.Nodes[v]
	return n.Op.Kind() == ir.KindLayout && n.Op != ir.OpConcat && cheapIndexing(g, v)
}

// cheapIndexing reports whether reading v at any index costs no
// arithmetic: v is a source (param, const, iota), a value that is always
// in memory (a reduction or matmul result), or a layout op over such a
// value, which only maps the index.
func cheapIndexing(g *ir.Graph, v ir.Value) bool {
	n := &g.Nodes[v]
	switch n.Op.Kind() {
	case ir.KindSource, ir.KindReduce, ir.KindArgReduce, ir.KindMatMul, ir.KindScan, ir.KindSort:
		return true
	case ir.KindLayout:
		if n.Op == ir.OpConcat {
			return false
		}
		return cheapIndexing(g, n.Args[0])
	}
	return false
}

// indexSum reports whether v is integer additions, subtractions and
// multiplications, at most budget of them, of values that cost no
// arithmetic to read or of broadcasts (whose own operands Fuse
// materializes unless they are cheap too): an index computed as the sum
// of a row term, a column term and a channel term, each stretched to the
// output's shape. Recomputing it costs an add per element; materializing
// it at its own size, often nearly the output's, costs a buffer as large
// and a store and a load per element.
func indexSum(g *ir.Graph, v ir.Value, budget int) bool {
	n := &g.Nodes[v]
	switch {
	case cheapIndexing(g, v) || n.Op == ir.OpBroadcast:
		return true
	case budget <= 0 || (n.DType != ir.Int32 && n.DType != ir.Int64 && n.DType != ir.Uint8):
		return false
	case n.Op == ir.OpAdd || n.Op == ir.OpSub || n.Op == ir.OpMul:
		for _, a := range n.Args {
			if !indexSum(g, a, budget-1) {
				return false
			}
		}
		return true
	}
	return false
}

// String prints the plan: one line per group with the values it computes,
// then one line per nest of several groups (row-local values marked *).
func (p *Plan) String() string {
	var b strings.Builder
	for gi, r := range p.Roots {
		fmt.Fprintf(&b, "group %d -> %%%d (%s):", gi, r, p.Graph.Nodes[r].Op)
		for v := range p.Graph.Nodes {
			if p.Group[v] == gi {
				fmt.Fprintf(&b, " %%%d", v)
			}
		}
		b.WriteByte('\n')
	}
	for _, n := range p.Nests {
		if len(n) < 2 {
			continue
		}
		b.WriteString("nest:")
		for _, gi := range n {
			r := p.Roots[gi]
			mark := ""
			if p.RowLocal[r] {
				mark = "*"
			}
			fmt.Fprintf(&b, " %d%s", gi, mark)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
