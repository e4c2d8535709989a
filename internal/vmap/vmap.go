package vmap

import (
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Hooks are the functions the root package registers (see H). Values are
// passed as any: the root package's *gojit.Func, *gojit.Array and
// *gojit.Tensor, which this package cannot name without an import cycle.
type Hooks struct {
	// Trace traces f, a *gojit.Func whose parameters are all tensors, on
	// args (*gojit.Array values: only their dtypes and shapes matter) and
	// returns the recorded graph, before any pass.
	Trace func(f any, args []any) (*ir.Graph, error)
	// Splice records g's nodes into the trace that the *gojit.Tensor
	// values ins belong to, binding g's parameter i to ins[i], and
	// returns g's outputs as *gojit.Tensor values of that trace.
	Splice func(g *ir.Graph, ins []any) ([]any, error)
}

// H holds the root package's hooks, set by its init function.
var H Hooks

// class says what a value of the per-sample graph depends on.
type class uint8

const (
	constant class = iota // neither x nor the key: computed once, unbatched
	keyed                 // the key, not x: computed per sample before the stage
	sample                // x: batched
)

// input is a per-sample value the batched graph reads besides x: one
// value of the frontier, computed by the keyed graph.
type input struct {
	DType ir.DType
	Shape ir.Shape
}

// Plan is a per-sample graph split for batching (see the package doc).
type Plan struct {
	g        *ir.Graph
	class    []class
	live     []bool     // the nodes of the batched part
	frontier []ir.Value // keyed values the batched part reads
	inputs   []input
	keyedG   *ir.Graph
}

// New splits g, a per-sample graph with x as parameter 0 and optionally
// the sample's key as parameter 1, into its keyed and batched parts, and
// checks that every op of the batched part has a batching rule: the error
// names the first op that has none, with the reason.
func New(g *ir.Graph) (*Plan, error) {
	if len(g.Params) < 1 || len(g.Params) > 2 {
		return nil, fmt.Errorf("vmap: the graph has %d parameters; want x and optionally a key", len(g.Params))
	}
	p := &Plan{g: g, class: make([]class, len(g.Nodes)), live: make([]bool, len(g.Nodes))}
	for i, n := range g.Nodes {
		c := constant
		switch {
		case n.Op == ir.OpParam && n.Index == 0:
			c = sample
		case n.Op == ir.OpParam:
			c = keyed
		}
		for _, a := range n.Args {
			c = max(c, p.class[a])
		}
		if c == keyed && n.Op == ir.OpBroadcast && n.Shape.Size() > g.Nodes[n.Args[0]].Shape.Size() {
			// Broadcast in the stage, not before: the draws carry the
			// smaller value (a per-channel factor, not a whole image).
			c = sample
		}
		p.class[i] = c
	}
	// The batched part: what the outputs need, down to the keyed values,
	// which it reads as inputs.
	isFront := make([]bool, len(g.Nodes))
	for _, o := range g.Outputs {
		p.live[o] = true
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if !p.live[i] {
			continue
		}
		if p.class[i] == keyed {
			isFront[i] = true
			continue
		}
		for _, a := range g.Nodes[i].Args {
			p.live[a] = true
		}
	}
	for i, f := range isFront {
		if !f {
			continue
		}
		n := &g.Nodes[i]
		if pieces(n.DType) == 0 {
			return nil, &ir.Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: fmt.Sprintf(
				"no batching rule: its %s%s result, drawn from the key, reaches the sample's computation, but float32 draws carry only f32, f16, bf16, bool, u8, i32 and i64 values exactly",
				n.DType, n.Shape)}
		}
		p.frontier = append(p.frontier, ir.Value(i))
		p.inputs = append(p.inputs, input{DType: n.DType, Shape: n.Shape.Clone()})
	}
	if len(p.frontier) > 0 {
		kg, err := p.keyedGraph()
		if err != nil {
			return nil, err
		}
		p.keyedG = kg
	}
	if _, err := p.Batch(2); err != nil {
		return nil, err
	}
	return p, nil
}

