package gojit

import (
	"github.com/gojit/gojit/internal/ir"
)

// Sort returns t sorted ascending along axis (negative counts from the
// end), numpy.sort(x, axis). Floats are ordered as IEEE totalOrder, so -0
// comes before +0, with every NaN last (NumPy also puts NaN last, and
// keeps -0 and +0 in input order). Bool sorts false before true.
func (t *Tensor) Sort(axis int) *Tensor { return t.sort("Sort", ir.OpSort, axis, callers()) }

// ArgSort returns the Int64 indices that sort t along axis, in Sort's
// order, equal elements in index order: numpy.argsort(x, axis,
// kind="stable").
func (t *Tensor) ArgSort(axis int) *Tensor { return t.sort("ArgSort", ir.OpArgSort, axis, callers()) }

func (t *Tensor) sort(name string, op ir.Op, axis int, pcs callStack) *Tensor {
	tr, x, ok := t.shapeOp(name, pcs)
	if !ok {
		return failed(tr, name)
	}
	n := tr.node(x.v)
	r := n.Shape.Rank()
	axis, err := normAxis(axis, r)
	if err != nil {
		return tr.fail(name, pcs, "%v", err)
	}
	isBool := n.DType == ir.Bool
	if isBool {
		x = tr.cast(x, ir.Uint8, pcs)
		if x.v == poison {
			return x
		}
	}
	s := tr.add(ir.Node{Op: op, Args: []ir.Value{x.v}, Axes: []int{axis}}, pcs)
	if isBool && op == ir.OpSort && s.v != poison {
		s = tr.cast(s, ir.Bool, pcs)
	}
	return s
}

// TopK returns the k largest elements along the last axis, largest first,
// and their Int64 indices, as jax.lax.top_k: equal elements come in index
// order, and NaN counts as larger than every number. k must be in [0, n]
// for an axis of n elements.
func (t *Tensor) TopK(k int) (values, indices *Tensor) {
	pcs := callers()
	tr, x, ok := t.shapeOp("TopK", pcs)
	if !ok {
		p := failed(tr, "TopK")
		return p, p
	}
	shape := tr.node(x.v).Shape
	r := shape.Rank()
	if r == 0 {
		p := tr.fail("TopK", pcs, "needs a tensor of rank >= 1, got a scalar")
		return p, p
	}
	n := shape[r-1]
	if k < 0 || k > n {
		p := tr.fail("TopK", pcs, "k = %d out of range for a last axis of %d", k, n)
		return p, p
	}
	// Descending with ties in index order: sort the reversed axis stably
	// ascending and read that order backwards. Position j of the reversed
	// axis is index n-1-j of t, so among equal values the larger j, the
	// smaller index, comes first.
	rev := x.flipLast(pcs)
	idx := rev.sort("TopK", ir.OpArgSort, -1, pcs).flipLast(pcs)
	idx = Scalar(float64(n-1)).binary(ir.OpSub, idx, pcs)
	vals := x.sort("TopK", ir.OpSort, -1, pcs).flipLast(pcs)
	starts, stops := make([]int, r), make([]int, r)
	copy(stops, shape)
	stops[r-1] = k
	return vals.slice(starts, stops, nil, pcs), idx.slice(starts, stops, nil, pcs)
}

// flipLast reverses the last axis.
func (t *Tensor) flipLast(pcs callStack) *Tensor {
	if t.tr == nil || t.v == poison {
		return t
	}
	shape := t.tr.node(t.v).Shape
	r := shape.Rank()
	if shape[r-1] == 0 {
		return t
	}
	return t.axisSlice(r-1, shape[r-1]-1, -1, shape[r-1], pcs)
}
