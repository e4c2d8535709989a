package gojit

import (
	"github.com/gojit/gojit/internal/ir"
)

// Indexing ops: gathers, scatter-add and dynamic slices (docs/indexing.md).
//
// An index i along an axis of size d is valid when -d <= i < d; negative
// indices count from the end, as in NumPy. An invalid index never reads or
// writes outside a buffer: Call returns an error wrapping
// ErrIndexOutOfRange that names the op, the file:line where it was traced,
// the offending value and its position in the index tensor. Compiled and
// interpreted runs report the same error (the first offending index in
// the order the ops were traced, then in row-major order of the indices).

// ErrIndexOutOfRange is wrapped by the error Call returns when Take,
// TakeAlongAxis or ScatterAdd meets an index outside its axis.
var ErrIndexOutOfRange = ir.ErrIndexOutOfRange

// Take gathers along axis, as NumPy's take(t, indices, axis): the result
// has shape t.shape[:axis] + indices.shape + t.shape[axis+1:], and its
// element [a..., j..., b...] is t[a..., indices[j...], b...]. indices is an
// integer tensor (Uint8, Int32 or Int64) or a Scalar; a 0-D index removes
// the axis, so keys.Take(Scalar(i), 0) is row i of keys.
func (t *Tensor) Take(indices *Tensor, axis int) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("take", pcs, t, indices)
	if !ok {
		return failed(tr, "take")
	}
	x, idx, ax, ok := tr.gatherOperands("take", pcs, ts[0], ts[1], axis)
	if !ok {
		return poisoned(tr)
	}
	return tr.add(ir.Node{Op: ir.OpTake, Args: []ir.Value{x.v, idx.v}, Axes: []int{ax}}, pcs)
}

// TakeAlongAxis is NumPy's take_along_axis(t, indices, axis): indices has
// t's rank, and the result element at position q is t at q with
// coordinate axis replaced by indices[q]. Off the axis the two shapes
// broadcast against each other; along it the result has indices' length.
// ArgSort-style selections and per-row lookups are written with it.
func (t *Tensor) TakeAlongAxis(indices *Tensor, axis int) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("take_along_axis", pcs, t, indices)
	if !ok {
		return failed(tr, "take_along_axis")
	}
	x, idx, ax, ok := tr.gatherOperands("take_along_axis", pcs, ts[0], ts[1], axis)
	if !ok {
		return poisoned(tr)
	}
	xs, is := tr.node(x.v).Shape, tr.node(idx.v).Shape
	if len(xs) != len(is) {
		return tr.fail("take_along_axis", pcs, "indices %s must have the rank of %s", is, xs)
	}
	xw, iw := xs.Clone(), is.Clone()
	for k := range xs {
		if k == ax {
			continue
		}
		switch {
		case xs[k] == is[k]:
		case xs[k] == 1:
			xw[k] = is[k]
		case is[k] == 1:
			iw[k] = xs[k]
		default:
			return tr.fail("take_along_axis", pcs, "indices %s and %s do not broadcast off axis %d", is, xs, ax)
		}
	}
	x, idx = tr.broadcast(x, xw, pcs), tr.broadcast(idx, iw, pcs)
	if x.v == poison || idx.v == poison {
		return poisoned(tr)
	}
	return tr.add(ir.Node{Op: ir.OpTakeAlongAxis, Args: []ir.Value{x.v, idx.v}, Axes: []int{ax}}, pcs)
}

// ScatterAdd returns a copy of t with updates added at indices along axis:
// the transpose of Take. updates is broadcast to Take's result shape,
// t.shape[:axis] + indices.shape + t.shape[axis+1:], and converted to t's
// dtype; update [a..., j..., b...] is added to element
// [a..., indices[j...], b...]. Duplicate indices add up: each element is
// t's value plus its updates in row-major order of the updates, the same
// order compiled and interpreted (float sums are equal bit for bit). t must
// not be Bool.
func (t *Tensor) ScatterAdd(indices, updates *Tensor, axis int) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("scatter_add", pcs, t, indices, updates)
	if !ok {
		return failed(tr, "scatter_add")
	}
	x, idx, ax, ok := tr.gatherOperands("scatter_add", pcs, ts[0], ts[1], axis)
	if !ok {
		return poisoned(tr)
	}
	xn := tr.node(x.v)
	if xn.DType == ir.Bool {
		return tr.fail("scatter_add", pcs, "cannot add into a bool tensor")
	}
	var want ir.Shape
	want = append(want, xn.Shape[:ax]...)
	want = append(want, tr.node(idx.v).Shape...)
	want = append(want, xn.Shape[ax+1:]...)
	u := ts[2]
	if u.weak {
		if !weakFits(xn.DType, u.val) {
			return tr.fail("scatter_add", pcs, "update %v is not a %s value", u.val, xn.DType)
		}
		u = tr.constant(xn.DType, nil, u.val, pcs)
	} else {
		u = tr.cast(u, xn.DType, pcs)
	}
	if u.v == poison {
		return u
	}
	if s, ok := ir.BroadcastShapes(tr.node(u.v).Shape, want); !ok || !s.Equal(want) {
		return tr.fail("scatter_add", pcs, "updates of shape %s do not broadcast to %s", tr.node(u.v).Shape, want)
	}
	u = tr.broadcast(u, want, pcs)
	if u.v == poison {
		return u
	}
	return tr.add(ir.Node{Op: ir.OpScatterAdd, Args: []ir.Value{x.v, idx.v, u.v}, Axes: []int{ax}}, pcs)
}

