package gojit

import (
	"math"
	"slices"

	"github.com/gojit/gojit/internal/ir"
)

// Elementwise, logical and statistical ops of issue 10. Most are
// compositions of the IR's primitives, which fusion turns into the same
// single loop a dedicated op would get; Mod, Log1p, Expm1 and Erf are
// primitives of their own. docs/ops.md lists every op with its NumPy and
// JAX equivalent and dtype rule.

// Mod returns the remainder of t / o with the sign of the divisor, as
// Python's % and NumPy's mod (not Go's %, C's fmod or JAX's lax.rem):
// -7 mod 3 is 2 and 7 mod -3 is -2. Operands promote as for Add (weak
// scalars included); Bool is refused. For integers x mod 0 is 0 (NumPy
// gives 0 too, with a warning), matching Div's x/0 = 0, and MinInt mod -1
// is 0. For floats the result is exact (computed with fmod); x mod 0, Inf
// mod y and anything with NaN are NaN; x mod ±Inf is x when x is 0 or has
// the sign of the divisor, else ±Inf; a zero result has the divisor's
// sign, as in NumPy.
func (t *Tensor) Mod(o *Tensor) *Tensor { return t.binary(ir.OpMod, o, callers()) }

// modFloat64 is Mod of two float64 values (two weak scalars).
func modFloat64(x, y float64) float64 {
	r := math.Mod(x, y)
	switch {
	case r != 0 && (r < 0) != (y < 0):
		r += y
	case r == 0:
		r = math.Copysign(0, y)
	}
	return r
}

// Square returns t*t (NumPy's square); Bool is refused.
func (t *Tensor) Square() *Tensor { return t.binary(ir.OpMul, t, callers()) }

// Clip limits t to [lo, hi]: Minimum(Maximum(t, lo), hi), as NumPy's clip
// (so where lo > hi the result is hi, and NaN in any operand gives NaN).
// lo and hi broadcast against t and promote with it like the operands of
// Maximum and Minimum; weak scalars keep t's dtype when they fit it.
func (t *Tensor) Clip(lo, hi *Tensor) *Tensor {
	pcs := callers()
	return t.binary(ir.OpMax, lo, pcs).binary(ir.OpMin, hi, pcs)
}

// Log1p returns log(1+t), accurate for t near 0. Integer and Bool inputs
// are converted to Float32, as for every transcendental op.
func (t *Tensor) Log1p() *Tensor { return t.unary(ir.OpLog1p, callers()) }

// Expm1 returns exp(t)-1, accurate for t near 0.
func (t *Tensor) Expm1() *Tensor { return t.unary(ir.OpExpm1, callers()) }

// Erf returns the error function.
func (t *Tensor) Erf() *Tensor { return t.unary(ir.OpErf, callers()) }

// Gelu returns the exact Gaussian error linear unit t/2*(1+erf(t/√2)), as
// PyTorch's default and jax.nn.gelu(x, approximate=False). Integer and
// Bool inputs are converted to Float32.
func (t *Tensor) Gelu() *Tensor {
	pcs := callers()
	x, h := t.floatOperand("Gelu", pcs)
	e := x.binary(ir.OpMul, Scalar(1/math.Sqrt2), pcs).unary(ir.OpErf, pcs)
	return x.binary(ir.OpMul, Scalar(0.5), pcs).binary(ir.OpMul, e.binary(ir.OpAdd, Scalar(1), pcs), pcs).halfBack(h, pcs)
}

// floatOperand is t converted to Float32 unless it is Float32 or Float64
// already; for a half it also returns the half, which the composite op's
// result is rounded back to (halfBack), so that a composite op computes in
// Float32 throughout and rounds once.
func (t *Tensor) floatOperand(name string, pcs callStack) (*Tensor, ir.DType) {
	tr, x, ok := t.shapeOp(name, pcs)
	if !ok {
		return failed(tr, name), ir.InvalidDType
	}
	dt := tr.node(x.v).DType
	if !dt.IsFloat() {
		h := ir.InvalidDType
		if dt.IsHalf() {
			h = dt
		}
		return tr.cast(x, ir.Float32, pcs), h
	}
	return x, ir.InvalidDType
}

