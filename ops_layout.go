package gojit

import (
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Layout ops of issue 10. Flip is a slice with negative steps; Stack,
// Split, Pad and Tile are compositions of reshape, broadcast, slice and
// concat, which fusion reads in place (no copy is made unless a result is
// materialized).

// Flip reverses the order of elements along axes (all axes when none),
// numpy.flip. Negative axes count from the end.
func (t *Tensor) Flip(axes ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("Flip", pcs)
	if !ok {
		return failed(tr, "Flip")
	}
	shape := tr.node(x.v).Shape
	norm, err := normAxes(axes, len(shape))
	if err != nil {
		return tr.fail("Flip", pcs, "%v", err)
	}
	if len(axes) == 0 {
		for i := range shape {
			norm = append(norm, i)
		}
	}
	n := ir.Node{Op: ir.OpSlice, Args: []ir.Value{x.v}, Starts: make([]int, len(shape)), Steps: make([]int, len(shape)), Shape: shape.Clone()}
	for i, d := range shape {
		n.Steps[i] = 1
		if slices.Contains(norm, i) && d > 0 {
			n.Starts[i], n.Steps[i] = d-1, -1
		}
	}
	return tr.add(n, pcs)
}

// Stack joins tensors of one shape along a new axis (numpy.stack): the
// result has rank+1 dimensions and axis may be -(rank+1) to rank. Dtypes
// are promoted as for Concat.
func Stack(axis int, ts ...*Tensor) *Tensor {
	pcs := callers()
	if len(ts) == 0 {
		return poisonNil("Stack")
	}
	tr, us, ok := unify("Stack", pcs, ts...)
	if !ok {
		return failed(tr, "Stack")
	}
	var shape ir.Shape
	for i, u := range us {
		if u.weak {
			return tr.fail("Stack", pcs, "operand %d is a scalar; Stack needs tensors", i)
		}
		s := tr.node(u.v).Shape
		if i == 0 {
			shape = s
		} else if !s.Equal(shape) {
			return tr.fail("Stack", pcs, "operand shapes differ: %s and %s", shape, s)
		}
	}
	r := len(shape) + 1
	axis, err := normAxis(axis, r)
	if err != nil {
		return tr.fail("Stack", pcs, "%v", err)
	}
	out := make(ir.Shape, 0, r)
	out = append(out, shape[:axis]...)
	out = append(out, 1)
	out = append(out, shape[axis:]...)
	parts := make([]*Tensor, len(us))
	for i, u := range us {
		parts[i] = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{u.v}, Shape: out.Clone()}, pcs)
	}
	return concat(axis, parts, pcs)
}

// Split cuts t into sections equal parts along axis (numpy.split with an
// integer): the axis size must be a multiple of sections. On an error
// every part is a poisoned tensor that reports it.
func (t *Tensor) Split(sections, axis int) []*Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("Split", pcs)
	if !ok {
		return []*Tensor{failed(tr, "Split")}
	}
	shape := tr.node(x.v).Shape
	axis, err := normAxis(axis, len(shape))
	if err != nil {
		return []*Tensor{tr.fail("Split", pcs, "%v", err)}
	}
	d := shape[axis]
	if sections < 1 || d%sections != 0 {
		p := tr.fail("Split", pcs, "cannot split axis %d of size %d into %d equal parts", axis, d, sections)
		return repeatTensor(p, max(sections, 1))
	}
	idx := make([]int, sections-1)
	for i := range idx {
		idx[i] = (i + 1) * (d / sections)
	}
	return x.splitAt(axis, idx, pcs)
}

// SplitAt cuts t along axis before each of indices (numpy.split with a
// list): len(indices)+1 parts. Indices are clamped to the axis and
// negative ones count from the end, as in NumPy, so parts may be empty.
func (t *Tensor) SplitAt(axis int, indices ...int) []*Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("SplitAt", pcs)
	if !ok {
		return []*Tensor{failed(tr, "SplitAt")}
	}
	shape := tr.node(x.v).Shape
	axis, err := normAxis(axis, len(shape))
	if err != nil {
		return repeatTensor(tr.fail("SplitAt", pcs, "%v", err), len(indices)+1)
	}
	return x.splitAt(axis, indices, pcs)
}

func repeatTensor(t *Tensor, n int) []*Tensor {
	out := make([]*Tensor, n)
	for i := range out {
		out[i] = t
	}
	return out
}

func (t *Tensor) splitAt(axis int, indices []int, pcs callStack) []*Tensor {
	shape := t.tr.node(t.v).Shape
	d := shape[axis]
	out := make([]*Tensor, 0, len(indices)+1)
	starts, stops := make([]int, axis+1), make([]int, axis+1)
	for k := range axis {
		stops[k] = shape[k]
	}
	prev := 0
	for i := 0; i <= len(indices); i++ {
		end := d
		if i < len(indices) {
			end = clampIndex(indices[i], d)
		}
		starts[axis], stops[axis] = prev, max(prev, end)
		out = append(out, t.slice(starts, stops, nil, pcs))
		prev = max(prev, end)
	}
	return out
}

// PadMode selects how Pad fills the new elements.
type PadMode uint8

// The padding modes, named as numpy.pad's.
const (
	// PadConstant fills with a value.
	PadConstant PadMode = iota
	// PadEdge repeats the edge element.
	PadEdge
	// PadReflect mirrors the elements next to the edge, without repeating
	// it: [1 2 3] padded by 2 on both sides is [3 2 1 2 3 2 1].
	PadReflect
)

