package codegen

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// regType is the LLVM type a value of dt has in registers.
func regType(dt ir.DType) string {
	switch dt {
	case ir.Bool:
		return "i1"
	case ir.Uint8:
		return "i8"
	case ir.Int32:
		return "i32"
	case ir.Int64:
		return "i64"
	case ir.Float32:
		return "float"
	case ir.Float64:
		return "double"
	case ir.Float16:
		return "half"
	case ir.BFloat16:
		return "i16" // its bits: only moved, selected and converted (half.go)
	}
	panic(fmt.Sprintf("codegen: no LLVM type for %s", dt))
}

// memType is the LLVM type of one element in memory: a Bool is one byte.
func memType(dt ir.DType) string {
	if dt == ir.Bool {
		return "i8"
	}
	return regType(dt)
}

// intrinsicSuffix names dt in overloaded intrinsic names: f32, f64, i8 ...
func intrinsicSuffix(dt ir.DType) string {
	switch dt {
	case ir.Float32:
		return "f32"
	case ir.Float64:
		return "f64"
	}
	return regType(dt)
}

// floatLit prints a float constant of dtype dt. LLVM wants the exact bits,
// as a double in hex, even for float (whose value must be representable).
func floatLit(dt ir.DType, f float64) string {
	if dt == ir.Float32 {
		f = float64(float32(f))
	}
	return fmt.Sprintf("0x%016X", math.Float64bits(f))
}

// constLit prints the scalar value of a const node in dtype dt, following
// the interpreter's conversion rules (integers wrap, bool is non-zero).
func constLit(dt ir.DType, c ir.Const) string {
	switch dt {
	case ir.Float32, ir.Float64:
		return floatLit(dt, c.F)
	case ir.Bool:
		if c.I != 0 {
			return "true"
		}
		return "false"
	case ir.Uint8:
		return strconv.Itoa(int(int8(uint8(c.I))))
	case ir.Int32:
		return strconv.Itoa(int(int32(c.I)))
	case ir.Float16:
		return fmt.Sprintf("0xH%04X", uint16(half.Float16From(float32(c.F))))
	case ir.BFloat16:
		return strconv.Itoa(int(int16(half.BFloat16From(float32(c.F)))))
	}
	return strconv.FormatInt(c.I, 10)
}

// intLit prints an integer of dtype dt (wrapping).
func intLit(dt ir.DType, v int64) string { return constLit(dt, ir.Const{I: v, F: float64(v)}) }

// limits returns the smallest and largest value of an integer dtype.
func limits(dt ir.DType) (lo, hi int64) {
	switch dt {
	case ir.Uint8:
		return 0, 255
	case ir.Int32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}