// halfBack rounds t to the half h (InvalidDType: t unchanged).
func (t *Tensor) halfBack(h ir.DType, pcs callStack) *Tensor {
	if h == ir.InvalidDType || t.tr == nil || t.v == poison {
		return t
	}
	return t.tr.cast(t, h, pcs)
}

// Sign returns -1, 0 or 1 by the sign of t, in t's dtype; for floats ±0
// and NaN are returned unchanged, as lax.sign does. Bool is refused, as
// in NumPy.
func (t *Tensor) Sign() *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("Sign", pcs)
	if !ok {
		return failed(tr, "Sign")
	}
	n := tr.node(x.v)
	dt, shape := n.DType, n.Shape.Clone()
	if dt == ir.Bool {
		return tr.fail("Sign", pcs, "does not accept bool operands")
	}
	zero := tr.constant(dt, shape, 0, pcs)
	one := tr.constant(dt, shape, 1, pcs)
	pos := tr.add(ir.Node{Op: ir.OpGt, Args: []ir.Value{x.v, zero.v}}, pcs)
	r := x
	if dt != ir.Uint8 {
		mone := tr.constant(dt, shape, -1, pcs)
		neg := tr.add(ir.Node{Op: ir.OpLt, Args: []ir.Value{x.v, zero.v}}, pcs)
		r = tr.add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{neg.v, mone.v, x.v}}, pcs)
	}
	return tr.add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{pos.v, one.v, r.v}}, pcs)
}

// floatTest builds IsNaN, IsInf and IsFinite: test on float tensors, the
// constant ints on integer and Bool ones (never NaN or infinite).
func (t *Tensor) floatTest(name string, ints float64, test func(tr *tracer, x *Tensor, pcs callStack) *Tensor, pcs callStack) *Tensor {
	tr, x, ok := t.shapeOp(name, pcs)
	if !ok {
		return failed(tr, name)
	}
	n := tr.node(x.v)
	if !n.DType.Floating() {
		return tr.constant(ir.Bool, n.Shape, ints, pcs)
	}
	return test(tr, x, pcs)
}

// IsNaN reports, as Bool, which elements are NaN (none for integer and
// Bool tensors).
func (t *Tensor) IsNaN() *Tensor {
	return t.floatTest("IsNaN", 0, func(tr *tracer, x *Tensor, pcs callStack) *Tensor {
		return tr.add(ir.Node{Op: ir.OpNe, Args: []ir.Value{x.v, x.v}}, pcs)
	}, callers())
}

// absCompare is |x| op +Inf.
func absCompare(tr *tracer, x *Tensor, op ir.Op, pcs callStack) *Tensor {
	n := tr.node(x.v)
	inf := tr.constant(n.DType, n.Shape, math.Inf(1), pcs)
	a := tr.add(ir.Node{Op: ir.OpAbs, Args: []ir.Value{x.v}}, pcs)
	if a.v == poison || inf.v == poison {
		return poisoned(tr)
	}
	return tr.add(ir.Node{Op: op, Args: []ir.Value{a.v, inf.v}}, pcs)
}

// IsInf reports which elements are +Inf or -Inf.
func (t *Tensor) IsInf() *Tensor {
	return t.floatTest("IsInf", 0, func(tr *tracer, x *Tensor, pcs callStack) *Tensor {
		return absCompare(tr, x, ir.OpEq, pcs)
	}, callers())
}

// IsFinite reports which elements are neither infinite nor NaN (all of
// them for integer and Bool tensors).
func (t *Tensor) IsFinite() *Tensor {
	return t.floatTest("IsFinite", 1, func(tr *tracer, x *Tensor, pcs callStack) *Tensor {
		return absCompare(tr, x, ir.OpLt, pcs)
	}, callers())
}

// toBool converts a logical op's operand to Bool: non-zero is true, as in
// NumPy's logical functions (a weak scalar too).
func toBool(tr *tracer, t *Tensor, pcs callStack) *Tensor {
	if t.weak {
		return tr.constant(ir.Bool, nil, t.val, pcs)
	}
	return tr.cast(t, ir.Bool, pcs)
}

