package passes

import (
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Limits of row nests. A nest runs its rows one after another, so it needs
// enough rows to be split across threads and to amortize the per-row
// loop setup; a row-local value is a stack buffer of one row.
const (
	minNestRows     = 16
	minRowElems     = 8
	maxRowLocal     = 32 << 10 // bytes of one row-local value's row
	maxRowLocalNest = 96 << 10 // bytes of all row-local rows of one nest
)

// rowNests fills p.Nests and p.RowLocal. Walking the groups in execution
// order, a group joins the nest before it when
//   - it has the nest's number of rows (at least minNestRows): dimension 0
//     of its output, or of a reduction's operand when axis 0 is kept;
//   - its rows have at least minRowElems elements, so its inner loops
//     still vectorize, or exactly one (a per-row scalar such as a mean or
//     an rsqrt of a variance);
//   - it reads some value the nest computes, and every value of the nest
//     it reads it reads only at the row it is computing (rowReads);
//   - it is a reduction or the nest has one: chains of elementwise groups
//     alone run faster as flat loops over whole tensors;
//
// otherwise it starts a nest of its own. This is how reduce → broadcast →
// elementwise patterns (softmax, layer norm) become one loop over rows with
// an inner loop per group. A value computed in a nest and read only inside
// it (not an output) is row-local when its row is small: it then never goes
// to memory beyond a scratch row that stays in L1.
func (p *Plan) rowNests(isOut []bool, users [][]ir.Value) {
	g := p.Graph
	p.RowLocal = make([]bool, len(g.Nodes))
	nestOf := make([]int, len(p.Roots))
	rows := -1
	hasReduce := false // the current nest has a reduction
	for gi, r := range p.Roots {
		rr := groupRows(g, r)
		if p.MatMul[gi] >= 0 {
			rr = -1 // a matmul with its epilogue: no nest over rows
		}
		red := isReduce(g, r)
		join := false
		if len(p.Nests) > 0 && rr == rows && rr >= minNestRows {
			reads := p.rowReads(r, rr)
			cur := len(p.Nests) - 1
			join = true
			dep := false
			for _, rd := range reads {
				if gv := p.Group[rd.v]; gv >= 0 && nestOf[gv] == cur {
					dep = true
					join = join && rd.aligned
				}
			}
			join = join && dep && (red || hasReduce)
		}
		if join {
			p.Nests[len(p.Nests)-1] = append(p.Nests[len(p.Nests)-1], gi)
			hasReduce = hasReduce || red
		} else {
			p.Nests = append(p.Nests, []int{gi})
			rows, hasReduce = rr, red
		}
		nestOf[gi] = len(p.Nests) - 1
	}
	for ni, n := range p.Nests {
		if len(n) < 2 {
			continue
		}
		budget := maxRowLocalNest
		for _, gi := range n {
			v := p.Roots[gi]
			nd := &g.Nodes[v]
			bytes := nd.Shape.Size() / nd.Shape[0] * max(nd.DType.Size(), 1)
			if isOut[v] || bytes > maxRowLocal || bytes > budget {
				continue
			}
			local := true
			for _, u := range users[v] {
				if gu := p.Group[u]; gu < 0 || nestOf[gu] != ni {
					local = false
				}
			}
			if local {
				p.RowLocal[v] = true
				budget -= bytes
			}
		}
	}
}

// groupRows is the extent of dimension 0 of the iteration space of the
// group computing r, when a nest can share it: -1 for matmuls, scalars
// and reductions over axis 0.
func groupRows(g *ir.Graph, r ir.Value) int {
	n := &g.Nodes[r]
	switch n.Op.Kind() {
	case ir.KindMatMul, ir.KindScan, ir.KindSort: // a scan or sort reads its own results
		return -1
	case ir.KindGather, ir.KindScatter, ir.KindDynamicSlice, ir.KindRandom:
		return -1 // indexing.go: no nest over rows
	case ir.KindReduce, ir.KindArgReduce:
		if slices.Contains(n.Axes, 0) {
			return -1
		}
	}
	it := n.Shape // the iteration space
	if n.Op.Kind() == ir.KindReduce || n.Op.Kind() == ir.KindArgReduce {
		it = g.Nodes[n.Args[0]].Shape
	}
	if it.Rank() == 0 || it[0] == 0 {
		return -1
	}
	if per := it.Size() / it[0]; per != 1 && per < minRowElems {
		return -1
	}
	return n.Shape[0]
}

func isReduce(g *ir.Graph, v ir.Value) bool {
	k := g.Nodes[v].Op.Kind()
	return k == ir.KindReduce || k == ir.KindArgReduce
}

// rowRead is a materialized value a group reads, and whether every read
// is at the row the group is computing.
type rowRead struct {
	v       ir.Value
	aligned bool
}

// rowReads lists the materialized values the group of root r reads. A read
// is aligned when the position read has, as its coordinate 0, the group's
// row: the index maps through elementwise ops, and through layout ops that
// keep dimension 0 (a broadcast that does not stretch it, a reshape that
// keeps its extent, a transpose that keeps it first, a slice that keeps it
// whole, a concat along another axis).
func (p *Plan) rowReads(r ir.Value, rows int) []rowRead {
	g := p.Graph
	var out []rowRead
	note := func(v ir.Value, aligned bool) {
		s := g.Nodes[v].Shape
		aligned = aligned && s.Rank() > 0 && s[0] == rows
		for i := range out {
			if out[i].v == v {
				out[i].aligned = out[i].aligned && aligned
				return
			}
		}
		out = append(out, rowRead{v, aligned})
	}
	var walk func(v ir.Value, aligned bool)
	walk = func(v ir.Value, aligned bool) {
		n := &g.Nodes[v]
		if v != r && p.Materialized[v] {
			note(v, aligned)
			return
		}
		switch n.Op.Kind() {
		case ir.KindSource:
			return
		case ir.KindReduce, ir.KindArgReduce:
			walk(n.Args[0], aligned && !slices.Contains(n.Axes, 0))
			return
		case ir.KindMatMul, ir.KindGather, ir.KindScatter, ir.KindDynamicSlice, ir.KindRandom:
			for _, a := range n.Args {
				walk(a, false) // read at other rows, or at data-dependent ones
			}
			return
		case ir.KindLayout:
			for _, a := range n.Args {
				walk(a, aligned && keepsRows(g, n, a))
			}
			return
		}
		for _, a := range n.Args {
			walk(a, aligned)
		}
	}
	walk(r, true)
	return out
}

// keepsRows reports whether layout op n reads operand a at the row (the
// coordinate 0) of the position it computes.
func keepsRows(g *ir.Graph, n *ir.Node, a ir.Value) bool {
	as := g.Nodes[a].Shape
	if as.Rank() == 0 || n.Shape.Rank() == 0 || as[0] != n.Shape[0] {
		return false
	}
	switch n.Op {
	case ir.OpBroadcast:
		return as.Rank() == n.Shape.Rank()
	case ir.OpReshape:
		return true
	case ir.OpTranspose:
		return n.Axes[0] == 0
	case ir.OpSlice:
		return n.Starts[0] == 0 && n.Steps[0] == 1
	case ir.OpConcat:
		return n.Axes[0] != 0
	}
	return false
}