// PerSample returns the number of float32 values the keyed graph
// produces per sample (0 without one).
func (p *Plan) PerSample() int {
	n := 0
	for _, in := range p.inputs {
		n += pieces(in.DType) * in.Shape.Size()
	}
	return n
}

// Keyed returns the keyed graph: from the key (its one parameter) to one
// Float32 vector of PerSample values: the frontier's values, each
// flattened and encoded exactly in float32 pieces (draws.go), one after
// the other. It is nil
// when the batched part reads nothing drawn from the key.
func (p *Plan) Keyed() *ir.Graph { return p.keyedG }

// keyedGraph copies the values the frontier needs into a graph of the key.
func (p *Plan) keyedGraph() (*ir.Graph, error) {
	g := p.g
	need := make([]bool, len(g.Nodes))
	for _, f := range p.frontier {
		need[f] = true
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if need[i] {
			for _, a := range g.Nodes[i].Args {
				need[a] = true
			}
		}
	}
	k := &ir.Graph{}
	m := make([]ir.Value, len(g.Nodes))
	for i, n := range g.Nodes {
		if !need[i] {
			continue
		}
		if n.Op == ir.OpParam {
			v, err := k.AddParam(n.DType, n.Shape.Clone(), n.Pos)
			if err != nil {
				return nil, err
			}
			m[i] = v
			continue
		}
		n.Args = remap(n.Args, m)
		v, err := k.Add(n)
		if err != nil {
			return nil, fmt.Errorf("vmap: copying a valid node: %w", err)
		}
		m[i] = v
	}
	if len(k.Params) != 1 {
		return nil, fmt.Errorf("vmap: the keyed graph has %d parameters, want the key alone", len(k.Params))
	}
	var parts []ir.Value
	for _, f := range p.frontier {
		ps, err := encode(k, m[f])
		if err != nil {
			return nil, err
		}
		parts = append(parts, ps...)
	}
	out := parts[0]
	if len(parts) > 1 {
		v, err := k.Add(ir.Node{Op: ir.OpConcat, Axes: []int{0}, Args: parts})
		if err != nil {
			return nil, err
		}
		out = v
	}
	k.Outputs = []ir.Value{out}
	return k, nil
}

func remap(args []ir.Value, m []ir.Value) []ir.Value {
	out := make([]ir.Value, len(args))
	for i, a := range args {
		out[i] = m[a]
	}
	return out
}

// batcher rewrites the batched part for one batch size.
type batcher struct {
	g      *ir.Graph // the per-sample graph (or a region of it)
	n      int
	b      *ir.Graph
	m      []ir.Value // per-sample value -> its value in b
	bat    []bool     // whether m[v] has the batch axis
	lifted map[ir.Value]ir.Value
	// The results of a control-flow op batched inline (control.go), read
	// by its get nodes.
	tuple    map[ir.Value][]ir.Value
	tupleBat map[ir.Value][]bool
}

func newBatcher(g *ir.Graph, n int, b *ir.Graph) *batcher {
	return &batcher{g: g, n: n, b: b, m: make([]ir.Value, len(g.Nodes)), bat: make([]bool, len(g.Nodes)), lifted: map[ir.Value]ir.Value{}, tuple: map[ir.Value][]ir.Value{}, tupleBat: map[ir.Value][]bool{}}
}

