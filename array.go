package gojit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
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
	// data is the typed slice, or nil for a Call output, whose slice
	// is ptr and bytes (see slice): boxing a slice header in an any is an
	// allocation of its own, which a small Call would pay every time.
	data  any
	ptr   unsafe.Pointer
	bytes uintptr // len(data) times the element size
	err   error
	// handed is set (atomically: arrays may be read from several
	// goroutines) once a slice of a Call output's buffer has been handed
	// out, by an accessor or to another package: Release then never
	// recycles the buffer, since that slice may still be in use.
	handed uint32
}

func wrap[T any](dt DType, data []T, shape []int) *Array {
	a := &Array{dtype: dt, data: data}
	if shape == nil {
		a.shape = []int{len(data)}
	} else {
		a.shape = slices.Clone(shape)
	}
	if err := ir.Shape(a.shape).Check(dt.ir()); err != nil {
		a.err = fmt.Errorf("gojit: %v", err)
	} else if n := ir.Shape(a.shape).Size(); n != len(data) {
		a.err = fmt.Errorf("gojit: shape %s needs %d elements, slice has %d", ir.Shape(a.shape), n, len(data))
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

// FromFloat16 wraps Float16 data (see F16Of) as an array of the given
// shape (1-D when none).
func FromFloat16(data []F16, shape ...int) *Array { return wrap(Float16, data, shape) }

// FromBFloat16 wraps BFloat16 data (see BF16Of) as an array of the given
// shape (1-D when none).
func FromBFloat16(data []BF16, shape ...int) *Array { return wrap(BFloat16, data, shape) }

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

// New returns a zero-filled array. A negative dimension, a shape too
// large to allocate (over 2^48 bytes) or an invalid dtype gives an empty
// array whose Err says so.
func New(dt DType, shape ...int) *Array {
	shape = slices.Clone(shape)
	if shape == nil {
		shape = []int{}
	}
	n := 0
	if err := ir.Shape(shape).Check(dt.ir()); err != nil {
		if dt.ir().Valid() {
			a := newOf(dt, 0, shape)
			a.err = fmt.Errorf("gojit: %v", err)
			return a
		}
	} else {
		n = ir.Shape(shape).Size()
	}
	return newOf(dt, n, shape)
}

// newOf wraps a new slice of n elements of dt under shape.
func newOf(dt DType, n int, shape []int) *Array {
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
	case Float16:
		return wrap(dt, make([]F16, n), shape)
	case BFloat16:
		return wrap(dt, make([]BF16, n), shape)
	}
	return &Array{dtype: dt, shape: shape, err: fmt.Errorf("gojit: invalid dtype %d", dt)}
}

// ScalarArray returns a 0-dimensional array of dt holding v, the host form
// of a scalar argument. v must be exactly a value of dt (an integer in
// range for integer dtypes, 0 or 1 for Bool); otherwise Err says so.
// Float32 rounds v to the nearest float32.
func ScalarArray(v float64, dt DType) *Array {
	a := New(dt)
	if a.err != nil {
		return a
	}
	if !weakFits(dt.ir(), v) {
		a.err = fmt.Errorf("gojit: ScalarArray: %v is not a %s value", v, dt)
		return a
	}
	c := constOf(dt.ir(), v)
	switch d := a.data.(type) {
	case []bool:
		d[0] = c.I != 0
	case []uint8:
		d[0] = uint8(c.I)
	case []int32:
		d[0] = int32(c.I)
	case []int64:
		d[0] = c.I
	case []float32:
		d[0] = float32(c.F)
	case []float64:
		d[0] = c.F
	case []F16:
		d[0] = F16Of(float32(c.F))
	case []BF16:
		d[0] = BF16Of(float32(c.F))
	}
	return a
}

// ErrReleased is wrapped by the errors of an array after its Release.
var ErrReleased = errors.New("array used after Release")

var errReleased = fmt.Errorf("gojit: %w", ErrReleased)

// Release says that the caller is done with a: neither a nor anything
// made from it will be used again. A Call result whose buffer was never
// handed out as a slice (by Float32 or another accessor, Data, String, or
// to another gojit package such as lazy) goes back to the output pool at
// once, where the next Call that needs as many bytes takes it while it is
// still in the processor's cache, without waiting for the garbage
// collector to prove it unreachable. Any other array's memory is left to
// the collector, as without Release; so Release never frees memory a
// slice still points into.
//
// After Release, a is empty: its accessors return nil, Err reports
// ErrReleased, and Call and CallInto refuse it. Releasing a nil or
// released array does nothing. Release must not run while another
// goroutine uses a.
//
// Release is optional: without it a Call result is recycled once the
// collector finds it unreachable (see Call). It pays in loops that drop
// their outputs at once, such as a compiled step whose result feeds the
// next call: BenchmarkCallAllocating's release-pair lines compare it with
// CallInto, its pair lines Call alone.
func (a *Array) Release() {
	if a == nil || errors.Is(a.err, ErrReleased) {
		return
	}
	ptr, bytes, owned := a.ptr, a.bytes, a.data == nil && atomic.LoadUint32(&a.handed) == 0
	a.data, a.ptr, a.bytes = nil, nil, 0
	a.err = errReleased
	if owned && ptr != nil {
		releaseOutput(ptr, bytes)
	}
}

// errNilArray is what the methods of a nil *Array report.
var errNilArray = errors.New("gojit: nil *Array")

// Err reports a construction problem: the shape and the slice's length
// disagree, a dimension is negative, the shape is too large, or the dtype
// is invalid. Such an array is refused by Call; its other methods still
// work on what it holds.
func (a *Array) Err() error {
	if a == nil {
		return errNilArray
	}
	return a.err
}

// DType returns the element type.
func (a *Array) DType() DType {
	if a == nil {
		return DType(ir.InvalidDType)
	}
	return a.dtype
}

// Shape returns a copy of the shape.
func (a *Array) Shape() []int {
	if a == nil {
		return nil
	}
	return slices.Clone(a.shape)
}

// Size returns the number of elements: the product of the shape, or, for
// an array whose Err is not nil, the number of elements its slice holds.
func (a *Array) Size() int {
	if a == nil {
		return 0
	}
	if a.err != nil {
		return reflectLen(a.slice())
	}
	return ir.Shape(a.shape).Size()
}

// Float32 returns the data if the dtype is Float32, else nil.
func (a *Array) Float32() []float32 { return dataOf[float32](a) }

// Float16 returns the data if the dtype is Float16, else nil.
func (a *Array) Float16() []F16 { return dataOf[F16](a) }

// BFloat16 returns the data if the dtype is BFloat16, else nil.
func (a *Array) BFloat16() []BF16 { return dataOf[BF16](a) }

// Float64 returns the data if the dtype is Float64, else nil.
func (a *Array) Float64() []float64 { return dataOf[float64](a) }

// Int32 returns the data if the dtype is Int32, else nil.
func (a *Array) Int32() []int32 { return dataOf[int32](a) }

// Int64 returns the data if the dtype is Int64, else nil.
func (a *Array) Int64() []int64 { return dataOf[int64](a) }

// Uint8 returns the data if the dtype is Uint8, else nil.
func (a *Array) Uint8() []uint8 { return dataOf[uint8](a) }

// Bool returns the data if the dtype is Bool, else nil.
func (a *Array) Bool() []bool { return dataOf[bool](a) }

func dataOf[T any](a *Array) []T {
	if a == nil {
		return nil
	}
	if a.data == nil {
		if a.ptr == nil || a.dtype != dtypeOf[T]() {
			return nil
		}
		a.markHanded()
		var zero T
		return unsafe.Slice((*T)(a.ptr), a.bytes/unsafe.Sizeof(zero))
	}
	s, _ := a.data.([]T)
	return s
}

// markHanded records that a slice of a's buffer is being handed out (see
// Array.handed).
func (a *Array) markHanded() {
	if atomic.LoadUint32(&a.handed) == 0 {
		atomic.StoreUint32(&a.handed, 1)
	}
}

// dtypeOf is the DType whose slices are []T.
func dtypeOf[T any]() DType {
	var zero T
	switch any(zero).(type) {
	case bool:
		return Bool
	case uint8:
		return Uint8
	case int32:
		return Int32
	case int64:
		return Int64
	case float32:
		return Float32
	case float64:
		return Float64
	case F16:
		return Float16
	case BF16:
		return BFloat16
	}
	return DType(ir.InvalidDType)
}

// slice is the typed slice of a (see data), boxed.
func (a *Array) slice() any {
	if a.data != nil || a.ptr == nil {
		return a.data
	}
	a.markHanded()
	n := int(a.bytes / uintptr(a.dtype.Size()))
	switch a.dtype {
	case Bool:
		return unsafe.Slice((*bool)(a.ptr), n)
	case Uint8:
		return unsafe.Slice((*uint8)(a.ptr), n)
	case Int32:
		return unsafe.Slice((*int32)(a.ptr), n)
	case Int64:
		return unsafe.Slice((*int64)(a.ptr), n)
	case Float32:
		return unsafe.Slice((*float32)(a.ptr), n)
	case Float64:
		return unsafe.Slice((*float64)(a.ptr), n)
	case Float16:
		return unsafe.Slice((*F16)(a.ptr), n)
	case BFloat16:
		return unsafe.Slice((*BF16)(a.ptr), n)
	}
	return nil
}

// Data returns the underlying slice ([]float32, []int64, ...) as an any
// (nil for a nil *Array or an invalid dtype). For an array Call returned,
// each Data call boxes the slice anew, an allocation the typed accessors
// (Float32 and the others) do not make.
func (a *Array) Data() any {
	if a == nil {
		return nil
	}
	return a.slice()
}

// String formats the array as dtype[shape] followed by its elements (the
// first 32 of them); an array whose Err is not nil shows the error and the
// elements its slice holds.
func (a *Array) String() string {
	if a == nil {
		return "<nil *gojit.Array>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s ", a.dtype, ir.Shape(a.shape))
	if a.err != nil {
		fmt.Fprintf(&b, "(invalid: %v) ", strings.TrimPrefix(a.err.Error(), "gojit: "))
	}
	data := a.slice()
	n := reflectLen(data)
	s := fmt.Sprint(sliceHead(data, min(n, 32)))
	if n > 32 {
		s = strings.TrimSuffix(s, "]") + " ...]"
	}
	b.WriteString(s)
	return b.String()
}

// reflectLen is the length of the typed slice in data (0 for nil).
func reflectLen(data any) int {
	if v := reflect.ValueOf(data); v.Kind() == reflect.Slice {
		return v.Len()
	}
	return 0
}

// sliceHead is data's first n elements.
func sliceHead(data any, n int) any {
	if v := reflect.ValueOf(data); v.Kind() == reflect.Slice {
		return v.Slice(0, n).Interface()
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
