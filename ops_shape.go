package gojit

import (
	"fmt"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// ReduceKind selects the operation of Reduce.
type ReduceKind uint8

// The reductions.
const (
	ReduceSum ReduceKind = iota
	ReduceMean
	ReduceProd
	ReduceMax
	ReduceMin
	ReduceArgMax
	ReduceArgMin
)

var reduceNames = [...]string{"sum", "mean", "prod", "max", "min", "argmax", "argmin"}

// String returns the reduction's name: sum, mean, prod, max, min, argmax,
// argmin.
func (k ReduceKind) String() string {
	if int(k) < len(reduceNames) {
		return reduceNames[k]
	}
	return fmt.Sprintf("reduce(%d)", int(k))
}

// Sum adds the elements along axes (all axes when none are given),
// removing them. Negative axes count from the end. Bool and Uint8 are
// summed as Int64, as NumPy does, so 200+200+100 is 500; Int32 and Int64
// sums wrap on overflow.
func (t *Tensor) Sum(axes ...int) *Tensor { return t.reduce(ReduceSum, false, axes, callers()) }

// Mean averages along axes (all when none). Integer and Bool inputs are
// summed exactly in Int64 and divided in Float64; the result is Float64
// for Int64 inputs and Float32 for the others. The mean of an empty axis
// is NaN (0/0).
func (t *Tensor) Mean(axes ...int) *Tensor { return t.reduce(ReduceMean, false, axes, callers()) }

// Prod multiplies the elements along axes (all when none); Bool and Uint8
// multiply as Int64. The product of an empty axis is 1.
func (t *Tensor) Prod(axes ...int) *Tensor { return t.reduce(ReduceProd, false, axes, callers()) }

// Max takes the maximum along axes (all when none); NaN if any is NaN.
// Max over an axis of size 0 is an error, as in NumPy.
func (t *Tensor) Max(axes ...int) *Tensor { return t.reduce(ReduceMax, false, axes, callers()) }

// Min takes the minimum along axes (all when none); NaN if any is NaN.
// Min over an axis of size 0 is an error.
func (t *Tensor) Min(axes ...int) *Tensor { return t.reduce(ReduceMin, false, axes, callers()) }

// ArgMax returns the Int64 index of the first maximum along one axis, or
// into the flattened tensor when no axis is given. The first NaN counts as
// the maximum, as in NumPy. An empty axis is an error.
func (t *Tensor) ArgMax(axis ...int) *Tensor { return t.reduce(ReduceArgMax, false, axis, callers()) }

// ArgMin returns the Int64 index of the first minimum along one axis, or
// into the flattened tensor when no axis is given. An empty axis is an
// error.
func (t *Tensor) ArgMin(axis ...int) *Tensor { return t.reduce(ReduceArgMin, false, axis, callers()) }

// Reduce applies kind along axes (all when none); with keepDims the reduced
// axes stay as dimensions of size 1, so the result broadcasts against t:
//
//	x.Sub(x.Reduce(gojit.ReduceMax, true, -1)) // subtract each row's max
func (t *Tensor) Reduce(kind ReduceKind, keepDims bool, axes ...int) *Tensor {
	return t.reduce(kind, keepDims, axes, callers())
}

func (t *Tensor) reduce(kind ReduceKind, keep bool, axes []int, pcs callStack) *Tensor {
	name := kind.String()
	tr, ts, ok := unify(name, pcs, t)
	if !ok {
		return failed(tr, name)
	}
	x := ts[0]
	in := tr.node(x.v)
	shape := in.Shape.Clone()
	rank := len(shape)
	arg := kind == ReduceArgMax || kind == ReduceArgMin
	origRank := rank
	if arg && len(axes) == 0 {
		// Over the flattened tensor.
		x = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{x.v}, Shape: ir.Shape{shape.Size()}}, pcs)
		if x.v == poison {
			return x
		}
		shape, rank, axes = ir.Shape{shape.Size()}, 1, []int{0}
	}
	if arg && len(axes) != 1 {
		return tr.fail(name, pcs, "takes one axis, got %v", axes)
	}
	norm, err := normAxes(axes, rank)
	if err != nil {
		return tr.fail(name, pcs, "%v", err)
	}
	if len(axes) == 0 {
		for i := range rank {
			norm = append(norm, i)
		}
	}
	for _, a := range norm {
		if shape[a] == 0 && kind != ReduceSum && kind != ReduceProd && kind != ReduceMean {
			return tr.fail(name, pcs, "%s", emptyAxis(a, shape, name))
		}
	}
	dt := tr.node(x.v).DType
	if dt.IsHalf() && kind == ReduceMean {
		// Sum and divide in Float32 and round once: the count itself may
		// not be a half value (4097, or anything above 65504 in Float16).
		x = tr.cast(x, ir.Float32, pcs)
		if x.v == poison {
			return x
		}
		r := x.reduce(kind, keep, axes, pcs)
		if r.v == poison {
			return r
		}
		return tr.cast(r, dt, pcs)
	}
	var op ir.Op
	switch kind {
	case ReduceSum, ReduceMean, ReduceProd:
		op = ir.OpReduceSum
		if kind == ReduceProd {
			op = ir.OpReduceProd
		}
		// Small integers accumulate in Int64 (as NumPy's sum and prod),
		// and so does the sum of any integer Mean, which is then exact.
		if dt == ir.Bool || dt == ir.Uint8 || (kind == ReduceMean && !dt.Floating()) {
			x = tr.cast(x, ir.Int64, pcs)
		}
	case ReduceMax:
		op = ir.OpReduceMax
	case ReduceMin:
		op = ir.OpReduceMin
	case ReduceArgMax:
		op = ir.OpArgMax
	case ReduceArgMin:
		op = ir.OpArgMin
	default:
		return tr.fail(name, pcs, "unknown reduction")
	}
	if x.v == poison {
		return x
	}
	r := tr.add(ir.Node{Op: op, Args: []ir.Value{x.v}, Axes: norm}, pcs)
	if r.v == poison {
		return r
	}
	if kind == ReduceMean {
		// Integer means divide the exact Int64 sum in Float64; only an
		// Int64 input keeps the Float64 result (NumPy gives Float64
		// throughout, JAX Float32: Float32 matches the other integer
		// dtypes' promotion to Float32).
		if !dt.Floating() {
			r = tr.cast(r, ir.Float64, pcs)
		}
		count := 1
		for _, a := range norm {
			count *= shape[a]
		}
		rn := tr.node(r.v)
		c := tr.constant(rn.DType, rn.Shape, float64(count), pcs)
		r = tr.add(ir.Node{Op: ir.OpDiv, Args: []ir.Value{r.v, c.v}}, pcs)
		if !dt.Floating() && dt != ir.Int64 && r.v != poison {
			r = tr.cast(r, ir.Float32, pcs)
		}
	}
	if keep && r.v != poison {
		kept := shape.Clone()
		for _, a := range norm {
			kept[a] = 1
		}
		if rank != origRank { // argmax over the flattened tensor
			kept = make(ir.Shape, origRank)
			for i := range kept {
				kept[i] = 1
			}
		}
		r = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{r.v}, Shape: kept}, pcs)
	}
	return r
}

