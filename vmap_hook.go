package gojit

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/vmap"
)

// The batching transform (internal/vmap), as package pipeline reaches it
// to fuse a TensorOp into a compiled stage: tracing a function into a
// graph, and recording a graph into the trace being made.

func init() {
	vmap.H = vmap.Hooks{
		Trace: func(f any, args []any) (*ir.Graph, error) {
			return f.(*Func).trace(args)
		},
		Splice: splice,
	}
}

// splice records g's nodes into the trace of ins (see vmap.Hooks.Splice).
func splice(g *ir.Graph, ins []any) ([]any, error) {
	pcs := callers()
	if len(ins) != len(g.Params) {
		return nil, fmt.Errorf("gojit: splicing a graph of %d parameters with %d values", len(g.Params), len(ins))
	}
	ts := make([]*Tensor, len(ins))
	for i, in := range ins {
		ts[i] = in.(*Tensor)
	}
	tr, us, ok := unify("Vmap", pcs, ts...)
	if !ok {
		if tr != nil && len(tr.errs) > 0 {
			return nil, errorList(tr.errs)
		}
		return nil, errors.New("gojit: splicing a graph: an input is not a traced tensor")
	}
	m := make([]ir.Value, len(g.Nodes))
	for i, n := range g.Nodes {
		if n.Op == ir.OpParam {
			u := us[n.Index]
			if u.weak || u.DType().ir() != n.DType || !u.shape().Equal(n.Shape) {
				return nil, fmt.Errorf("gojit: splicing a graph: parameter %d is %s%s, given %s", n.Index, n.DType, n.Shape, u)
			}
			m[i] = u.v
			continue
		}
		args := make([]ir.Value, len(n.Args))
		for j, a := range n.Args {
			args[j] = m[a]
		}
		n.Args = args
		v, err := tr.g.Add(n)
		if err != nil {
			return nil, fmt.Errorf("gojit: splicing a graph: %w", err)
		}
		tr.pcs = append(tr.pcs, pcs)
		m[i] = v
	}
	outs := make([]any, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = &Tensor{tr: tr, v: m[o]}
	}
	return outs, nil
}
