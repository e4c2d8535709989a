package gojit

import (
	"math"

	"github.com/gojit/gojit/internal/ir"
)

// Weak scalars (Scalar) meeting a tensor.
//
// The rule, after JAX's weak types: a weak scalar takes the dtype of the
// tensor it meets when its value is exactly representable there (any value
// for a float tensor, which rounds it like a cast; an integer in range for
// an integer tensor; 0 or 1 for Bool). When it is not (a fraction, NaN,
// ±Inf, or an integer out of the dtype's range):
//
//   - a comparison gives the mathematically exact answer, as NumPy 2 does
//     for out-of-range Python integers: i32 < +Inf is true everywhere,
//     u8 > -1 too, i32 == 2.5 is false, i32 < 2.5 is i32 <= 2, and any
//     comparison with NaN is false except NotEqual;
//   - any other op (arithmetic, Maximum, Minimum, Where) is computed in
//     Float32, as JAX computes an integer array with a Python float: so
//     i32 + 3e9 is a Float32 3e9 + x instead of wrapping, and
//     Where(c, x_i32, Scalar(math.Inf(-1))) keeps -Inf. Cast the tensor to
//     Float64 first for more precision;
//   - Bool tensors take part in no arithmetic: b.Mul(Scalar(2)) stays an
//     error, as b.Mul(b) is.

// weakFits reports whether v is exactly a value of dt.
func weakFits(dt ir.DType, v float64) bool {
	switch dt {
	case ir.Float16, ir.BFloat16, ir.Float32, ir.Float64:
		return true
	case ir.Bool:
		return v == 0 || v == 1
	}
	if v != math.Trunc(v) { // a fraction, NaN or ±Inf
		return false
	}
	lo, hi := intRange(dt)
	return v >= lo && v <= hi
}

// intRange is the range of an integer or bool dtype as float64 values:
// for Int64, hi is the largest float64 below 2^63 (2^63 - 1 itself has no
// float64), so every v in [lo, hi] converts to int64 exactly.
func intRange(dt ir.DType) (lo, hi float64) {
	switch dt {
	case ir.Bool:
		return 0, 1
	case ir.Uint8:
		return 0, math.MaxUint8
	case ir.Int32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.Nextafter(1<<63, 0)
}

// weakDType is the dtype of an op between a tensor of dtype other and the
// weak scalar v (see the rule above). Bool tensors keep Bool for ops that
// refuse it, so that the op reports the bool operand.
func weakDType(op ir.Op, other ir.DType, v float64) ir.DType {
	if weakFits(other, v) || (other == ir.Bool && op.Info().NoBool) {
		return other
	}
	return ir.Float32
}

// exactCompare decides a comparison between a tensor of integer or bool
// dtype dt and a weak scalar v that dt cannot represent: either the result
// is the same everywhere (constant, value) or it equals the comparison op2
// against the representable value w. scalarLeft says the scalar is the
// left operand (v < x rather than x < v).
func exactCompare(op ir.Op, dt ir.DType, v float64, scalarLeft bool) (constant, value bool, op2 ir.Op, w float64) {
	if scalarLeft { // v op x  is  x op' v
		switch op {
		case ir.OpLt:
			op = ir.OpGt
		case ir.OpLe:
			op = ir.OpGe
		case ir.OpGt:
			op = ir.OpLt
		case ir.OpGe:
			op = ir.OpLe
		}
	}
	lo, hi := intRange(dt)
	switch {
	case math.IsNaN(v):
		return true, op == ir.OpNe, 0, 0
	case v > hi: // above every x
		return true, op == ir.OpNe || op == ir.OpLt || op == ir.OpLe, 0, 0
	case v < lo: // below every x
		return true, op == ir.OpNe || op == ir.OpGt || op == ir.OpGe, 0, 0
	}
	// A fraction strictly inside the range: no x equals it, and with
	// f = floor(v), x < v and x <= v are x <= f; x > v and x >= v are x > f.
	f := math.Floor(v)
	switch op {
	case ir.OpEq:
		return true, false, 0, 0
	case ir.OpNe:
		return true, true, 0, 0
	case ir.OpLt, ir.OpLe:
		return false, false, ir.OpLe, f
	}
	return false, false, ir.OpGt, f
}

// constOf converts v as Cast converts a Float64 to dt: floats keep it
// (rounded to Float32 when the node is), integers truncate toward zero and
// saturate (NaN becomes 0), Bool is v != 0.
func constOf(dt ir.DType, v float64) ir.Const {
	switch {
	case dt.Floating():
		return ir.Const{F: v}
	case dt == ir.Bool:
		if v != 0 {
			return ir.Const{F: 1, I: 1}
		}
		return ir.Const{}
	case math.IsNaN(v):
		return ir.Const{}
	case v >= 1<<63:
		v = math.MaxInt64 // rounds to 2^63; clamped below for Int64
	}
	lo, hi := intRange(dt)
	t := math.Trunc(v)
	switch {
	case t < lo:
		return ir.Const{F: lo, I: int64(lo)}
	case t > hi && dt == ir.Int64:
		return ir.Const{F: t, I: math.MaxInt64}
	case t > hi:
		return ir.Const{F: hi, I: int64(hi)}
	}
	return ir.Const{F: t, I: int64(t)}
}