var padNames = [...]string{"constant", "edge", "reflect"}

// String returns numpy.pad's name of the mode.
func (m PadMode) String() string {
	if int(m) < len(padNames) {
		return padNames[m]
	}
	return fmt.Sprintf("PadMode(%d)", int(m))
}

// Pad adds widths[i][0] elements before and widths[i][1] after axis i
// (numpy.pad): one pair pads every axis alike, otherwise there is one pair
// per axis. PadConstant fills with value, which must be exactly a value of
// t's dtype (as for Full); the other modes ignore it. PadEdge needs a
// non-empty axis, and PadReflect an axis longer than each of its widths
// (NumPy reflects repeatedly beyond that; gojit reports it).
func (t *Tensor) Pad(widths [][2]int, mode PadMode, value float64) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("Pad", pcs)
	if !ok {
		return failed(tr, "Pad")
	}
	n := tr.node(x.v)
	shape, dt := n.Shape.Clone(), n.DType
	if mode > PadReflect {
		return tr.fail("Pad", pcs, "unknown mode %s", mode)
	}
	if len(widths) != 1 && len(widths) != len(shape) {
		return tr.fail("Pad", pcs, "%d width pairs for rank %d (want 1 or %d)", len(widths), len(shape), len(shape))
	}
	if mode == PadConstant && !weakFits(dt, value) {
		return tr.fail("Pad", pcs, "%v is not a %s value", value, DType(dt))
	}
	for i := range shape {
		w := widths[0]
		if len(widths) > 1 {
			w = widths[i]
		}
		if w[0] < 0 || w[1] < 0 {
			return tr.fail("Pad", pcs, "negative width %v on axis %d", w, i)
		}
		if w == [2]int{} {
			continue
		}
		d := shape[i]
		switch {
		case mode == PadEdge && d == 0:
			return tr.fail("Pad", pcs, "edge padding of axis %d, which is empty", i)
		case mode == PadReflect && (w[0] >= d || w[1] >= d):
			return tr.fail("Pad", pcs, "reflect padding %v of axis %d needs more than %d elements along it", w, i, max(w[0], w[1]))
		}
		parts := make([]*Tensor, 0, 3)
		for side, wi := range w {
			if wi == 0 {
				continue
			}
			ps := shape.Clone()
			ps[i] = wi
			var p *Tensor
			switch mode {
			case PadConstant:
				p = tr.constant(dt, ps, value, pcs)
			case PadEdge:
				at := 0
				if side == 1 {
					at = d - 1
				}
				p = tr.broadcast(x.axisSlice(i, at, 1, 1, pcs), ps, pcs)
			default: // reflect: x[w], ..., x[1] before; x[d-2], ..., x[d-1-w] after
				at := wi
				if side == 1 {
					at = d - 2
				}
				p = x.axisSlice(i, at, -1, wi, pcs)
			}
			if side == 0 {
				parts = append(parts, p)
			} else {
				parts = append(parts, x, p)
			}
		}
		if w[1] == 0 {
			parts = append(parts, x)
		}
		x = concat(i, parts, pcs)
		if x.v == poison {
			return x
		}
		shape[i] += w[0] + w[1]
	}
	return x
}

// axisSlice is count elements of t along axis from start by step.
func (t *Tensor) axisSlice(axis, start, step, count int, pcs callStack) *Tensor {
	shape := t.tr.node(t.v).Shape
	n := ir.Node{Op: ir.OpSlice, Args: []ir.Value{t.v}, Starts: make([]int, len(shape)), Steps: make([]int, len(shape)), Shape: shape.Clone()}
	for k := range shape {
		n.Steps[k] = 1
	}
	n.Starts[axis], n.Steps[axis], n.Shape[axis] = start, step, count
	return t.tr.add(n, pcs)
}

// Tile repeats t reps[i] times along axis i (numpy.tile): with fewer reps
// than axes the leading axes are repeated once; with more, t gets leading
// axes of size 1. Reps must not be negative.
func (t *Tensor) Tile(reps ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("Tile", pcs)
	if !ok {
		return failed(tr, "Tile")
	}
	shape := tr.node(x.v).Shape.Clone()
	for _, r := range reps {
		if r < 0 {
			return tr.fail("Tile", pcs, "negative repetition in %v", reps)
		}
	}
	for len(shape) < len(reps) {
		shape = append(ir.Shape{1}, shape...)
	}
	full := make([]int, len(shape))
	for i := range full {
		full[i] = 1
	}
	copy(full[len(full)-len(reps):], reps)
	// [d0, d1] -> [1, d0, 1, d1] -> [r0, d0, r1, d1] -> [r0*d0, r1*d1]
	inter := make(ir.Shape, 0, 2*len(shape))
	wide := make(ir.Shape, 0, 2*len(shape))
	out := make(ir.Shape, len(shape))
	for i, d := range shape {
		inter = append(inter, 1, d)
		wide = append(wide, full[i], d)
		out[i] = full[i] * d
	}
	if err := out.Check(tr.node(x.v).DType); err != nil {
		return tr.fail("Tile", pcs, "%v", err)
	}
	y := tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{x.v}, Shape: inter}, pcs)
	if y.v == poison {
		return y
	}
	y = tr.broadcast(y, wide, pcs)
	if y.v == poison {
		return y
	}
	return tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{y.v}, Shape: out}, pcs)
}
