package vmap

import "github.com/gojit/gojit/internal/ir"

// cond batches a cond whose predicate or operands depend on the sample:
// both regions are inlined, batched, and each result is chosen per sample
// with where. A region that reads at data-dependent positions (a gather
// or scatter, whose index check could fail in the branch a sample does not
// take) is refused.
func (bt *batcher) cond(v ir.Value) error {
	orig := bt.g.Node(v)
	for _, r := range orig.Regions {
		if n := indexing(r); n != nil {
			return fail(orig, "a branch reads at data-dependent positions (%s at %s), which batching would run for every sample", n.Op, n.Pos)
		}
	}
	var res [2][]ir.Value
	for i, r := range orig.Regions {
		outs, err := bt.inline(r, orig.Args[1:])
		if err != nil {
			return err
		}
		res[i] = outs
	}
	pred := orig.Args[0]
	var results []ir.Value
	for i := range res[0] {
		full := bt.b.TypeOf(res[0][i]).Shape // inline returns [n, ...]
		shape := full[1:]
		p := bt.m[pred]
		if bt.bat[pred] {
			s := ir.Shape{bt.n}
			for range shape {
				s = append(s, 1)
			}
			var err error
			if p, err = bt.b.Add(ir.Node{Op: ir.OpReshape, DType: ir.Bool, Shape: s, Args: []ir.Value{p}, Pos: orig.Pos, Call: orig.Call}); err != nil {
				return err
			}
		}
		p, err := bt.b.Add(ir.Node{Op: ir.OpBroadcast, DType: ir.Bool, Shape: full, Args: []ir.Value{p}, Pos: orig.Pos, Call: orig.Call})
		if err != nil {
			return err
		}
		w, err := bt.b.Add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{p, res[0][i], res[1][i]}, Pos: orig.Pos, Call: orig.Call})
		if err != nil {
			return err
		}
		results = append(results, w)
	}
	bt.tuple[v] = results
	bt.bat[v] = true
	return nil
}

// inline batches region r into the batched graph with its parameters
// bound to the values args of bt's graph, and returns its results, each
// with the batch axis.
func (bt *batcher) inline(r *ir.Graph, args []ir.Value) ([]ir.Value, error) {
	sub := newBatcher(r, bt.n, bt.b)
	for i, pv := range r.Params {
		sub.m[pv], sub.bat[pv] = bt.m[args[i]], bt.bat[args[i]]
	}
	for i, n := range r.Nodes {
		if n.Op == ir.OpParam {
			continue
		}
		if err := sub.node(ir.Value(i)); err != nil {
			return nil, err
		}
	}
	var outs []ir.Value
	for _, o := range r.Outputs {
		l, err := sub.lift(o)
		if err != nil {
			return nil, err
		}
		outs = append(outs, l)
	}
	return outs, nil
}

// indexing returns a gather or scatter of g or of its regions, or nil.
func indexing(g *ir.Graph) *ir.Node {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if k := n.Op.Kind(); k == ir.KindGather || k == ir.KindScatter {
			return n
		}
		for _, r := range n.Regions {
			if m := indexing(r); m != nil {
				return m
			}
		}
	}
	return nil
}