// logical combines t and o, converted to Bool and broadcast.
func (t *Tensor) logical(name string, o *Tensor, pcs callStack, f func(tr *tracer, a, b *Tensor) ir.Node) *Tensor {
	tr, ts, ok := unify(name, pcs, t, o)
	if !ok {
		return failed(tr, name)
	}
	shape, ok := broadcastAll(tr, name, pcs, ts[0], ts[1])
	if !ok {
		return poisoned(tr)
	}
	a, b := toBool(tr, ts[0], pcs), toBool(tr, ts[1], pcs)
	if a.v == poison || b.v == poison {
		return poisoned(tr)
	}
	a, b = tr.broadcast(a, shape, pcs), tr.broadcast(b, shape, pcs)
	if a.v == poison || b.v == poison {
		return poisoned(tr)
	}
	return tr.add(f(tr, a, b), pcs)
}

// LogicalAnd returns t && o as Bool (numpy.logical_and): operands of any
// dtype count as true where non-zero (NaN included) and broadcast.
func (t *Tensor) LogicalAnd(o *Tensor) *Tensor {
	pcs := callers()
	return t.logical("LogicalAnd", o, pcs, func(tr *tracer, a, b *Tensor) ir.Node {
		f := tr.constant(ir.Bool, tr.node(a.v).Shape, 0, pcs)
		return ir.Node{Op: ir.OpWhere, Args: []ir.Value{a.v, b.v, f.v}}
	})
}

// LogicalOr returns t || o as Bool (numpy.logical_or).
func (t *Tensor) LogicalOr(o *Tensor) *Tensor {
	pcs := callers()
	return t.logical("LogicalOr", o, pcs, func(tr *tracer, a, b *Tensor) ir.Node {
		tt := tr.constant(ir.Bool, tr.node(a.v).Shape, 1, pcs)
		return ir.Node{Op: ir.OpWhere, Args: []ir.Value{a.v, tt.v, b.v}}
	})
}

// LogicalXor returns t != o as Bool, after converting both to Bool
// (numpy.logical_xor).
func (t *Tensor) LogicalXor(o *Tensor) *Tensor {
	pcs := callers()
	return t.logical("LogicalXor", o, pcs, func(_ *tracer, a, b *Tensor) ir.Node {
		return ir.Node{Op: ir.OpNe, Args: []ir.Value{a.v, b.v}}
	})
}

// LogicalNot returns !t as Bool (numpy.logical_not: true where t is 0).
func (t *Tensor) LogicalNot() *Tensor {
	pcs := callers()
	tr, x, ok := t.shapeOp("LogicalNot", pcs)
	if !ok {
		return failed(tr, "LogicalNot")
	}
	b := toBool(tr, x, pcs)
	if b.v == poison {
		return b
	}
	f := tr.constant(ir.Bool, tr.node(b.v).Shape, 0, pcs)
	return tr.add(ir.Node{Op: ir.OpEq, Args: []ir.Value{b.v, f.v}}, pcs)
}

// Any reports, as Bool, whether any element along axes (all when none) is
// non-zero; false over an empty axis. numpy.any.
func (t *Tensor) Any(axes ...int) *Tensor { return t.anyAll("Any", ir.OpReduceMax, axes, callers()) }

// All reports whether every element along axes (all when none) is
// non-zero; true over an empty axis. numpy.all.
func (t *Tensor) All(axes ...int) *Tensor { return t.anyAll("All", ir.OpReduceMin, axes, callers()) }

// anyAll reduces t as Uint8 0/1 with max (Any) or min (All), whose values
// over an empty axis (0 and 255) are the right answers once tested for
// non-zero.
func (t *Tensor) anyAll(name string, op ir.Op, axes []int, pcs callStack) *Tensor {
	tr, x, ok := t.shapeOp(name, pcs)
	if !ok {
		return failed(tr, name)
	}
	rank := tr.node(x.v).Shape.Rank()
	norm, err := normAxes(axes, rank)
	if err != nil {
		return tr.fail(name, pcs, "%v", err)
	}
	if len(axes) == 0 {
		for i := range rank {
			norm = append(norm, i)
		}
	}
	b := tr.cast(toBool(tr, x, pcs), ir.Uint8, pcs)
	if b.v == poison {
		return b
	}
	r := tr.add(ir.Node{Op: op, Args: []ir.Value{b.v}, Axes: norm}, pcs)
	if r.v == poison {
		return r
	}
	return tr.cast(r, ir.Bool, pcs)
}