// gatherOperands resolves a gather's axis and turns a Scalar index into a
// 0-D Int64 constant; indices must be integers.
func (tr *tracer) gatherOperands(op string, pcs callStack, x, idx *Tensor, axis int) (*Tensor, *Tensor, int, bool) {
	if x.weak {
		tr.fail(op, pcs, "the operand is a scalar; %s needs a tensor", op)
		return nil, nil, 0, false
	}
	rank := len(tr.node(x.v).Shape)
	if axis < -rank || axis >= rank {
		tr.fail(op, pcs, "axis %d out of range for shape %s", axis, tr.node(x.v).Shape)
		return nil, nil, 0, false
	}
	if axis < 0 {
		axis += rank
	}
	if idx.weak {
		if idx.val != float64(int64(idx.val)) {
			tr.fail(op, pcs, "index %v is not an integer", idx.val)
			return nil, nil, 0, false
		}
		idx = tr.constant(ir.Int64, nil, idx.val, pcs)
		if idx.v == poison {
			return nil, nil, 0, false
		}
	}
	if dt := tr.node(idx.v).DType; !ir.IsIndexInt(dt) {
		tr.fail(op, pcs, "indices must be integers (u8, i32 or i64), got %s", dt)
		return nil, nil, 0, false
	}
	return x, idx, axis, true
}

// DynamicSlice is JAX's dynamic_slice: the window of t with the static
// shape sizes starting at run-time offsets starts, one 0-D integer tensor
// (or Scalar) per axis. As in JAX a start is clamped to [0, dim-size] so the
// window always lies inside t: a start past the end gives the last window,
// a negative one the first. It never fails at run time. A window at crop
// offsets chosen per call (random crops) is the typical use.
func (t *Tensor) DynamicSlice(starts []*Tensor, sizes []int) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("dynamic_slice", pcs, append([]*Tensor{t}, starts...)...)
	if !ok {
		return failed(tr, "dynamic_slice")
	}
	x := ts[0]
	if x.weak {
		return tr.fail("dynamic_slice", pcs, "the operand is a scalar; dynamic_slice needs a tensor")
	}
	shape := tr.node(x.v).Shape
	if len(starts) != len(shape) || len(sizes) != len(shape) {
		return tr.fail("dynamic_slice", pcs, "%d starts and %d sizes for shape %s: want one of each per axis", len(starts), len(sizes), shape)
	}
	args := []ir.Value{x.v}
	for k, s := range ts[1:] {
		if sizes[k] < 0 || sizes[k] > shape[k] {
			return tr.fail("dynamic_slice", pcs, "size %d on axis %d out of range for shape %s", sizes[k], k, shape)
		}
		if s.weak {
			if s.val != float64(int64(s.val)) {
				return tr.fail("dynamic_slice", pcs, "start %v on axis %d is not an integer", s.val, k)
			}
			s = tr.constant(ir.Int64, nil, s.val, pcs)
			if s.v == poison {
				return s
			}
		}
		sn := tr.node(s.v)
		if !ir.IsIndexInt(sn.DType) || len(sn.Shape) != 0 {
			return tr.fail("dynamic_slice", pcs, "start %d must be a 0-D integer tensor, got %s%s", k, sn.DType, sn.Shape)
		}
		args = append(args, s.v)
	}
	return tr.add(ir.Node{Op: ir.OpDynamicSlice, Args: args, Shape: ir.Shape(sizes).Clone()}, pcs)
}
