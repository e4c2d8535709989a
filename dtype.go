package gojit

import (
	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// DType is the element type of an Array or Tensor.
type DType uint8

// The element types, in promotion order: when a binary op combines two
// tensors of different dtypes, both are converted to the later one in this
// list (Int64 with Float32 gives Float32, as in JAX).
const (
	Bool  = DType(ir.Bool)
	Uint8 = DType(ir.Uint8)
	Int32 = DType(ir.Int32)
	Int64 = DType(ir.Int64)
	// Float16 (IEEE binary16) and BFloat16 are storage dtypes: arrays
	// hold them (as F16 and BF16 values) and every op accepts them, but
	// computes in Float32 inside the kernel and rounds its result back to
	// the half dtype (round to nearest even), as JAX does on CPU. Float16
	// with BFloat16 promotes to Float32; any integer with a half gives the
	// half, as in JAX.
	Float16  = DType(ir.Float16)
	BFloat16 = DType(ir.BFloat16)
	Float32  = DType(ir.Float32)
	Float64  = DType(ir.Float64)
)

// F16 is one Float16 element (its bits); F16Of rounds a float32 to it and
// its Float32 method widens it exactly.
type F16 = half.Float16

// BF16 is one BFloat16 element (its bits: the top half of a float32).
type BF16 = half.BFloat16

// F16Of rounds f to the nearest Float16 (ties to even; overflow gives ±Inf).
func F16Of(f float32) F16 { return half.Float16From(f) }

// BF16Of rounds f to the nearest BFloat16 (ties to even).
func BF16Of(f float32) BF16 { return half.BFloat16From(f) }

// String returns the dtype's short name: bool, u8, i32, i64, f16, bf16,
// f32, f64.
func (d DType) String() string { return ir.DType(d).String() }

// Size is the size in bytes of one element.
func (d DType) Size() int { return ir.DType(d).Size() }

// IsFloat reports whether d is a float dtype: Float16, BFloat16, Float32
// or Float64.
func (d DType) IsFloat() bool { return ir.DType(d).Floating() }

func (d DType) ir() ir.DType { return ir.DType(d) }