// emptyAxis is the error of a reduction without an identity (max, min,
// argmax, argmin) over an axis of size 0.
func emptyAxis(axis int, shape ir.Shape, name string) string {
	return fmt.Sprintf("axis %d of shape %s is empty: the %s of no elements is undefined", axis, shape, name)
}

// normAxis resolves a negative axis against rank, or says it is out of
// range.
func normAxis(axis, rank int) (int, error) {
	if axis < -rank || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis, nil
}

// normAxes resolves negative axes and sorts them; duplicates are errors.
func normAxes(axes []int, rank int) ([]int, error) {
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		a, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, a) {
			return nil, fmt.Errorf("axis %d repeated", a)
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return out, nil
}

// shapeOp unifies t's trace for a layout op and returns its node.
func (t *Tensor) shapeOp(name string, pcs callStack) (*tracer, *Tensor, bool) {
	if t != nil && t.weak {
		t = newTracer().constant(ir.Float32, nil, t.val, pcs)
	}
	tr, ts, ok := unify(name, pcs, t)
	if !ok {
		return tr, nil, false
	}
	return tr, ts[0], true
}

func failed(tr *tracer, name string) *Tensor {
	if tr == nil {
		return poisonNil(name)
	}
	return poisoned(tr)
}

// Reshape gives t a new shape with the same number of elements; one
// dimension may be -1 and is then inferred.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("reshape", pcs)
	if !ok {
		return failed(tr, "reshape")
	}
	size := tr.node(x.v).Shape.Size()
	out := slices.Clone(shape)
	infer := -1
	for i, d := range out {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return tr.fail("reshape", pcs, "bad shape %s (at most one -1, no other negatives)", ir.Shape(shape))
		}
	}
	if infer >= 0 {
		out[infer] = 1 // for the checks below
	}
	if err := ir.Shape(out).Check(tr.node(x.v).DType); err != nil {
		return tr.fail("reshape", pcs, "%v", err)
	}
	if infer >= 0 {
		known := ir.Shape(out).Size() // the other dimensions
		if known == 0 || size%known != 0 {
			return tr.fail("reshape", pcs, "cannot reshape %s to %s", tr.node(x.v).Shape, ir.Shape(shape))
		}
		out[infer] = size / known
	}
	if out == nil {
		out = []int{}
	}
	return tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{x.v}, Shape: out}, pcs)
}

