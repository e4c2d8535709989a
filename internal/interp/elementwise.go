package interp

import (
	"fmt"
	"math"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// Each kernel switches on the op once and then runs a plain loop, so the
// per-element cost is the arithmetic itself: this is also the executor of
// builds without LLVM, where an indirect call per element would dominate.

func unary(op ir.Op, a any) any {
	switch s := a.(type) {
	case []uint8:
		return unaryInt(op, s)
	case []int32:
		return unaryInt(op, s)
	case []int64:
		return unaryInt(op, s)
	case []float32:
		return unaryFloat(op, s)
	case []float64:
		return unaryFloat(op, s)
	}
	panic(fmt.Sprintf("%s on %T", op, a))
}

func unaryInt[T integer](op ir.Op, s []T) []T {
	out := make([]T, len(s))
	switch op {
	case ir.OpNeg:
		// Wraps: -MinInt is MinInt, and on uint8 this is negation mod 256.
		for i, x := range s {
			out[i] = -x
		}
	case ir.OpAbs:
		// Never true for uint8, so Abs is the identity there.
		for i, x := range s {
			if x < 0 {
				x = -x
			}
			out[i] = x
		}
	case ir.OpFloor, ir.OpCeil, ir.OpRound:
		copy(out, s)
	default:
		panic(fmt.Sprintf("%s on %T", op, s))
	}
	return out
}

// unaryFloat evaluates transcendental functions in float64 and rounds once
// to T, which is exact for float64 and gives float32 the correctly rounded
// result of the float64 function rather than a float32 approximation.
func unaryFloat[T float](op ir.Op, s []T) []T {
	out := make([]T, len(s))
	switch op {
	case ir.OpNeg:
		for i, x := range s {
			out[i] = -x
		}
	case ir.OpAbs:
		// math.Abs clears the sign bit, so Abs(-0) is +0 and a negative NaN
		// loses its sign, as LLVM's fabs does; x < 0 ? -x : x would not.
		for i, x := range s {
			out[i] = T(math.Abs(float64(x)))
		}
	case ir.OpExp:
		for i, x := range s {
			out[i] = T(exp64(float64(x)))
		}
	case ir.OpLog:
		for i, x := range s {
			out[i] = T(log64(float64(x)))
		}
	case ir.OpSqrt:
		for i, x := range s {
			out[i] = T(math.Sqrt(float64(x)))
		}
	case ir.OpRsqrt:
		// A true division, not a reciprocal-square-root estimate, so the
		// result is reproducible across targets.
		for i, x := range s {
			out[i] = 1 / T(math.Sqrt(float64(x)))
		}
	case ir.OpSin:
		for i, x := range s {
			out[i] = T(math.Sin(float64(x)))
		}
	case ir.OpCos:
		for i, x := range s {
			out[i] = T(math.Cos(float64(x)))
		}
	case ir.OpTanh:
		for i, x := range s {
			out[i] = T(math.Tanh(float64(x)))
		}
	case ir.OpSigmoid:
		// exp rounded to T first, then 1/(1+e) in T arithmetic.
		for i, x := range s {
			e := T(exp64(-float64(x)))
			out[i] = 1 / (1 + e)
		}
	case ir.OpFloor:
		for i, x := range s {
			out[i] = T(math.Floor(float64(x)))
		}
	case ir.OpCeil:
		for i, x := range s {
			out[i] = T(math.Ceil(float64(x)))
		}
	case ir.OpRound:
		for i, x := range s {
			out[i] = T(math.RoundToEven(float64(x)))
		}
	case ir.OpLog1p, ir.OpExpm1, ir.OpErf:
		unaryMore(op, s, out)
	default:
		panic(fmt.Sprintf("%s on %T", op, s))
	}
	return out
}

func binary(op ir.Op, a, b any) any {
	switch x := a.(type) {
	case []uint8:
		return binaryInt(op, x, b.([]uint8))
	case []int32:
		return binaryInt(op, x, b.([]int32))
	case []int64:
		return binaryInt(op, x, b.([]int64))
	case []float32:
		return binaryFloat(op, x, b.([]float32))
	case []float64:
		return binaryFloat(op, x, b.([]float64))
	}
	panic(fmt.Sprintf("%s on %T", op, a))
}

func binaryInt[T integer](op ir.Op, a, b []T) []T {
	out := make([]T, len(a))
	b = b[:len(a)]
	switch op {
	case ir.OpAdd:
		for i := range out {
			out[i] = a[i] + b[i]
		}
	case ir.OpSub:
		for i := range out {
			out[i] = a[i] - b[i]
		}
	case ir.OpMul:
		for i := range out {
			out[i] = a[i] * b[i]
		}
	case ir.OpDiv:
		// Division by zero gives 0 instead of trapping. MinInt / -1 needs
		// no case: Go defines it as MinInt, the wrapped result.
		for i := range out {
			if b[i] != 0 {
				out[i] = a[i] / b[i]
			}
		}
	case ir.OpMax:
		for i := range out {
			out[i] = max(a[i], b[i])
		}
	case ir.OpMin:
		for i := range out {
			out[i] = min(a[i], b[i])
		}
	case ir.OpMod:
		modInt(a, b, out)
	default:
		panic(fmt.Sprintf("%s on %T", op, a))
	}
	return out
}

func binaryFloat[T float](op ir.Op, a, b []T) []T {
	out := make([]T, len(a))
	b = b[:len(a)]
	switch op {
	case ir.OpAdd:
		for i := range out {
			out[i] = a[i] + b[i]
		}
	case ir.OpSub:
		for i := range out {
			out[i] = a[i] - b[i]
		}
	case ir.OpMul:
		for i := range out {
			out[i] = a[i] * b[i]
		}
	case ir.OpDiv:
		for i := range out {
			out[i] = a[i] / b[i]
		}
	case ir.OpPow:
		for i := range out {
			out[i] = T(pow64(float64(a[i]), float64(b[i])))
		}
	case ir.OpMax:
		// Go's max is NaN-propagating and orders -0 below +0, the same as
		// LLVM's llvm.maximum.
		for i := range out {
			out[i] = max(a[i], b[i])
		}
	case ir.OpMin:
		for i := range out {
			out[i] = min(a[i], b[i])
		}
	case ir.OpMod:
		modFloat(a, b, out)
	default:
		panic(fmt.Sprintf("%s on %T", op, a))
	}
	return out
}

func compare(op ir.Op, a, b any) []bool {
	switch x := a.(type) {
	case []bool:
		return compareBool(op, x, b.([]bool))
	case []uint8:
		return compareNum(op, x, b.([]uint8))
	case []int32:
		return compareNum(op, x, b.([]int32))
	case []int64:
		return compareNum(op, x, b.([]int64))
	case []float32:
		return compareNum(op, x, b.([]float32))
	case []float64:
		return compareNum(op, x, b.([]float64))
	}
	panic(fmt.Sprintf("%s on %T", op, a))
}

// compareNum uses Go's operators, which are IEEE for floats: every
// comparison involving NaN is false except ne.
func compareNum[T number](op ir.Op, a, b []T) []bool {
	out := make([]bool, len(a))
	b = b[:len(a)]
	switch op {
	case ir.OpEq:
		for i := range out {
			out[i] = a[i] == b[i]
		}
	case ir.OpNe:
		for i := range out {
			out[i] = a[i] != b[i]
		}
	case ir.OpLt:
		for i := range out {
			out[i] = a[i] < b[i]
		}
	case ir.OpLe:
		for i := range out {
			out[i] = a[i] <= b[i]
		}
	case ir.OpGt:
		for i := range out {
			out[i] = a[i] > b[i]
		}
	case ir.OpGe:
		for i := range out {
			out[i] = a[i] >= b[i]
		}
	default:
		panic(fmt.Sprintf("%s on %T", op, a))
	}
	return out
}

// compareBool orders false before true, as the 0/1 bytes bools are stored as.
func compareBool(op ir.Op, a, b []bool) []bool {
	out := make([]bool, len(a))
	b = b[:len(a)]
	switch op {
	case ir.OpEq:
		for i := range out {
			out[i] = a[i] == b[i]
		}
	case ir.OpNe:
		for i := range out {
			out[i] = a[i] != b[i]
		}
	case ir.OpLt:
		for i := range out {
			out[i] = !a[i] && b[i]
		}
	case ir.OpLe:
		for i := range out {
			out[i] = !a[i] || b[i]
		}
	case ir.OpGt:
		for i := range out {
			out[i] = a[i] && !b[i]
		}
	case ir.OpGe:
		for i := range out {
			out[i] = a[i] || !b[i]
		}
	default:
		panic(fmt.Sprintf("%s on %T", op, a))
	}
	return out
}

func where(c []bool, a, b any) any {
	switch x := a.(type) {
	case []bool:
		return whereOf(c, x, b.([]bool))
	case []uint8:
		return whereOf(c, x, b.([]uint8))
	case []int32:
		return whereOf(c, x, b.([]int32))
	case []int64:
		return whereOf(c, x, b.([]int64))
	case []float32:
		return whereOf(c, x, b.([]float32))
	case []float64:
		return whereOf(c, x, b.([]float64))
	case []half.Float16:
		return whereOf(c, x, b.([]half.Float16))
	case []half.BFloat16:
		return whereOf(c, x, b.([]half.BFloat16))
	}
	panic(fmt.Sprintf("where on %T", a))
}

func whereOf[T elem](c []bool, a, b []T) []T {
	out := make([]T, len(c))
	a, b = a[:len(c)], b[:len(c)]
	for i, ci := range c {
		if ci {
			out[i] = a[i]
		} else {
			out[i] = b[i]
		}
	}
	return out
}

// cast converts a to dtype dt. Only float-to-integer needs more than Go's
// conversion (see satInt32); integer narrowing wraps, widening extends by
// signedness of the source, and integer-to-float rounds to nearest.
func cast(dt ir.DType, a any) any {
	if r, ok := castHalf(dt, a); ok {
		return r
	}
	switch s := a.(type) {
	case []bool:
		return castBool(dt, s)
	case []uint8:
		return castInt(dt, s)
	case []int32:
		return castInt(dt, s)
	case []int64:
		return castInt(dt, s)
	case []float32:
		return castFloat(dt, s)
	case []float64:
		return castFloat(dt, s)
	}
	panic(fmt.Sprintf("cast of %T", a))
}

func castBool(dt ir.DType, s []bool) any {
	if dt == ir.Bool {
		return append([]bool{}, s...)
	}
	u := make([]uint8, len(s))
	for i, x := range s {
		if x {
			u[i] = 1
		}
	}
	if dt == ir.Uint8 {
		return u
	}
	return castInt(dt, u)
}

func castInt[S integer](dt ir.DType, s []S) any {
	switch dt {
	case ir.Bool:
		return nonZero(s)
	case ir.Uint8:
		return convert[uint8](s)
	case ir.Int32:
		return convert[int32](s)
	case ir.Int64:
		return convert[int64](s)
	case ir.Float32:
		return convert[float32](s)
	case ir.Float64:
		return convert[float64](s)
	}
	panic(fmt.Sprintf("cast of %T to %s", s, dt))
}

func castFloat[S float](dt ir.DType, s []S) any {
	switch dt {
	case ir.Bool:
		return nonZero(s)
	case ir.Uint8:
		out := make([]uint8, len(s))
		for i, x := range s {
			out[i] = satUint8(float64(x))
		}
		return out
	case ir.Int32:
		out := make([]int32, len(s))
		for i, x := range s {
			out[i] = satInt32(float64(x))
		}
		return out
	case ir.Int64:
		out := make([]int64, len(s))
		for i, x := range s {
			out[i] = satInt64(float64(x))
		}
		return out
	case ir.Float32:
		return convert[float32](s)
	case ir.Float64:
		return convert[float64](s)
	}
	panic(fmt.Sprintf("cast of %T to %s", s, dt))
}

// convert is Go's conversion, used only where it is fully defined: between
// integers, from integers to floats, and between floats.
func convert[D, S number](s []S) []D {
	out := make([]D, len(s))
	for i, x := range s {
		out[i] = D(x)
	}
	return out
}

// nonZero is the bool cast: NaN is not zero, so it becomes true; -0 is false.
func nonZero[S number](s []S) []bool {
	out := make([]bool, len(s))
	for i, x := range s {
		out[i] = x != 0
	}
	return out
}

// exp64 is math.Exp corrected near overflow: Go's amd64 assembly Exp
// returns +Inf from about x = 709.437, where the true result is still
// below MaxFloat64 up to x = 709.78 (glibc's exp and gojit's compiled
// code are finite there). x-1 is exact in that range, so the result is
// within about 2 ulps.
func exp64(x float64) float64 {
	if x > 709 && x <= 7.09782712893383973096e+02 {
		return math.Exp(x-1) * math.E
	}
	return math.Exp(x)
}

// log64 is math.Log corrected for subnormal arguments: Go's amd64 assembly
// Log drops their exponent (it returns about -709 for every subnormal,
// where the true logarithm reaches -744). Scaling by 2^54 is exact, and
// subtracting 54*ln2 adds far less than an ulp of the result.
func log64(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// pow64 is math.Pow corrected for positive subnormal bases, which reach
// math.Log's subnormal problem through the fractional part of the
// exponent: x^y = (x*2^54)^y * 2^(-54y). The power of two is exact when
// -54y is an integer; otherwise the result is within about 2 ulps.
func pow64(x, y float64) float64 {
	if x > 0 && x < 0x1p-1022 && y != 0 && !math.IsInf(y, 0) && !math.IsNaN(y) {
		r := math.Pow(x*0x1p54, y)
		e := -54 * y
		if e == math.Trunc(e) && math.Abs(e) < 1<<20 {
			return math.Ldexp(r, int(e))
		}
		return r * math.Pow(2, e)
	}
	return math.Pow(x, y)
}