// Batch returns the batched part for a batch of n samples: parameter 0 is
// x's batch [n, x's shape...], parameter 1, with a keyed graph, the
// [n, PerSample] Float32 array of each sample's keyed values, and the
// outputs are the batches of the per-sample graph's outputs (a
// constant output is broadcast along the batch).
func (p *Plan) Batch(n int) (*ir.Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("vmap: batch of %d samples", n)
	}
	g := p.g
	bt := newBatcher(g, n, &ir.Graph{})
	x := g.Node(g.Params[0])
	v, err := bt.b.AddParam(x.DType, bt.batched(x.Shape), x.Pos)
	if err != nil {
		return nil, err
	}
	bt.m[g.Params[0]], bt.bat[g.Params[0]] = v, true
	if len(p.frontier) > 0 {
		draws, err := bt.b.AddParam(ir.Float32, ir.Shape{n, p.PerSample()}, "per-sample draws")
		if err != nil {
			return nil, err
		}
		off := 0
		for j, f := range p.frontier {
			v, err := decode(bt.b, draws, off, n, p.inputs[j])
			if err != nil {
				return nil, err
			}
			bt.m[f], bt.bat[f] = v, true
			off += pieces(p.inputs[j].DType) * p.inputs[j].Shape.Size()
		}
	}
	for i := range g.Nodes {
		if !p.live[i] || p.class[i] == keyed || g.Nodes[i].Op == ir.OpParam {
			continue
		}
		if err := bt.node(ir.Value(i)); err != nil {
			return nil, err
		}
	}
	for _, o := range g.Outputs {
		v, err := bt.lift(o)
		if err != nil {
			return nil, err
		}
		bt.b.Outputs = append(bt.b.Outputs, v)
	}
	return bt.b, nil
}

// batched returns [n, s...].
func (bt *batcher) batched(s ir.Shape) ir.Shape {
	return append(ir.Shape{bt.n}, s...)
}

// shift returns the axes moved past the batch axis.
func shift(axes []int) []int {
	out := make([]int, len(axes))
	for i, a := range axes {
		out[i] = a + 1
	}
	return out
}

// lift returns v's value with the batch axis, broadcasting an unbatched
// one (once).
func (bt *batcher) lift(v ir.Value) (ir.Value, error) {
	if bt.bat[v] {
		return bt.m[v], nil
	}
	if l, ok := bt.lifted[v]; ok {
		return l, nil
	}
	n := bt.g.Node(v)
	l, err := bt.b.Add(ir.Node{Op: ir.OpBroadcast, DType: n.DType, Shape: bt.batched(n.Shape), Args: []ir.Value{bt.m[v]}, Pos: n.Pos, Call: n.Call})
	if err != nil {
		return 0, err
	}
	bt.lifted[v] = l
	return l, nil
}

// fail reports an op that has no batching rule for its operands.
func fail(n *ir.Node, format string, args ...any) error {
	return &ir.Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: "no batching rule: " + fmt.Sprintf(format, args...)}
}

// node adds per-sample node v to the batched graph.
func (bt *batcher) node(v ir.Value) error {
	orig := bt.g.Node(v)
	n := *orig
	n.Args = remap(orig.Args, bt.m)
	batched := false
	for _, a := range orig.Args {
		batched = batched || bt.bat[a]
	}
	if !batched {
		// A constant: computed once, with its own shape.
		w, err := bt.b.Add(n)
		if err != nil {
			return fmt.Errorf("vmap: copying a valid node: %w", err)
		}
		bt.m[v] = w
		return nil
	}
	n.Shape = bt.batched(orig.Shape)
	liftAll := func() error {
		for i, a := range orig.Args {
			l, err := bt.lift(a)
			if err != nil {
				return err
			}
			n.Args[i] = l
		}
		return nil
	}
	var err error
	switch orig.Op.Kind() {
	case ir.KindUnary, ir.KindCast:
	case ir.KindBinary, ir.KindCompare, ir.KindSelect, ir.KindMatMul:
		err = liftAll()
	case ir.KindReduce, ir.KindArgReduce, ir.KindScan, ir.KindSort:
		n.Axes = shift(orig.Axes)
	case ir.KindLayout:
		err = bt.layout(orig, &n)
	case ir.KindGather:
		if orig.Op == ir.OpTake && bt.bat[orig.Args[1]] {
			return bt.takeBatched(v)
		}
		if orig.Op == ir.OpTakeAlongAxis {
			err = liftAll()
		}
		n.Axes = shift(orig.Axes)
	case ir.KindScatter:
		if bt.bat[orig.Args[1]] {
			return bt.scatterAdd(v)
		}
		if n.Args[0], err = bt.lift(orig.Args[0]); err == nil {
			n.Args[2], err = bt.lift(orig.Args[2])
		}
		n.Axes = shift(orig.Axes)
	case ir.KindDynamicSlice:
		for _, s := range orig.Args[1:] {
			if bt.bat[s] {
				return bt.dynamicSlice(v)
			}
		}
		dt := ir.Int32
		if len(orig.Args) > 1 {
			dt = bt.g.Node(orig.Args[1]).DType
		}
		zero, err := bt.b.Add(ir.Node{Op: ir.OpConst, DType: dt, Shape: ir.Shape{}})
		if err != nil {
			return err
		}
		n.Args = slices.Insert(n.Args, 1, zero)
	case ir.KindRandom:
		return fail(orig, "its key depends on the sample's value (derive keys from the key argument alone)")
	case ir.KindControl:
		if orig.Op == ir.OpCond {
			return bt.cond(v)
		}
		return bt.while(v)
	case ir.KindGet:
		bt.m[v], bt.bat[v] = bt.tuple[orig.Args[0]][orig.Index], bt.tupleBat[orig.Args[0]][orig.Index]
		return nil
	default:
		return fail(orig, "unknown op kind")
	}
	if err != nil {
		return err
	}
	w, err := bt.b.Add(n)
	if err != nil {
		return fmt.Errorf("vmap: batching %s: %w", orig.Op, err)
	}
	bt.m[v], bt.bat[v] = w, true
	return nil
}

