package ir

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// DType is the element type of a tensor.
type DType uint8

// The element types. Their order is the promotion order used by the front
// ends: when two strongly typed operands differ, the later one wins.
const (
	InvalidDType DType = iota
	Bool
	Uint8
	Int32
	Int64
	// Float16 (IEEE binary16) and BFloat16 are storage dtypes: params,
	// constants, casts, layout ops and where carry them; every other op
	// computes in Float32 (the front ends insert the casts). They sit
	// before Float32 so that promotion by order gives JAX's answers (i64
	// with f16 is f16, f16 with f32 is f32); f16 with bf16, which JAX
	// promotes to f32, is the front ends' one special case.
	Float16
	BFloat16
	Float32
	Float64
)

var dtypeNames = [...]string{"invalid", "bool", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"}
var dtypeSizes = [...]int{0, 1, 1, 4, 8, 2, 2, 4, 8}

// String returns the short name used in the IR text: bool, u8, i32, i64,
// f16, bf16, f32, f64.
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", int(d))
}

// Valid reports whether d is one of the defined element types.
func (d DType) Valid() bool { return d > InvalidDType && d <= Float64 }

// Size is the size of one element in bytes (a Bool is stored as one byte, 0 or 1).
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

// IsFloat reports whether d is Float32 or Float64.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsInt reports whether d is an integer type (Uint8, Int32, Int64).
func (d DType) IsInt() bool { return d == Uint8 || d == Int32 || d == Int64 }

// IsHalf reports whether d is one of the 16-bit storage dtypes, Float16
// or BFloat16.
func (d DType) IsHalf() bool { return d == Float16 || d == BFloat16 }

// Floating reports whether d is a float dtype, storage or computing.
func (d DType) Floating() bool { return d.IsFloat() || d.IsHalf() }

// IsSigned reports whether d is a signed integer or float type.
func (d DType) IsSigned() bool { return d == Int32 || d == Int64 || d.IsFloat() }

// ParseDType parses a name printed by DType.String.
func ParseDType(s string) (DType, error) {
	for i, n := range dtypeNames {
		if i > 0 && n == s {
			return DType(i), nil
		}
	}
	return InvalidDType, fmt.Errorf("unknown dtype %q", s)
}

// Shape is a row-major tensor shape. A nil or empty Shape is a scalar.
type Shape []int

// Rank is the number of dimensions.
func (s Shape) Rank() int { return len(s) }

// MaxBytes bounds the size of one array: 2^48 bytes (256 TiB), the most a
// Go slice can address on 64-bit hosts. Shapes beyond it are errors, which
// also keeps every element count, byte size and stride of a valid shape far
// from overflowing an int.
const MaxBytes = 1 << 48

// Check reports a negative dimension in s, or a shape too large for an
// array of dt (more than MaxBytes; with dimensions of size 0 counted as 1,
// so that strides stay in range too). An invalid dt counts as 1 byte.
func (s Shape) Check(dt DType) error {
	elem := uint64(max(dt.Size(), 1))
	n := elem
	for _, d := range s {
		if d < 0 {
			return fmt.Errorf("negative dimension in shape %s", s)
		}
		hi, lo := bits.Mul64(n, uint64(max(d, 1)))
		if hi != 0 || lo > MaxBytes {
			return fmt.Errorf("shape %s is too large: more than 2^48 bytes of %s", s, dt)
		}
		n = lo
	}
	return nil
}

// Size is the number of elements (1 for a scalar).
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Equal reports whether two shapes are identical.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy that shares no memory with s.
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

// Strides returns the row-major element strides of s.
func (s Shape) Strides() []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// String formats the shape as in the IR text: [2,3], [] for a scalar.
func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	return b.String()
}

// BroadcastShapes returns the NumPy broadcast of two shapes: dimensions are
// aligned on the right and a dimension of size 1 stretches to the other.
func BroadcastShapes(a, b Shape) (Shape, bool) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if k := len(a) - n + i; k >= 0 {
			da = a[k]
		}
		if k := len(b) - n + i; k >= 0 {
			db = b[k]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, false
		}
	}
	return out, true
}
