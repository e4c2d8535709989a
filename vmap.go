package gojit

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/vmap"
)

// Vmap returns fn applied to every sample of a batch: a function that,
// given x of shape [n, s...], returns the [n, r...] stack of fn's [r...]
// results on each x[i] of shape [s...]. fn is written for one sample, as
// JAX's vmap: it is traced once on a sample's shape and its graph is
// rewritten with a leading batch axis (every value that depends on the
// sample gets it, constants are broadcast where they meet it, each op's
// axes shift by one), so that the batch is one set of fused loops, not n
// copies of fn. A Cond over per-sample values computes both branches and
// chooses per sample; a ForLoop of fixed length runs once over the batch.
// When an op of fn has no batching rule (a While whose condition depends
// on the sample, a Cond whose branches gather or loop, a random key
// computed from the sample), Vmap
// calls fn on each sample instead and stacks the results: the same
// values, a larger graph.
//
// The returned function is called inside a traced function (Compile);
// errors in fn are recorded there, as for any op.
func Vmap(fn func(x *Tensor) *Tensor) func(x *Tensor) *Tensor {
	return func(x *Tensor) *Tensor {
		pcs := callers()
		tr, xs, ok := unify1("Vmap", pcs, x)
		if !ok {
			return failed(tr, "Vmap")
		}
		x = xs[0]
		if x.weak || x.Rank() == 0 {
			return tr.fail("Vmap", pcs, "x has no batch axis: want a tensor of rank at least 1, got %s", x)
		}
		if fn == nil {
			return tr.fail("Vmap", pcs, "fn is nil")
		}
		shape := x.Shape()
		f, err := Compile(fn)
		if err == nil {
			var g *ir.Graph
			if g, err = f.trace([]any{New(x.DType(), shape[1:]...)}); err != nil {
				return tr.fail("Vmap", pcs, "%v", err)
			}
			var p *vmap.Plan
			if p, err = vmap.New(g); err == nil {
				var bg *ir.Graph
				if bg, err = p.Batch(shape[0]); err == nil {
					var outs []any
					if outs, err = splice(bg, []any{x}); err == nil {
						return outs[0].(*Tensor)
					}
				}
				return tr.fail("Vmap", pcs, "%v", err)
			}
		}
		// No batching rule: fn on each sample, stacked.
		parts := make([]*Tensor, shape[0])
		for i := range parts {
			starts, stops := make([]int, len(shape)), slices.Clone(shape)
			starts[0], stops[0] = i, i+1
			y := fn(x.Slice(starts, stops).Reshape(shape[1:]...))
			if y == nil {
				return tr.fail("Vmap", pcs, "fn returned nil")
			}
			parts[i] = y.Reshape(append([]int{1}, y.Shape()...)...)
		}
		return Concat(0, parts...)
	}
}

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