// layout rewrites a batched reshape, transpose, broadcast, slice or
// concat.
func (bt *batcher) layout(orig, n *ir.Node) error {
	switch orig.Op {
	case ir.OpReshape:
	case ir.OpTranspose:
		n.Axes = append([]int{0}, shift(orig.Axes)...)
	case ir.OpBroadcast:
		// NumPy aligns the operand on the right: give it the target's
		// rank first, so that its batch axis meets the result's.
		a := bt.g.Node(orig.Args[0])
		if extra := len(orig.Shape) - len(a.Shape); extra > 0 {
			s := append(ir.Shape{bt.n}, make(ir.Shape, extra)...)
			for i := 1; i <= extra; i++ {
				s[i] = 1
			}
			s = append(s, a.Shape...)
			r, err := bt.b.Add(ir.Node{Op: ir.OpReshape, DType: a.DType, Shape: s, Args: []ir.Value{n.Args[0]}, Pos: orig.Pos, Call: orig.Call})
			if err != nil {
				return err
			}
			n.Args[0] = r
		}
	case ir.OpSlice:
		n.Starts = append([]int{0}, orig.Starts...)
		n.Steps = append([]int{1}, orig.Steps...)
	case ir.OpConcat:
		for i, a := range orig.Args {
			l, err := bt.lift(a)
			if err != nil {
				return err
			}
			n.Args[i] = l
		}
		n.Axes = shift(orig.Axes)
	default:
		return fail(orig, "unknown layout op")
	}
	return nil
}

// takeBatched adds a take whose indices depend on the sample as a
// take_along_axis: x [n, X...] along axis a+1 at the indices [n, I...]
// flattened to K = |I| and broadcast to [n, X[:a], K, X[a+1:]], reshaped
// to take's [n, X[:a], I..., X[a+1:]]. An index out of range is reported
// at its position in that broadcast array, not in the original one.
func (bt *batcher) takeBatched(v ir.Value) error {
	orig := bt.g.Node(v)
	xs, is := bt.g.Node(orig.Args[0]).Shape, bt.g.Node(orig.Args[1]).Shape
	idt := bt.g.Node(orig.Args[1]).DType
	a := orig.Axes[0]
	k := is.Size()
	x, err := bt.lift(orig.Args[0])
	if err != nil {
		return err
	}
	add := func(n ir.Node) (ir.Value, error) {
		n.Pos, n.Call = orig.Pos, orig.Call
		return bt.b.Add(n)
	}
	// [n, 1 (a times), K, 1 (rank-a-1 times)]
	flat := ir.Shape{bt.n}
	for range a {
		flat = append(flat, 1)
	}
	flat = append(flat, k)
	for range len(xs) - a - 1 {
		flat = append(flat, 1)
	}
	idx, err := add(ir.Node{Op: ir.OpReshape, DType: idt, Shape: flat, Args: []ir.Value{bt.m[orig.Args[1]]}})
	if err != nil {
		return err
	}
	full := append(ir.Shape{bt.n}, xs...)
	full[a+1] = k
	if idx, err = add(ir.Node{Op: ir.OpBroadcast, DType: idt, Shape: full, Args: []ir.Value{idx}}); err != nil {
		return err
	}
	y, err := add(ir.Node{Op: ir.OpTakeAlongAxis, Axes: []int{a + 1}, Args: []ir.Value{x, idx}})
	if err != nil {
		return err
	}
	if y, err = add(ir.Node{Op: ir.OpReshape, DType: orig.DType, Shape: bt.batched(orig.Shape), Args: []ir.Value{y}}); err != nil {
		return err
	}
	bt.m[v], bt.bat[v] = y, true
	return nil
}

