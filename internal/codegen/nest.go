package codegen

import (
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// emitNest writes the function body of one nest of groups and returns it
// with the extent of its outer loop and the roots whose buffers it takes
// as parameters, in order. A nest of one group is that group's loop nest.
// A nest of several runs one loop over rows and, inside it, each group's
// loops for that row (passes.Plan.Nests guarantees a group reads the
// nest's earlier values only at its own row); its row-local values live in
// one-row scratch buffers in the entry block, addressed by their linear
// offset minus the offset of the current row.
func (u *unit) emitNest(p *passes.Plan, nest []int) (string, int, []ir.Value) {
	u.memo = map[string]string{}
	u.block("entry")
	g := p.Graph
	var extent int
	var outs []ir.Value
	if len(nest) == 1 {
		r := p.Roots[nest[0]]
		gr := &group{unit: u, p: p, g: g, root: r, out: outName(1, r)}
		extent = gr.emitBody()
		outs = append(outs, r)
	} else {
		extent = g.Nodes[p.Roots[nest[0]]].Shape[0]
		l := u.openLoop("%start", "%end")
		u.row = l.iv
		u.local = map[ir.Value]localRow{}
		u.outOf = map[ir.Value]string{}
		for _, k := range nest {
			r := p.Roots[k]
			if !p.RowLocal[r] {
				outs = append(outs, r)
				u.outOf[r] = outName(len(nest), r)
				continue
			}
			n := &g.Nodes[r]
			per := n.Shape.Size() / n.Shape[0]
			u.tmp++
			buf := "%row" + strconv.Itoa(u.tmp)
			u.allocas.WriteString("  " + buf + " = alloca " + memType(n.DType) + ", i64 " + strconv.Itoa(per) + ", align 64\n")
			u.local[r] = localRow{buf: buf, off: u.ins("mul nuw nsw i64 %s, %d", u.row, per)}
		}
		u.reread = rereadInNest(p, nest)
		rowMemo := u.memo
		for _, k := range nest {
			r := p.Roots[k]
			// Positions are keyed by names local to each group's loops:
			// nothing one group computed may be reused by the next.
			u.memo = map[string]string{}
			gr := &group{unit: u, p: p, g: g, root: r, out: outName(len(nest), r)}
			gr.emitBody()
		}
		u.memo = rowMemo
		u.closeLoop(l)
		if u.fenceAtEnd {
			u.stmt("fence seq_cst")
		}
	}
	u.stmt("ret void")
	body := u.b.String()
	// Accumulators and scratch rows live in allocas in the entry block,
	// where mem2reg and SROA promote the scalar ones to registers.
	if u.allocas.Len() > 0 {
		body = strings.Replace(body, "entry:\n", "entry:\n"+u.allocas.String(), 1)
	}
	return body, extent, outs
}

// outName is the parameter holding root r's buffer in the function of a
// nest of n groups.
func outName(n int, r ir.Value) string {
	if n == 1 {
		return "%out"
	}
	return "%out" + strconv.Itoa(int(r))
}

// rereadInNest returns the values of a nest that a later group of the same
// nest reads: the row it reads was just written, so it must not go around
// the cache (stream.go).
func rereadInNest(p *passes.Plan, nest []int) map[ir.Value]bool {
	g := p.Graph
	seen := map[ir.Value]bool{}
	visited := map[ir.Value]bool{}
	var walk func(v, root ir.Value)
	walk = func(v, root ir.Value) {
		if v != root && p.Materialized[v] {
			seen[v] = true
			return
		}
		if visited[v] {
			return
		}
		visited[v] = true
		for _, a := range g.Nodes[v].Args {
			walk(a, root)
		}
	}
	for _, k := range nest[1:] {
		r := p.Roots[k]
		clear(visited)
		walk(r, r)
	}
	return seen
}