// Var returns the variance along axes (all when none): the mean of the
// squared deviations from the mean, divided by N-ddof instead of N (ddof 0
// is NumPy's default, 1 the unbiased estimate). N-ddof <= 0 divides by 0
// (Inf or NaN), as in NumPy. Floats keep their dtype; Int64 gives Float64
// and the other integer dtypes and Bool Float32, as Mean. numpy.var(x,
// axis, ddof=ddof).
func (t *Tensor) Var(ddof int, axes ...int) *Tensor {
	return t.variance("Var", ddof, axes, false, callers())
}

// Std is the square root of Var. numpy.std(x, axis, ddof=ddof).
func (t *Tensor) Std(ddof int, axes ...int) *Tensor {
	return t.variance("Std", ddof, axes, true, callers())
}

func (t *Tensor) variance(name string, ddof int, axes []int, sqrt bool, pcs callStack) *Tensor {
	tr, x, ok := t.shapeOp(name, pcs)
	if !ok {
		return failed(tr, name)
	}
	n := tr.node(x.v)
	shape, dt := n.Shape.Clone(), n.DType
	norm, err := normAxes(axes, shape.Rank())
	if err != nil {
		return tr.fail(name, pcs, "%v", err)
	}
	if len(axes) == 0 {
		for i := range shape.Rank() {
			norm = append(norm, i)
		}
	}
	if ddof < 0 {
		return tr.fail(name, pcs, "ddof %d must not be negative", ddof)
	}
	h := ir.InvalidDType
	switch {
	case dt == ir.Int64:
		x = tr.cast(x, ir.Float64, pcs)
	case dt.IsHalf():
		x, h = tr.cast(x, ir.Float32, pcs), dt
	case !dt.Floating():
		x = tr.cast(x, ir.Float32, pcs)
	}
	count := 1
	for _, a := range norm {
		count *= shape[a]
	}
	d := x.binary(ir.OpSub, x.reduce(ReduceMean, true, norm, pcs), pcs)
	ss := d.binary(ir.OpMul, d, pcs).reduce(ReduceSum, false, norm, pcs)
	v := ss.binary(ir.OpDiv, Scalar(float64(max(count-ddof, 0))), pcs)
	if sqrt {
		v = v.unary(ir.OpSqrt, pcs)
	}
	return v.halfBack(h, pcs)
}

// LogSumExp returns log(sum(exp(t))) along axes (all when none), computed
// stably as m + log(sum(exp(t-m))) with m the maximum (taken as 0 where it
// is infinite, so rows of -Inf give -Inf, not NaN), as
// jax.nn.logsumexp and scipy.special.logsumexp. Integer inputs are
// converted to Float32. An empty axis gives -Inf.
func (t *Tensor) LogSumExp(axes ...int) *Tensor {
	pcs := callers()
	x, h := t.floatOperand("LogSumExp", pcs)
	norm, ok := x.axesOf("LogSumExp", axes, pcs)
	if !ok {
		return poisoned(x.tr)
	}
	m := x.keptMax(norm, true, pcs)
	s := x.binary(ir.OpSub, m, pcs).unary(ir.OpExp, pcs).reduce(ReduceSum, true, norm, pcs)
	r := s.unary(ir.OpLog, pcs).binary(ir.OpAdd, m, pcs)
	return r.dropAxes(norm, pcs).halfBack(h, pcs)
}

// Softmax returns exp(t - max) / sum(exp(t - max)) along axis (negative
// counts from the end), jax.nn.softmax(x, axis). Integer inputs are
// converted to Float32. The whole computation fuses into one pass over
// each row set (see docs/ops.md for the measured speed).
func (t *Tensor) Softmax(axis int) *Tensor {
	pcs := callers()
	x, h := t.floatOperand("Softmax", pcs)
	norm, ok := x.axesOf("Softmax", []int{axis}, pcs)
	if !ok {
		return poisoned(x.tr)
	}
	e := x.binary(ir.OpSub, x.keptMax(norm, false, pcs), pcs).unary(ir.OpExp, pcs)
	return e.binary(ir.OpDiv, e.reduce(ReduceSum, true, norm, pcs), pcs).halfBack(h, pcs)
}

