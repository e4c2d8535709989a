package vmap

import "github.com/gojit/gojit/internal/ir"

// scatterAdd adds a scatter_add whose indices depend on the sample as one
// scatter_add over the batch, the batch axis folded into the scattered
// one: x [n, X...] becomes [X[:a], n*X[a], X[a+1:]], sample i's index j
// becomes i*X[a] + j (j wrapped first when negative), and the updates
// move their batch axis next to the indices'. Each sample's updates are
// added in their own order, as per sample. An index out of range becomes
// n*X[a], out of range too: the run fails as per sample, but the error
// shows that value, not the sample's own.
func (bt *batcher) scatterAdd(v ir.Value) error {
	orig := bt.g.Node(v)
	add := func(n ir.Node) (ir.Value, error) {
		n.Pos, n.Call = orig.Pos, orig.Call
		return bt.b.Add(n)
	}
	xs := bt.g.Node(orig.Args[0]).Shape
	is := bt.g.Node(orig.Args[1]).Shape
	dt := bt.g.Node(orig.Args[0]).DType
	a := orig.Axes[0]
	dim := xs[a]
	x, err := bt.lift(orig.Args[0])
	if err != nil {
		return err
	}
	upd, err := bt.lift(orig.Args[2])
	if err != nil {
		return err
	}
	// The batch axis to position a, for x and the updates.
	toA := func(val ir.Value) (ir.Value, error) {
		r := len(bt.b.Node(val).Shape)
		perm := make([]int, 0, r)
		for i := 1; i <= a; i++ {
			perm = append(perm, i)
		}
		perm = append(perm, 0)
		for i := a + 1; i < r; i++ {
			perm = append(perm, i)
		}
		return add(ir.Node{Op: ir.OpTranspose, Axes: perm, Args: []ir.Value{val}})
	}
	if x, err = toA(x); err != nil {
		return err
	}
	folded := append(append(xs[:a].Clone(), bt.n*dim), xs[a+1:]...)
	if x, err = add(ir.Node{Op: ir.OpReshape, DType: dt, Shape: folded, Args: []ir.Value{x}}); err != nil {
		return err
	}
	if upd, err = toA(upd); err != nil {
		return err
	}
	// The indices: i*dim + (j < 0 ? j+dim : j), or n*dim when j is out of
	// [-dim, dim).
	ishape := bt.batched(is)
	c := func(val int64) (ir.Value, error) {
		return add(ir.Node{Op: ir.OpConst, DType: ir.Int64, Shape: ishape.Clone(), Const: ir.Const{I: val}})
	}
	j := bt.m[orig.Args[1]]
	if bt.g.Node(orig.Args[1]).DType != ir.Int64 {
		if j, err = add(ir.Node{Op: ir.OpCast, DType: ir.Int64, Args: []ir.Value{j}}); err != nil {
			return err
		}
	}
	zero, err := c(0)
	if err != nil {
		return err
	}
	d, err := c(int64(dim))
	if err != nil {
		return err
	}
	negD, err := c(int64(-dim))
	if err != nil {
		return err
	}
	bad, err := c(int64(bt.n * dim))
	if err != nil {
		return err
	}
	neg, err := add(ir.Node{Op: ir.OpLt, Args: []ir.Value{j, zero}})
	if err != nil {
		return err
	}
	jd, err := add(ir.Node{Op: ir.OpAdd, Args: []ir.Value{j, d}})
	if err != nil {
		return err
	}
	w, err := add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{neg, jd, j}})
	if err != nil {
		return err
	}
	iota, err := add(ir.Node{Op: ir.OpIota, DType: ir.Int64, Shape: ishape.Clone(), Axes: []int{0}})
	if err != nil {
		return err
	}
	off, err := add(ir.Node{Op: ir.OpMul, Args: []ir.Value{iota, d}})
	if err != nil {
		return err
	}
	if w, err = add(ir.Node{Op: ir.OpAdd, Args: []ir.Value{w, off}}); err != nil {
		return err
	}
	lo, err := add(ir.Node{Op: ir.OpGe, Args: []ir.Value{j, negD}})
	if err != nil {
		return err
	}
	hi, err := add(ir.Node{Op: ir.OpLt, Args: []ir.Value{j, d}})
	if err != nil {
		return err
	}
	no, err := add(ir.Node{Op: ir.OpConst, DType: ir.Bool, Shape: ishape.Clone()})
	if err != nil {
		return err
	}
	ok, err := add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{lo, hi, no}})
	if err != nil {
		return err
	}
	if w, err = add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{ok, w, bad}}); err != nil {
		return err
	}
	y, err := add(ir.Node{Op: ir.OpScatterAdd, Axes: []int{a}, Args: []ir.Value{x, w, upd}})
	if err != nil {
		return err
	}
	// Back to [n, X...].
	unfolded := append(append(xs[:a].Clone(), bt.n, dim), xs[a+1:]...)
	if y, err = add(ir.Node{Op: ir.OpReshape, DType: dt, Shape: unfolded, Args: []ir.Value{y}}); err != nil {
		return err
	}
	perm := []int{a}
	for i := range len(unfolded) {
		if i != a {
			perm = append(perm, i)
		}
	}
	if y, err = add(ir.Node{Op: ir.OpTranspose, Axes: perm, Args: []ir.Value{y}}); err != nil {
		return err
	}
	bt.m[v], bt.bat[v] = y, true
	return nil
}
