package vmap

import "github.com/gojit/gojit/internal/ir"

// cond batches a cond whose predicate or operands depend on the sample:
// both regions are inlined, batched, and each result is chosen per sample
// with where. A region that reads at data-dependent positions (a gather
// or scatter, whose index check could fail in the branch a sample does not
// take) or loops (which might not end in that branch) is refused.
func (bt *batcher) cond(v ir.Value) error {
	orig := bt.g.Node(v)
	for _, r := range orig.Regions {
		if n := unsafeBranch(r); n != nil {
			return fail(orig, "a branch has a %s (at %s), which batching would run for every sample, also those that do not take the branch", n.Op, n.Pos)
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
	bt.tupleBat[v] = make([]bool, len(results))
	for i := range results {
		bt.tupleBat[v][i] = true
	}
	bt.bat[v] = true
	return nil
}

// while batches a loop whose state depends on the sample but whose
// condition does not (a ForLoop with fixed bounds, for instance): the
// same loop over the batch, each state value that depends on the sample
// (from the start, or after an iteration) carrying the batch axis. A loop
// whose condition depends on the sample would run a different number of
// times per sample: it is refused.
func (bt *batcher) while(v ir.Value) error {
	orig := bt.g.Node(v)
	cond, body := orig.Regions[0], orig.Regions[1]
	k := len(body.Outputs)
	flags := make([]bool, len(orig.Args))
	for i, a := range orig.Args {
		flags[i] = bt.bat[a]
	}
	// A state value is batched if it starts so or the body makes it so:
	// iterate to the fixed point (at most k rounds).
	for changed := true; changed; {
		_, bats, err := bt.region(body, flags, nil)
		if err != nil {
			return err
		}
		changed = false
		for i := range k {
			if bats[i] && !flags[i] {
				flags[i], changed = true, true
			}
		}
	}
	// The body's results take the state's form.
	bodyB, _, err := bt.region(body, flags, flags[:k])
	if err != nil {
		return err
	}
	condB, bats, err := bt.region(cond, flags, nil)
	if err != nil {
		return err
	}
	if bats[0] {
		return fail(orig, "the loop's condition depends on the sample, so each sample could run it a different number of times")
	}
	args := make([]ir.Value, len(orig.Args))
	for i, a := range orig.Args {
		args[i] = bt.m[a]
		if flags[i] {
			if args[i], err = bt.lift(a); err != nil {
				return err
			}
		}
	}
	w, err := bt.b.Add(ir.Node{Op: ir.OpWhile, Args: args, Regions: []*ir.Graph{condB, bodyB}, Pos: orig.Pos, Call: orig.Call})
	if err != nil {
		return err
	}
	var results []ir.Value
	for i := range k {
		t := bodyB.TypeOf(bodyB.Outputs[i])
		r, err := bt.b.Add(ir.Node{Op: ir.OpGet, DType: t.DType, Shape: t.Shape.Clone(), Index: i, Args: []ir.Value{w}, Pos: orig.Pos, Call: orig.Call})
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	bt.tuple[v], bt.tupleBat[v] = results, flags[:k]
	bt.bat[v] = true
	return nil
}

// region batches region r into a closed graph of its own whose parameter
// i has the batch axis if flags[i]. It returns the graph and whether each
// result has the batch axis; a result i with lift[i] set gets it.
func (bt *batcher) region(r *ir.Graph, flags, lift []bool) (*ir.Graph, []bool, error) {
	g := &ir.Graph{}
	sub := newBatcher(r, bt.n, g)
	for i, pv := range r.Params {
		t := r.TypeOf(pv)
		if flags[i] {
			t.Shape = bt.batched(t.Shape)
		}
		w, err := g.AddParam(t.DType, t.Shape.Clone(), r.Nodes[pv].Pos)
		if err != nil {
			return nil, nil, err
		}
		sub.m[pv], sub.bat[pv] = w, flags[i]
	}
	for i, n := range r.Nodes {
		if n.Op == ir.OpParam {
			continue
		}
		if err := sub.node(ir.Value(i)); err != nil {
			return nil, nil, err
		}
	}
	bats := make([]bool, len(r.Outputs))
	for i, o := range r.Outputs {
		out := sub.m[o]
		if i < len(lift) && lift[i] {
			var err error
			if out, err = sub.lift(o); err != nil {
				return nil, nil, err
			}
		}
		g.Outputs = append(g.Outputs, out)
		bats[i] = sub.bat[o]
	}
	return g, bats, nil
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

// unsafeBranch returns a gather, scatter or loop of g or of its regions,
// or nil.
func unsafeBranch(g *ir.Graph) *ir.Node {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if k := n.Op.Kind(); k == ir.KindGather || k == ir.KindScatter || n.Op == ir.OpWhile {
			return n
		}
		for _, r := range n.Regions {
			if m := unsafeBranch(r); m != nil {
				return m
			}
		}
	}
	return nil
}