// dynamicSlice adds a dynamic slice whose starts depend on the sample as
// one take_along_axis per axis the window does not span whole: the
// window's positions along it, each sample's start clamped to [0,
// dim-size] as dynamic_slice does, plus an iota. The positions are always
// in range.
func (bt *batcher) dynamicSlice(v ir.Value) error {
	orig := bt.g.Node(v)
	add := func(n ir.Node) (ir.Value, error) {
		n.Pos, n.Call = orig.Pos, orig.Call
		return bt.b.Add(n)
	}
	cur, err := bt.lift(orig.Args[0])
	if err != nil {
		return err
	}
	xs := bt.g.Node(orig.Args[0]).Shape
	shape := bt.batched(xs)
	for k, dim := range xs {
		size := orig.Shape[k]
		if size == dim {
			continue // the start clamps to 0
		}
		s := orig.Args[1+k]
		st := bt.m[s]
		sshape := bt.b.Node(st).Shape.Clone()
		if bt.g.Node(s).DType != ir.Int64 {
			if st, err = add(ir.Node{Op: ir.OpCast, DType: ir.Int64, Args: []ir.Value{st}}); err != nil {
				return err
			}
		}
		hi, err := add(ir.Node{Op: ir.OpConst, DType: ir.Int64, Shape: sshape, Const: ir.Const{I: int64(dim - size)}})
		if err != nil {
			return err
		}
		zero, err := add(ir.Node{Op: ir.OpConst, DType: ir.Int64, Shape: sshape})
		if err != nil {
			return err
		}
		if st, err = add(ir.Node{Op: ir.OpMin, Args: []ir.Value{st, hi}}); err != nil {
			return err
		}
		if st, err = add(ir.Node{Op: ir.OpMax, Args: []ir.Value{st, zero}}); err != nil {
			return err
		}
		// [n] (or [] for a start common to the batch) to [n, 1, ...].
		ones := make(ir.Shape, len(shape))
		for i := range ones {
			ones[i] = 1
		}
		if bt.bat[s] {
			ones[0] = bt.n
		}
		if st, err = add(ir.Node{Op: ir.OpReshape, DType: ir.Int64, Shape: ones, Args: []ir.Value{st}}); err != nil {
			return err
		}
		win := shape.Clone()
		win[k+1] = size
		if st, err = add(ir.Node{Op: ir.OpBroadcast, DType: ir.Int64, Shape: win.Clone(), Args: []ir.Value{st}}); err != nil {
			return err
		}
		iota, err := add(ir.Node{Op: ir.OpIota, DType: ir.Int64, Shape: win.Clone(), Axes: []int{k + 1}})
		if err != nil {
			return err
		}
		idx, err := add(ir.Node{Op: ir.OpAdd, Args: []ir.Value{st, iota}})
		if err != nil {
			return err
		}
		if cur, err = add(ir.Node{Op: ir.OpTakeAlongAxis, Axes: []int{k + 1}, Args: []ir.Value{cur, idx}}); err != nil {
			return err
		}
		shape = win
	}
	bt.m[v], bt.bat[v] = cur, true
	return nil
}
