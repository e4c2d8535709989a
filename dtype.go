package gojit

import "github.com/gojit/gojit/internal/ir"

// DType is the element type of an Array or Tensor.
type DType uint8

// The element types, in promotion order: when a binary op combines two
// tensors of different dtypes, both are converted to the later one in this
// list (Int64 with Float32 gives Float32, as in JAX).
const (
	Bool    = DType(ir.Bool)
	Uint8   = DType(ir.Uint8)
	Int32   = DType(ir.Int32)
	Int64   = DType(ir.Int64)
	Float32 = DType(ir.Float32)
	Float64 = DType(ir.Float64)
)

// String returns the dtype's short name: bool, u8, i32, i64, f32, f64.
func (d DType) String() string { return ir.DType(d).String() }

// Size is the size in bytes of one element.
func (d DType) Size() int { return ir.DType(d).Size() }

// IsFloat reports whether d is Float32 or Float64.
func (d DType) IsFloat() bool { return ir.DType(d).IsFloat() }

func (d DType) ir() ir.DType { return ir.DType(d) }
