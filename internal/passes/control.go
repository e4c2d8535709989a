package passes

import (
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Control flow in the passes. Regions are closed graphs, so every pass
// optimizes them as graphs of their own before the graph that holds them
// (optimizeRegions): fold, simplify, cse and dce work inside each region,
// and a region's invariants then move out of loops (Hoist). Around the
// control-flow op the outer graph's passes treat it as a call: cse never
// merges two of them, and fold replaces a cond whose predicate is a
// constant by the region it selects.

// optimizeRegions returns g with the regions of its control-flow ops
// optimized (recursively, by the whole table); g is not modified.
func optimizeRegions(table []Pass, g *ir.Graph, opt Options) (*ir.Graph, error) {
	if !ir.HasControl(g) {
		return g, nil
	}
	out := *g
	out.Nodes = append([]ir.Node(nil), g.Nodes...)
	sub := Options{Verify: opt.Verify} // dumps show the top-level graph
	for i := range out.Nodes {
		n := &out.Nodes[i]
		if len(n.Regions) == 0 {
			continue
		}
		rs := make([]*ir.Graph, len(n.Regions))
		for j, r := range n.Regions {
			o, err := optimize(table, r, sub)
			if err != nil {
				return nil, fmt.Errorf("region %d of %%%d (%s): %w", j, i, n.Op, err)
			}
			rs[j] = o
		}
		n.Regions = rs
	}
	return &out, nil
}

// foldControl handles control-flow and get nodes for Fold: a cond whose
// predicate is a constant becomes the region it selects, copied into the
// graph, and the gets of its results forward to the copies.
func foldControl(r *rewriter, n ir.Node) (ir.Value, error) {
	if n.Op == ir.OpGet {
		if res, ok := r.inlined[n.Args[0]]; ok {
			return res[n.Index], nil
		}
		return r.emit(n)
	}
	if n.Op != ir.OpCond {
		return r.emit(n)
	}
	c, ok := r.splat(n.Args[0])
	if !ok {
		return r.emit(n)
	}
	region := n.Regions[1]
	if c.I != 0 {
		region = n.Regions[0]
	}
	vals, err := inline(r, region, n.Args[1:], nil)
	if err != nil {
		return -1, err
	}
	res := make([]ir.Value, len(region.Outputs))
	for i, o := range region.Outputs {
		res[i] = vals[o]
	}
	v, err := r.emit(n) // dead once every get forwards
	if err != nil {
		return -1, err
	}
	if r.inlined == nil {
		r.inlined = map[ir.Value][]ir.Value{}
	}
	r.inlined[v] = res
	return v, nil
}

// inline copies region's nodes for which keep is true (all when keep is
// nil), except parameters, into the rewriter's graph, binding parameter i
// to args[i], and returns the value of every copied region value (and of
// the parameters); other values map to -1.
func inline(r *rewriter, region *ir.Graph, args []ir.Value, keep func(ir.Value) bool) ([]ir.Value, error) {
	vals := make([]ir.Value, len(region.Nodes))
	for i := range region.Nodes {
		n := region.Nodes[i]
		vals[i] = -1
		if n.Op == ir.OpParam {
			vals[i] = args[n.Index]
			continue
		}
		if keep != nil && !keep(ir.Value(i)) {
			continue
		}
		n.Args = append([]ir.Value(nil), n.Args...)
		for j, a := range n.Args {
			if vals[a] < 0 {
				return nil, fmt.Errorf("passes: internal error: inlining %s needs %%%d, which was not copied", n.Op, a)
			}
			n.Args[j] = vals[a]
		}
		v, err := r.emit(n)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// Hoist moves loop-invariant work out of while loops: a value of the cond
// or body region that depends only on the loop's captures (not on the
// loop-carried state) is computed once, before the loop, and the regions
// read it as a new capture:
//
//	%5 = while %0, %1 : (f32[8]) {            %2 = exp %1 : f32[8]
//	  ...                                      %5 = while %0, %1, %2 : (f32[8]) {
//	} {                                 =>       ...
//	  %2 = exp %1 : f32[8]    (a capture)      } {
//	  %3 = add %0, %2 : f32[8]                   %3 = add %0, %2 : f32[8]
//	  ...                                        ...
//
// Constants, iotas and layout ops stay inside: they cost nothing there and
// would cost memory outside. Nor are nested control-flow ops moved, nor
// ops that might fail at run time (hoistKind). The ops moved have no side
// effects, so computing an invariant before a loop that runs zero times
// changes no result.
func Hoist(g *ir.Graph) (*ir.Graph, error) {
	if !ir.HasControl(g) {
		return g, nil
	}
	return rewrite(g, func(r *rewriter, _ ir.Value, n ir.Node) (ir.Value, error) {
		if n.Op != ir.OpWhile {
			return r.emit(n)
		}
		k := ir.Carried(&n)
		args := append([]ir.Value(nil), n.Args...)
		var extra []ir.Type           // types of the new captures
		var moved [2]map[ir.Value]int // region value -> index of its new parameter
		for j, reg := range n.Regions {
			hoist := hoistable(reg, k)
			some := false
			for _, h := range hoist {
				some = some || h
			}
			if !some {
				continue
			}
			vals, err := inline(r, reg, args, func(v ir.Value) bool { return hoist[v] })
			if err != nil {
				return -1, err
			}
			moved[j] = map[ir.Value]int{}
			for _, v := range frontier(reg, hoist) {
				moved[j][v] = len(args)
				args = append(args, vals[v])
				extra = append(extra, reg.TypeOf(v))
			}
		}
		if len(extra) == 0 {
			return r.emit(n)
		}
		m := n
		m.Args = args
		m.Regions = make([]*ir.Graph, len(n.Regions))
		for j, reg := range n.Regions {
			nr, err := withCaptures(reg, extra, moved[j])
			if err != nil {
				return -1, err
			}
			m.Regions[j] = nr
		}
		return r.emit(m)
	})
}

// hoistable marks the values of a while region that can move before the
// loop: not parameters of the first k (the loop-carried state), computed
// from captures and constants only, and worth moving (not a source, a
// layout op or control flow).
func hoistable(reg *ir.Graph, k int) []bool {
	inv := make([]bool, len(reg.Nodes))
	hoist := make([]bool, len(reg.Nodes))
	for i, n := range reg.Nodes {
		switch n.Op.Kind() {
		case ir.KindSource:
			inv[i] = n.Op != ir.OpParam || n.Index >= k
			continue
		case ir.KindControl, ir.KindGet:
			continue
		}
		inv[i] = true
		for _, a := range n.Args {
			inv[i] = inv[i] && inv[a]
		}
		hoist[i] = inv[i] && hoistKind(n.Op.Kind())
	}
	// An invariant layout op or source that a hoisted value reads must
	// move too, copied (the copy inside stays for its other users).
	for i := len(reg.Nodes) - 1; i >= 0; i-- {
		if hoist[i] {
			for _, a := range reg.Nodes[i].Args {
				if reg.Nodes[a].Op != ir.OpParam {
					hoist[a] = true
				}
			}
		}
	}
	return hoist
}

// hoistKind reports whether ops of kind k may move before a loop: kinds
// known to compute a value from their operands and nothing else. An op
// that can fail at run time (a bounds-checked index) must not move out of
// a loop that might not run it, so kinds added later stay inside until
// they are known to be safe to move.
func hoistKind(k ir.Kind) bool {
	switch k {
	case ir.KindUnary, ir.KindCast, ir.KindBinary, ir.KindCompare, ir.KindSelect,
		ir.KindReduce, ir.KindArgReduce, ir.KindMatMul:
		return true
	}
	return false
}

// frontier lists the hoisted values that become captures: those read by
// a value that stays in the region, or returned. A cheap hoisted value (a
// source or layout op) that is needed stays too, as a copy, and what it
// reads is needed in turn.
func frontier(reg *ir.Graph, hoist []bool) []ir.Value {
	need := make([]bool, len(reg.Nodes))
	for _, o := range reg.Outputs {
		need[o] = true
	}
	cheap := func(v int) bool {
		k := reg.Nodes[v].Op.Kind()
		return k == ir.KindSource || k == ir.KindLayout
	}
	var out []ir.Value
	for i := len(reg.Nodes) - 1; i >= 0; i-- {
		switch {
		case !hoist[i] || (need[i] && cheap(i)):
			for _, a := range reg.Nodes[i].Args {
				need[a] = true
			}
		case need[i]:
			out = append(out, ir.Value(i))
		}
	}
	slices.Reverse(out)
	return out
}

// withCaptures returns reg with parameters of the types extra appended
// and the values of moved replaced by their new parameter, dead code
// removed.
func withCaptures(reg *ir.Graph, extra []ir.Type, moved map[ir.Value]int) (*ir.Graph, error) {
	base := len(reg.Params)
	out := &ir.Graph{}
	val := make([]ir.Value, len(reg.Nodes))
	// Parameters first, in index order (the text form wants them so),
	// the new ones last.
	for _, p := range reg.Params {
		n := reg.Nodes[p]
		v, err := out.AddParam(n.DType, n.Shape.Clone(), n.Pos)
		if err != nil {
			return nil, err
		}
		val[p] = v
	}
	newParams := make([]ir.Value, len(extra))
	for i, t := range extra {
		v, err := out.AddParam(t.DType, t.Shape.Clone(), "")
		if err != nil {
			return nil, err
		}
		newParams[i] = v
	}
	for i := range reg.Nodes {
		n := reg.Nodes[i]
		if n.Op == ir.OpParam {
			continue
		}
		if p, ok := moved[ir.Value(i)]; ok {
			val[i] = newParams[p-base]
			continue
		}
		n.Args = append([]ir.Value(nil), n.Args...)
		for j, a := range n.Args {
			n.Args[j] = val[a]
		}
		v, err := out.Add(n)
		if err != nil {
			return nil, fmt.Errorf("passes: hoist: %w", err)
		}
		val[i] = v
	}
	for _, o := range reg.Outputs {
		out.Outputs = append(out.Outputs, val[o])
	}
	c, _ := ir.Compact(out)
	return c, nil
}