// LogSoftmax returns t - LogSumExp(t) along axis, computed stably as
// (t-m) - log(sum(exp(t-m))). jax.nn.log_softmax(x, axis).
func (t *Tensor) LogSoftmax(axis int) *Tensor {
	pcs := callers()
	x, h := t.floatOperand("LogSoftmax", pcs)
	norm, ok := x.axesOf("LogSoftmax", []int{axis}, pcs)
	if !ok {
		return poisoned(x.tr)
	}
	d := x.binary(ir.OpSub, x.keptMax(norm, false, pcs), pcs)
	l := d.unary(ir.OpExp, pcs).reduce(ReduceSum, true, norm, pcs).unary(ir.OpLog, pcs)
	return d.binary(ir.OpSub, l, pcs).halfBack(h, pcs)
}

// axesOf normalizes axes of t (all when none); false once reported.
func (t *Tensor) axesOf(name string, axes []int, pcs callStack) ([]int, bool) {
	if t.tr == nil || t.v == poison {
		return nil, false
	}
	rank := t.tr.node(t.v).Shape.Rank()
	norm, err := normAxes(axes, rank)
	if err != nil {
		t.tr.fail(name, pcs, "%v", err)
		return nil, false
	}
	if len(axes) == 0 {
		for i := range rank {
			norm = append(norm, i)
		}
	}
	return norm, true
}

// keptMax is the maximum along axes with the axes kept. With safe, it is
// replaced by 0 where it is not finite (an empty axis, a row of -Inf or
// containing +Inf), so that subtracting it never makes NaN of infinities
// itself (Softmax and LogSoftmax need no such care: their rows of -Inf
// are NaN either way, as in JAX).
func (t *Tensor) keptMax(axes []int, safe bool, pcs callStack) *Tensor {
	tr := t.tr
	n := tr.node(t.v)
	shape := n.Shape
	kept := shape.Clone()
	for _, a := range axes {
		kept[a] = 1
	}
	m := tr.add(ir.Node{Op: ir.OpReduceMax, Args: []ir.Value{t.v}, Axes: axes}, pcs)
	if m.v == poison {
		return m
	}
	m = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{m.v}, Shape: kept}, pcs)
	if m.v == poison || !safe {
		return m
	}
	fin := absCompare(tr, m, ir.OpLt, pcs)
	if fin.v == poison {
		return fin
	}
	zero := tr.constant(n.DType, kept, 0, pcs)
	return tr.add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{fin.v, m.v, zero.v}}, pcs)
}

// dropAxes removes the axes of size 1 that a keep-dims reduction left.
func (t *Tensor) dropAxes(axes []int, pcs callStack) *Tensor {
	if t.tr == nil || t.v == poison {
		return t
	}
	shape := t.tr.node(t.v).Shape
	out := ir.Shape{}
	for i, d := range shape {
		if !slices.Contains(axes, i) {
			out = append(out, d)
		}
	}
	return t.tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{t.v}, Shape: out}, pcs)
}

// CumSum returns the running sums along axis (negative counts from the
// end): element i is the sum of elements 0..i, added in index order
// (numpy.cumsum(x, axis), which sums in the same order). Bool and Uint8
// accumulate in Int64, as Sum does (NumPy: the platform integer); Int32
// and Int64 wrap on overflow.
func (t *Tensor) CumSum(axis int) *Tensor { return t.scan("CumSum", ir.OpCumSum, axis, callers()) }

// CumProd returns the running products along axis (numpy.cumprod), with
// the dtype rule of CumSum.
func (t *Tensor) CumProd(axis int) *Tensor { return t.scan("CumProd", ir.OpCumProd, axis, callers()) }

func (t *Tensor) scan(name string, op ir.Op, axis int, pcs callStack) *Tensor {
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
	if n.DType == ir.Bool || n.DType == ir.Uint8 {
		x = tr.cast(x, ir.Int64, pcs)
		if x.v == poison {
			return x
		}
	}
	return tr.add(ir.Node{Op: op, Args: []ir.Value{x.v}, Axes: []int{axis}}, pcs)
}