// Transpose permutes the axes: result axis i is t's axis perm[i]. With no
// arguments the axes are reversed.
func (t *Tensor) Transpose(perm ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("transpose", pcs)
	if !ok {
		return failed(tr, "transpose")
	}
	rank := tr.node(x.v).Shape.Rank()
	if len(perm) == 0 {
		for i := rank - 1; i >= 0; i-- {
			perm = append(perm, i)
		}
	}
	p := slices.Clone(perm)
	for i := range p {
		if p[i] < 0 {
			p[i] += rank
		}
	}
	return tr.add(ir.Node{Op: ir.OpTranspose, Args: []ir.Value{x.v}, Axes: p}, pcs)
}

// BroadcastTo stretches t to shape by NumPy's rules.
func (t *Tensor) BroadcastTo(shape ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("broadcast", pcs)
	if !ok {
		return failed(tr, "broadcast")
	}
	return tr.add(ir.Node{Op: ir.OpBroadcast, Args: []ir.Value{x.v}, Shape: ir.Shape(shape).Clone()}, pcs)
}

// ExpandDims inserts a dimension of size 1 at axis (negative counts from
// the end of the result).
func (t *Tensor) ExpandDims(axis int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("expand_dims", pcs)
	if !ok {
		return failed(tr, "expand_dims")
	}
	shape := tr.node(x.v).Shape
	r := len(shape) + 1
	axis, err := normAxis(axis, r)
	if err != nil {
		return tr.fail("expand_dims", pcs, "%v", err)
	}
	out := slices.Insert(shape.Clone(), axis, 1)
	return tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{x.v}, Shape: out}, pcs)
}

// Squeeze removes the given axes, which must have size 1 (all axes of size
// 1 when none are given).
func (t *Tensor) Squeeze(axes ...int) *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("squeeze", pcs)
	if !ok {
		return failed(tr, "squeeze")
	}
	shape := tr.node(x.v).Shape
	norm, err := normAxes(axes, len(shape))
	if err != nil {
		return tr.fail("squeeze", pcs, "%v", err)
	}
	out := ir.Shape{}
	for i, d := range shape {
		drop := d == 1 && len(axes) == 0
		if slices.Contains(norm, i) {
			if d != 1 {
				return tr.fail("squeeze", pcs, "axis %d has size %d, not 1", i, d)
			}
			drop = true
		}
		if !drop {
			out = append(out, d)
		}
	}
	r := tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{x.v}, Shape: out}, pcs)
	if len(axes) == 0 && r.v != poison {
		// Which axes it drops depends on sizes: WithDynamicDim needs to
		// know (a batch of 1 would be dropped).
		if tr.calls == nil {
			tr.calls = map[ir.Value]string{}
		}
		tr.calls[r.v] = "Squeeze()"
	}
	return r
}

// Slice takes t[starts[i]:stops[i]:steps[i]] along every axis i, like a
// Python slice: negative indices count from the end and out-of-range
// bounds are clamped. Steps (1 when omitted) must not be 0; a negative step
// walks backwards from start, as x[5:1:-2] does: since a Go int cannot be
// None, a stop of -len-1 or less (math.MinInt, say) means "through index
// 0", as x[3::-1]. Fewer starts and stops than axes leave the remaining
// axes whole (with the given step: from the last element when negative).
func (t *Tensor) Slice(starts, stops []int, steps ...int) *Tensor {
	return t.slice(starts, stops, steps, callers())
}

func (t *Tensor) slice(starts, stops, steps []int, pcs callStack) *Tensor {
	tr, x, ok := t.shapeOp("slice", pcs)
	if !ok {
		return failed(tr, "slice")
	}
	shape := tr.node(x.v).Shape
	r := len(shape)
	if len(starts) != len(stops) || len(starts) > r || len(steps) > r {
		return tr.fail("slice", pcs, "starts %v, stops %v, steps %v do not fit rank %d", starts, stops, steps, r)
	}
	n := ir.Node{Op: ir.OpSlice, Args: []ir.Value{x.v}, Starts: make([]int, r), Steps: make([]int, r), Shape: make(ir.Shape, r)}
	for i, d := range shape {
		step := 1
		if i < len(steps) {
			step = steps[i]
		}
		if step == 0 {
			return tr.fail("slice", pcs, "step on axis %d must not be 0", i)
		}
		if step < 0 {
			start, stop := d-1, -1
			if i < len(starts) {
				start, stop = clampBack(starts[i], d), clampBack(stops[i], d)
			}
			count := 0
			if start > stop {
				count = (start - stop - step - 1) / -step
			}
			if count == 0 {
				start = 0
			}
			n.Starts[i], n.Steps[i], n.Shape[i] = start, step, count
			continue
		}
		start, stop := 0, d
		if i < len(starts) {
			start, stop = clampIndex(starts[i], d), clampIndex(stops[i], d)
		}
		count := 0
		if stop > start {
			count = (stop - start + step - 1) / step
		}
		n.Starts[i], n.Steps[i], n.Shape[i] = min(start, d), step, count
	}
	return tr.add(n, pcs)
}

