package ir

import (
	"errors"
	"fmt"
	"slices"
)

// Verify checks the invariants every pass must preserve: operands are
// defined before use, each node's dtype and shape are what its op infers
// from its operands, parameters are numbered 0..n-1 in Params, and outputs
// are defined. It returns all the problems found, joined.
func Verify(g *Graph) error {
	var errs []error
	bad := func(v Value, format string, args ...any) {
		n := &g.Nodes[v]
		errs = append(errs, &Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: fmt.Sprintf("%%%d: ", v) + fmt.Sprintf(format, args...)})
	}
	params := 0
	for i := range g.Nodes {
		v := Value(i)
		n := &g.Nodes[i]
		ok := true
		for _, a := range n.Args {
			if a < 0 || a >= v {
				bad(v, "operand %%%d is not defined before use", a)
				ok = false
			}
		}
		if !ok {
			continue
		}
		probe := *n
		partial := &Graph{Nodes: g.Nodes[:i]}
		dt, shape, err := infer(partial, &probe)
		if err != nil {
			bad(v, "%v", err)
			continue
		}
		if dt != n.DType || !shape.Equal(n.Shape) {
			bad(v, "recorded type %s%s, inferred %s%s", n.DType, n.Shape, dt, shape)
		}
		if n.Op == OpParam {
			if n.Index >= len(g.Params) || g.Params[n.Index] != v {
				bad(v, "param %d is not Params[%d]", n.Index, n.Index)
			}
			params++
		}
	}
	if params != len(g.Params) {
		errs = append(errs, fmt.Errorf("ir: %d param nodes but %d Params", params, len(g.Params)))
	}
	for i, p := range g.Params {
		if p < 0 || int(p) >= len(g.Nodes) || g.Nodes[p].Op != OpParam || g.Nodes[p].Index != i {
			errs = append(errs, fmt.Errorf("ir: Params[%d] = %%%d is not param %d", i, p, i))
		}
	}
	for _, o := range g.Outputs {
		if o < 0 || int(o) >= len(g.Nodes) {
			errs = append(errs, fmt.Errorf("ir: output %%%d is not defined", o))
		}
	}
	if len(g.Outputs) == 0 {
		errs = append(errs, errors.New("ir: graph has no outputs"))
	}
	return errors.Join(errs...)
}

// Compact returns a copy of g without the nodes no output depends on
// (parameters are always kept), renumbered densely in the same order, and
// the old-to-new value map (-1 for removed nodes).
func Compact(g *Graph) (*Graph, []Value) {
	live := make([]bool, len(g.Nodes))
	for _, o := range g.Outputs {
		live[o] = true
	}
	for _, p := range g.Params {
		live[p] = true
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if live[i] {
			for _, a := range g.Nodes[i].Args {
				live[a] = true
			}
		}
	}
	remap := make([]Value, len(g.Nodes))
	out := &Graph{}
	for i, n := range g.Nodes {
		if !live[i] {
			remap[i] = -1
			continue
		}
		n.Args = slices.Clone(n.Args)
		for j, a := range n.Args {
			n.Args[j] = remap[a]
		}
		remap[i] = Value(len(out.Nodes))
		out.Nodes = append(out.Nodes, n)
	}
	for _, p := range g.Params {
		out.Params = append(out.Params, remap[p])
	}
	for _, o := range g.Outputs {
		out.Outputs = append(out.Outputs, remap[o])
	}
	return out, remap
}
