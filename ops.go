package gojit

import (
	"math"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Scalar returns a weakly typed constant: it takes the dtype of the tensor
// it is combined with, so x.Mul(Scalar(2)) keeps x's dtype. Combined with an
// integer or bool tensor, a value that dtype cannot hold exactly (a
// fraction, NaN, ±Inf, or an integer out of range) makes the operation
// Float32, as in JAX, except comparisons, which give the exact answer:
// x_i32.Less(Scalar(math.Inf(1))) is true everywhere and
// x_u8.Greater(Scalar(-1)) too. A weak scalar used alone is Float32.
func Scalar(v float64) *Tensor { return &Tensor{weak: true, val: v} }

// Full returns a tensor of the given dtype and shape filled with v, which
// must be exactly a value of dt (an integer in range for integer dtypes, 0
// or 1 for Bool; Float32 rounds). Other values are errors rather than
// silently truncated: Full(Int32, 2.5) is reported, as is a negative or
// too large shape.
func Full(dt DType, v float64, shape ...int) *Tensor {
	pcs := callers()
	tr := newTracer()
	if dt.ir().Valid() && !weakFits(dt.ir(), v) {
		return tr.fail("Full", pcs, "%v is not a %s value", v, dt)
	}
	return tr.constant(dt.ir(), ir.Shape(shape), v, pcs)
}

// Iota returns a tensor of the given dtype and shape whose elements are
// their index along axis.
func Iota(dt DType, axis int, shape ...int) *Tensor {
	pcs := callers()
	tr := newTracer()
	if axis < -len(shape) || axis >= len(shape) {
		return tr.fail("Iota", pcs, "axis %d out of range for shape %s", axis, ir.Shape(shape))
	}
	if axis < 0 {
		axis += len(shape)
	}
	return tr.add(ir.Node{Op: ir.OpIota, DType: dt.ir(), Shape: ir.Shape(shape).Clone(), Axes: []int{axis}}, pcs)
}

// Where selects, element by element, a where cond is true and b elsewhere.
// cond must be Bool; the three operands broadcast together and a and b are
// promoted to a common dtype.
func Where(cond, a, b *Tensor) *Tensor { return where(cond, a, b, callers()) }

func where(cond, a, b *Tensor, pcs callStack) *Tensor {
	tr, ts, ok := unify("where", pcs, cond, a, b)
	if !ok {
		return failed(tr, "where")
	}
	c := ts[0]
	if c.weak {
		c = tr.constant(ir.Bool, nil, c.val, pcs)
	}
	if c.DType() != Bool {
		return tr.fail("where", pcs, "condition must be bool, got %s", c.DType())
	}
	x, y, ok := promote(tr, ir.OpWhere, pcs, ts[1], ts[2], false)
	if !ok {
		return poisoned(tr)
	}
	shape, ok := broadcastAll(tr, "where", pcs, c, x, y)
	if !ok {
		return poisoned(tr)
	}
	c, x, y = tr.broadcast(c, shape, pcs), tr.broadcast(x, shape, pcs), tr.broadcast(y, shape, pcs)
	return tr.add(ir.Node{Op: ir.OpWhere, Args: []ir.Value{c.v, x.v, y.v}}, pcs)
}

func poisoned(tr *tracer) *Tensor { return &Tensor{tr: tr, v: poison} }

// broadcastAll computes the common shape of operands, weak scalars
// excluded. The shape may be an operand's own (when every operand has it):
// read it, do not keep or modify it (broadcast copies it into the nodes it
// makes).
func broadcastAll(tr *tracer, op string, pcs callStack, ts ...*Tensor) (ir.Shape, bool) {
	var first ir.Shape
	same, seen := true, false
	for _, t := range ts {
		if t.weak {
			continue
		}
		if !seen {
			first, seen = t.shape(), true
		} else if !t.shape().Equal(first) {
			same = false
		}
	}
	if same {
		if !seen {
			return ir.Shape{}, true
		}
		return first, true // the common case, without allocating
	}
	var shape ir.Shape = ir.Shape{}
	for _, t := range ts {
		if t.weak {
			continue
		}
		s, ok := ir.BroadcastShapes(shape, t.shape())
		if !ok {
			var shapes []string
			for _, u := range ts {
				if !u.weak {
					shapes = append(shapes, ir.Shape(u.Shape()).String())
				}
			}
			tr.fail(op, pcs, "shapes %s do not broadcast", strings.Join(shapes, " and "))
			return nil, false
		}
		shape = s
	}
	return shape, true
}

// broadcast stretches t to shape, turning a weak scalar into a const.
func (tr *tracer) broadcast(t *Tensor, shape ir.Shape, pcs callStack) *Tensor {
	if t.weak {
		panic("gojit: broadcast of an unresolved weak scalar") // promote resolves them first
	}
	n := tr.node(t.v)
	if n.Shape.Equal(shape) {
		return t
	}
	if n.Op == ir.OpConst {
		return tr.add(ir.Node{Op: ir.OpConst, DType: n.DType, Shape: shape.Clone(), Const: n.Const}, pcs)
	}
	return tr.add(ir.Node{Op: ir.OpBroadcast, Args: tr.args(t.v), Shape: shape.Clone()}, pcs)
}

// cast converts t to dt (a no-op when it already has it).
func (tr *tracer) cast(t *Tensor, dt ir.DType, pcs callStack) *Tensor {
	if tr.node(t.v).DType == dt {
		return t
	}
	return tr.add(ir.Node{Op: ir.OpCast, Args: tr.args(t.v), DType: dt}, pcs)
}

// promote gives a and b, the operands of op, one dtype: the later of the
// two in promotion order, or, for a weak scalar, the other operand's
// (see weakDType). floatOnly ops convert integers to Float32 as well.
func promote(tr *tracer, op ir.Op, pcs callStack, a, b *Tensor, floatOnly bool) (*Tensor, *Tensor, bool) {
	var dt ir.DType
	switch {
	case a.weak && b.weak:
		dt = ir.Float32
	case a.weak:
		dt = weakDType(op, tr.node(b.v).DType, a.val)
	case b.weak:
		dt = weakDType(op, tr.node(a.v).DType, b.val)
	default:
		dt = promoteDTypes(tr.node(a.v).DType, tr.node(b.v).DType)
	}
	if floatOnly && !dt.Floating() {
		dt = ir.Float32
	}
	conv := func(t *Tensor) *Tensor {
		if t.weak {
			return tr.constant(dt, nil, t.val, pcs)
		}
		return tr.cast(t, dt, pcs)
	}
	a, b = conv(a), conv(b)
	return a, b, a.v != poison && b.v != poison
}

func (t *Tensor) binary(op ir.Op, o *Tensor, pcs callStack) *Tensor {
	name := op.String()
	if t != nil && t.weak && o != nil && o.weak {
		if v, ok := foldWeak(op, t.val, o.val); ok {
			return Scalar(v)
		}
	}
	tr, ts, ok := unify2(name, pcs, t, o)
	if !ok {
		return failed(tr, name)
	}
	if op.Info().Kind == ir.KindCompare {
		if r, done := tr.compareWeak(op, ts[0], ts[1], pcs); done {
			return r
		}
	}
	a, b, ok := promote(tr, op, pcs, ts[0], ts[1], op.Info().FloatOnly)
	if !ok {
		return poisoned(tr)
	}
	shape, ok := broadcastAll(tr, name, pcs, a, b)
	if !ok {
		return poisoned(tr)
	}
	a, b = tr.broadcast(a, shape, pcs), tr.broadcast(b, shape, pcs)
	if a.v == poison || b.v == poison {
		return poisoned(tr)
	}
	return tr.add(ir.Node{Op: op, Args: tr.args(a.v, b.v)}, pcs)
}

// compareWeak handles a comparison of an integer or bool tensor with a weak
// scalar its dtype cannot hold (see weakFits): the answer is exact, either
// the same for every element or a comparison with a representable value.
func (tr *tracer) compareWeak(op ir.Op, a, b *Tensor, pcs callStack) (*Tensor, bool) {
	x, s, left := a, b, false
	if a.weak {
		x, s, left = b, a, true
	}
	if x.weak || !s.weak {
		return nil, false
	}
	xn := tr.node(x.v)
	if xn.DType.Floating() || weakFits(xn.DType, s.val) {
		return nil, false
	}
	constant, value, op2, w := exactCompare(op, xn.DType, s.val, left)
	if constant {
		v := 0.0
		if value {
			v = 1
		}
		return tr.constant(ir.Bool, xn.Shape, v, pcs), true
	}
	c := tr.constant(xn.DType, xn.Shape, w, pcs)
	if c.v == poison {
		return c, true
	}
	return tr.add(ir.Node{Op: op2, Args: []ir.Value{x.v, c.v}}, pcs), true
}

// poisonNil is the result of an op with no tensor operand at all (only weak
// scalars, or a nil Tensor): there is no trace to report it in, so it is
// reported when the result reaches one.
func poisonNil(op string) *Tensor {
	tr := newTracer()
	tr.params = true
	return tr.fail(op, callers(), "needs a tensor operand (got only scalars or nil)")
}

func foldWeak(op ir.Op, x, y float64) (float64, bool) {
	switch op {
	case ir.OpAdd:
		return x + y, true
	case ir.OpSub:
		return x - y, true
	case ir.OpMul:
		return x * y, true
	case ir.OpDiv:
		return x / y, true
	case ir.OpPow:
		return math.Pow(x, y), true
	case ir.OpMax:
		return max(x, y), true
	case ir.OpMin:
		return min(x, y), true
	case ir.OpMod:
		return modFloat64(x, y), true
	}
	return 0, false
}

func (t *Tensor) unary(op ir.Op, pcs callStack) *Tensor {
	name := op.String()
	if t != nil && t.weak {
		t = newTracer().constant(ir.Float32, nil, t.val, pcs)
	}
	tr, ts, ok := unify1(name, pcs, t)
	if !ok {
		return failed(tr, name)
	}
	x := ts[0]
	if op.Info().FloatOnly && !tr.node(x.v).DType.Floating() {
		x = tr.cast(x, ir.Float32, pcs)
	}
	return tr.add(ir.Node{Op: op, Args: tr.args(x.v)}, pcs)
}

// Add returns t + o, elementwise with broadcasting.
func (t *Tensor) Add(o *Tensor) *Tensor { return t.binary(ir.OpAdd, o, callers()) }

// Sub returns t - o.
func (t *Tensor) Sub(o *Tensor) *Tensor { return t.binary(ir.OpSub, o, callers()) }

// Mul returns t * o.
func (t *Tensor) Mul(o *Tensor) *Tensor { return t.binary(ir.OpMul, o, callers()) }

// Div returns t / o. Integer division truncates toward zero; x/0 is 0 and
// MinInt/-1 wraps to MinInt, so no input traps.
func (t *Tensor) Div(o *Tensor) *Tensor { return t.binary(ir.OpDiv, o, callers()) }

// Pow returns t to the power o (integer operands are converted to Float32).
func (t *Tensor) Pow(o *Tensor) *Tensor { return t.binary(ir.OpPow, o, callers()) }

// Maximum returns the larger of t and o; NaN if either is NaN.
func (t *Tensor) Maximum(o *Tensor) *Tensor { return t.binary(ir.OpMax, o, callers()) }

// Minimum returns the smaller of t and o; NaN if either is NaN.
func (t *Tensor) Minimum(o *Tensor) *Tensor { return t.binary(ir.OpMin, o, callers()) }

// Equal returns t == o as Bool.
func (t *Tensor) Equal(o *Tensor) *Tensor { return t.binary(ir.OpEq, o, callers()) }

// NotEqual returns t != o as Bool.
func (t *Tensor) NotEqual(o *Tensor) *Tensor { return t.binary(ir.OpNe, o, callers()) }

// Less returns t < o as Bool.
func (t *Tensor) Less(o *Tensor) *Tensor { return t.binary(ir.OpLt, o, callers()) }

// LessEqual returns t <= o as Bool.
func (t *Tensor) LessEqual(o *Tensor) *Tensor { return t.binary(ir.OpLe, o, callers()) }

// Greater returns t > o as Bool.
func (t *Tensor) Greater(o *Tensor) *Tensor { return t.binary(ir.OpGt, o, callers()) }

// GreaterEqual returns t >= o as Bool.
func (t *Tensor) GreaterEqual(o *Tensor) *Tensor { return t.binary(ir.OpGe, o, callers()) }

// Neg returns -t (integers wrap).
func (t *Tensor) Neg() *Tensor { return t.unary(ir.OpNeg, callers()) }

// Abs returns |t| (Abs(MinInt) wraps to MinInt).
func (t *Tensor) Abs() *Tensor { return t.unary(ir.OpAbs, callers()) }

// Exp returns e**t. Integer inputs are converted to Float32, as for every
// transcendental op.
func (t *Tensor) Exp() *Tensor { return t.unary(ir.OpExp, callers()) }

// Log returns the natural logarithm.
func (t *Tensor) Log() *Tensor { return t.unary(ir.OpLog, callers()) }

// Sqrt returns the square root.
func (t *Tensor) Sqrt() *Tensor { return t.unary(ir.OpSqrt, callers()) }

// Rsqrt returns 1/sqrt(t), computed exactly (not an approximation).
func (t *Tensor) Rsqrt() *Tensor { return t.unary(ir.OpRsqrt, callers()) }

// Sin returns the sine.
func (t *Tensor) Sin() *Tensor { return t.unary(ir.OpSin, callers()) }

// Cos returns the cosine.
func (t *Tensor) Cos() *Tensor { return t.unary(ir.OpCos, callers()) }

// Tanh returns the hyperbolic tangent.
func (t *Tensor) Tanh() *Tensor { return t.unary(ir.OpTanh, callers()) }

// Sigmoid returns 1/(1+exp(-t)).
func (t *Tensor) Sigmoid() *Tensor { return t.unary(ir.OpSigmoid, callers()) }

// Floor rounds down (the identity on integers).
func (t *Tensor) Floor() *Tensor { return t.unary(ir.OpFloor, callers()) }

// Ceil rounds up (the identity on integers).
func (t *Tensor) Ceil() *Tensor { return t.unary(ir.OpCeil, callers()) }

// Round rounds to the nearest integer, halves to even (the identity on
// integers).
func (t *Tensor) Round() *Tensor { return t.unary(ir.OpRound, callers()) }

// Relu returns max(t, 0).
func (t *Tensor) Relu() *Tensor { return t.binary(ir.OpMax, Scalar(0), callers()) }

// Cast converts to dt. Float to integer truncates toward zero and
// saturates (NaN becomes 0); integer narrowing wraps; conversion to Bool
// tests for non-zero.
func (t *Tensor) Cast(dt DType) *Tensor {
	pcs := callers()
	if t != nil && t.weak {
		tr := newTracer()
		if !dt.ir().Valid() {
			tr.params = true
			return tr.fail("cast", pcs, "invalid dtype %d", dt)
		}
		return tr.constant(dt.ir(), nil, t.val, pcs)
	}
	tr, ts, ok := unify("cast", pcs, t)
	if !ok {
		return failed(tr, "cast")
	}
	if !dt.ir().Valid() {
		return tr.fail("cast", pcs, "invalid dtype %d", dt)
	}
	return tr.cast(ts[0], dt.ir(), pcs)
}