// clampBack is Python's bound for a negative step: in [-1, d-1], where -1
// is "before index 0".
func clampBack(i, d int) int {
	if i < 0 {
		i += d
	}
	return max(-1, min(i, d-1))
}

func clampIndex(i, d int) int {
	if i < 0 {
		i += d
	}
	return max(0, min(i, d))
}

// Concat joins tensors along axis; their other dimensions must agree and
// their dtypes are promoted to a common one.
func Concat(axis int, ts ...*Tensor) *Tensor { return concat(axis, ts, callers()) }

func concat(axis int, ts []*Tensor, pcs callStack) *Tensor {
	if len(ts) == 0 {
		return poisonNil("concat")
	}
	tr, us, ok := unify("concat", pcs, ts...)
	if !ok {
		return failed(tr, "concat")
	}
	dt := ir.InvalidDType
	for _, u := range us {
		if !u.weak {
			dt = promoteDTypes(dt, tr.node(u.v).DType)
		}
	}
	args := make([]ir.Value, len(us))
	for i, u := range us {
		if u.weak {
			return tr.fail("concat", pcs, "operand %d is a scalar; concat needs tensors", i)
		}
		u = tr.cast(u, dt, pcs)
		if u.v == poison {
			return u
		}
		args[i] = u.v
	}
	rank := tr.node(args[0]).Shape.Rank()
	axis, err := normAxis(axis, rank)
	if err != nil {
		return tr.fail("concat", pcs, "%v", err)
	}
	return tr.add(ir.Node{Op: ir.OpConcat, Args: args, Axes: []int{axis}}, pcs)
}

// MatMul is the matrix product: [..., M, K] x [..., K, N] -> [..., M, N],
// with NumPy's rules: batch dimensions broadcast, and a 1-D operand is a
// vector (its dimension is removed from the result).
func (t *Tensor) MatMul(o *Tensor) *Tensor {
	pcs := callers()
	tr, ts, ok := unify("matmul", pcs, t, o)
	if !ok {
		return failed(tr, "matmul")
	}
	if ts[0].weak || ts[1].weak {
		return tr.fail("matmul", pcs, "needs two tensors, got a scalar")
	}
	a, b, ok := promote(tr, ir.OpMatMul, pcs, ts[0], ts[1], false)
	if !ok {
		return poisoned(tr)
	}
	as, bs := tr.node(a.v).Shape.Clone(), tr.node(b.v).Shape.Clone()
	if len(as) == 0 || len(bs) == 0 {
		return tr.fail("matmul", pcs, "operands must have rank >= 1, got %s and %s", as, bs)
	}
	vecA, vecB := len(as) == 1, len(bs) == 1
	if vecA {
		as = ir.Shape{1, as[0]}
		a = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{a.v}, Shape: as}, pcs)
	}
	if vecB {
		bs = ir.Shape{bs[0], 1}
		b = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{b.v}, Shape: bs}, pcs)
	}
	if as[len(as)-1] != bs[len(bs)-2] {
		return tr.fail("matmul", pcs, "contracting dimensions differ: %s x %s", tr.node(ts[0].v).Shape, tr.node(ts[1].v).Shape)
	}
	batch, ok := ir.BroadcastShapes(as[:len(as)-2], bs[:len(bs)-2])
	if !ok {
		return tr.fail("matmul", pcs, "batch dimensions of %s and %s do not broadcast", as, bs)
	}
	a = tr.broadcast(a, append(batch.Clone(), as[len(as)-2:]...), pcs)
	b = tr.broadcast(b, append(batch.Clone(), bs[len(bs)-2:]...), pcs)
	r := tr.add(ir.Node{Op: ir.OpMatMul, Args: []ir.Value{a.v, b.v}}, pcs)
	if (vecA || vecB) && r.v != poison {
		out := batch.Clone()
		if !vecA {
			out = append(out, as[len(as)-2])
		}
		if !vecB {
			out = append(out, bs[len(bs)-1])
		}
		r = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{r.v}, Shape: out}, pcs)
	}
	return r
}
