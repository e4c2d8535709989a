package gojit

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
)

// Array is host data: a row-major n-dimensional array of one DType.
//
// The From* constructors wrap the caller's slice without copying, so the
// caller sees results written into an Array it created (CallInto) and must
// not resize the slice. A constructor given a shape whose element count
// does not match the slice's length still returns an Array; the mismatch is
// reported by Err and by the first Call that receives it.
type Array struct {
	dtype DType
	shape []int
	data  any // the typed slice
	ptr   unsafe.Pointer
	bytes uintptr // len(data) times the element size
	err   error
}

func wrap[T any](dt DType, data []T, shape []int) *Array {
	a := &Array{dtype: dt, data: data}
	if shape == nil {
		a.shape = []int{len(data)}
	} else {
		a.shape = slices.Clone(shape)
	}
	n := 1
	for _, d := range a.shape {
		if d < 0 {
			a.err = fmt.Errorf("gojit: negative dimension in shape %v", a.shape)
		}
		n *= d
	}
	if a.err == nil && n != len(data) {
		a.err = fmt.Errorf("gojit: shape %v needs %d elements, slice has %d", a.shape, n, len(data))
	}
	if len(data) > 0 {
		a.ptr = unsafe.Pointer(unsafe.SliceData(data))
		a.bytes = uintptr(len(data)) * unsafe.Sizeof(data[0])
	}
	return a
}

// FromFloat32 wraps data as an array of the given shape (1-D when no shape
// is given).
func FromFloat32(data []float32, shape ...int) *Array { return wrap(Float32, data, shape) }

// FromFloat64 wraps data as an array of the given shape (1-D when none).
func FromFloat64(data []float64, shape ...int) *Array { return wrap(Float64, data, shape) }

// FromInt32 wraps data as an array of the given shape (1-D when none).
func FromInt32(data []int32, shape ...int) *Array { return wrap(Int32, data, shape) }

// FromInt64 wraps data as an array of the given shape (1-D when none).
func FromInt64(data []int64, shape ...int) *Array { return wrap(Int64, data, shape) }

// FromUint8 wraps data as an array of the given shape (1-D when none).
func FromUint8(data []uint8, shape ...int) *Array { return wrap(Uint8, data, shape) }

// FromBool wraps data as an array of the given shape (1-D when none).
func FromBool(data []bool, shape ...int) *Array { return wrap(Bool, data, shape) }

// New returns a zero-filled array.
func New(dt DType, shape ...int) *Array {
	n := 1
	for _, d := range shape {
		n *= max(d, 0)
	}
	shape = slices.Clone(shape)
	if shape == nil {
		shape = []int{}
	}
	switch dt {
	case Bool:
		return wrap(dt, make([]bool, n), shape)
	case Uint8:
		return wrap(dt, make([]uint8, n), shape)
	case Int32:
		return wrap(dt, make([]int32, n), shape)
	case Int64:
		return wrap(dt, make([]int64, n), shape)
	case Float32:
		return wrap(dt, make([]float32, n), shape)
	case Float64:
		return wrap(dt, make([]float64, n), shape)
	}
	return &Array{dtype: dt, shape: shape, err: fmt.Errorf("gojit: invalid dtype %d", dt)}
}

// Err reports a construction problem (shape and length disagree).
func (a *Array) Err() error { return a.err }

// DType returns the element type.
func (a *Array) DType() DType { return a.dtype }

// Shape returns a copy of the shape.
func (a *Array) Shape() []int { return slices.Clone(a.shape) }

// Size returns the number of elements.
func (a *Array) Size() int { return ir.Shape(a.shape).Size() }

// Float32 returns the data if the dtype is Float32, else nil.
func (a *Array) Float32() []float32 { s, _ := a.data.([]float32); return s }

// Float64 returns the data if the dtype is Float64, else nil.
func (a *Array) Float64() []float64 { s, _ := a.data.([]float64); return s }

// Int32 returns the data if the dtype is Int32, else nil.
func (a *Array) Int32() []int32 { s, _ := a.data.([]int32); return s }

// Int64 returns the data if the dtype is Int64, else nil.
func (a *Array) Int64() []int64 { s, _ := a.data.([]int64); return s }

// Uint8 returns the data if the dtype is Uint8, else nil.
func (a *Array) Uint8() []uint8 { s, _ := a.data.([]uint8); return s }

// Bool returns the data if the dtype is Bool, else nil.
func (a *Array) Bool() []bool { s, _ := a.data.([]bool); return s }

// Data returns the underlying slice ([]float32, []int64, ...) as an any.
func (a *Array) Data() any { return a.data }

// String formats the array as dtype[shape] followed by its elements (the
// first 32 of them).
func (a *Array) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s ", a.dtype, ir.Shape(a.shape))
	s := fmt.Sprint(a.data)
	if a.Size() > 32 {
		s = fmt.Sprint(sliceHead(a.data, 32)) + "..."
	}
	b.WriteString(s)
	return b.String()
}

func sliceHead(data any, n int) any {
	switch s := data.(type) {
	case []float32:
		return s[:n]
	case []float64:
		return s[:n]
	case []int32:
		return s[:n]
	case []int64:
		return s[:n]
	case []uint8:
		return s[:n]
	case []bool:
		return s[:n]
	}
	return data
}

// overlaps reports whether two arrays share memory.
func overlaps(a, b *Array) bool {
	if a.ptr == nil || b.ptr == nil {
		return false
	}
	as, bs := uintptr(a.ptr), uintptr(b.ptr)
	return as < bs+b.bytes && bs < as+a.bytes
}
