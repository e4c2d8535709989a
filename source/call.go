package source

import (
	"fmt"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"runtime"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/llvm"
)

// native is a compiled function ready to call.
type native struct {
	name        string
	kernel      *llvm.Kernel
	sites       []site
	params      []pkind
	pnames      []string
	ptypes      []string // Go spelling of each parameter's type, for errors
	results     []pkind
	pslots      []int
	rslots      []int
	words       int
	code        *codeText // the text of each stage, for Code
	obj         []byte    // the object code
	how         string    // "compiled", "disk cache" or "memory cache"
	par         *parInfo  // nil without parallel loops
	threads     int       // WithThreads
	compileTime time.Duration
}

// RuntimeError is returned by Call (and bound functions) when the compiled
// code fails where Go would panic: an index or slice bounds out of range,
// an integer division by zero, a negative shift count, or a call of panic.
// Pos is the failing expression in the user's source.
type RuntimeError struct {
	Pos   token.Position
	Func  string // the compiled function
	Msg   string // as Go's runtime words it, e.g. "index out of range [5] with length 3"
	Index int64  // the offending index or bound (0 if none)
	Len   int64  // the length or capacity it was checked against (0 if none)
}

// Error formats e as "file:line:col: func: message".
func (e *RuntimeError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Func, e.Msg)
}

// runtimeError turns the frame's status words into an error.
func (n *native) runtimeError(st *[statusWords]uint64) error {
	s := int(st[0])
	if s < 1 || s > len(n.sites) {
		return fmt.Errorf("source: %s: compiled code reported an unknown failure %d", n.name, s)
	}
	si := n.sites[s-1]
	a, b := int64(st[1]), int64(st[2])
	e := &RuntimeError{Pos: si.pos, Func: n.name, Index: a, Len: b}
	switch si.kind {
	case siteIndex:
		// Go's wording: a negative index is reported without the length.
		if a < 0 {
			e.Msg = fmt.Sprintf("index out of range [%d]", a)
		} else {
			e.Msg = fmt.Sprintf("index out of range [%d] with length %d", a, b)
		}
	case siteSliceLen:
		e.Msg = fmt.Sprintf("slice bounds out of range [:%d] with length %d", a, b)
	case siteSliceCap:
		e.Msg = fmt.Sprintf("slice bounds out of range [:%d] with capacity %d", a, b)
	case siteSliceLo:
		e.Msg = fmt.Sprintf("slice bounds out of range [%d:%d]", a, b)
	case siteDivide:
		e.Msg = "integer divide by zero"
	case siteShift:
		e.Msg = "negative shift amount" // as Go says it; the count is in Index
	case sitePanic:
		e.Msg = "panic called"
	}
	return e
}

// run calls the kernel on frame, whose parameter words are filled in.
// The slices whose data the frame points to must be kept alive by the
// caller until run returns.
func (n *native) run(frame []uint64) error {
	if n.par != nil {
		return n.runPar(frame)
	}
	var ptrs [llvm.MaxDirect]unsafe.Pointer
	ptrs[0] = unsafe.Pointer(&frame[0])
	n.kernel.CallDirect(&ptrs, 1)
	if frame[0] != 0 {
		return n.runtimeError((*[statusWords]uint64)(frame))
	}
	return nil
}

func (n *native) call(args []any) ([]any, error) {
	if len(args) != len(n.params) {
		return nil, fmt.Errorf("source: %s takes %d arguments, got %d", n.name, len(n.params), len(args))
	}
	frame := make([]uint64, n.words)
	for i, a := range args {
		if !putArg(frame[n.pslots[i]:], n.params[i], a) {
			// As the Go function (fallback, GOJIT_DISABLE_JIT) would
			// through reflection: a number of another type is accepted
			// when it converts exactly.
			why := fmt.Sprintf("got %T", a)
			if rt := scalarReflectType(n.params[i]); rt != nil {
				cv, err := convertArg(a, rt)
				if err == nil && putArg(frame[n.pslots[i]:], n.params[i], cv.Interface()) {
					continue
				}
				if err != nil {
					why = err.Error()
				}
			}
			return nil, fmt.Errorf("source: %s: argument %d (%s): want %s, %s", n.name, i+1, n.pnames[i], n.ptypes[i], why)
		}
	}
	err := n.run(frame)
	runtime.KeepAlive(args)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(n.results))
	for i, k := range n.results {
		out[i] = getResult(frame[n.rslots[i]], k.elem)
	}
	return out, nil
}

// putArg stores a in the frame words w as parameter kind k; false if a has
// the wrong type.
func putArg(w []uint64, k pkind, a any) bool {
	if k.slice {
		var p unsafe.Pointer
		var l, c int
		switch k.elem {
		case types.Float32:
			s, ok := a.([]float32)
			if !ok {
				return false
			}
			p, l, c = unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s)
		case types.Float64:
			s, ok := a.([]float64)
			if !ok {
				return false
			}
			p, l, c = unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s)
		case types.Int, types.Int64:
			switch s := a.(type) {
			case []int:
				if k.elem != types.Int {
					return false
				}
				p, l, c = unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s)
			case []int64:
				if k.elem != types.Int64 {
					return false
				}
				p, l, c = unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s)
			default:
				return false
			}
		default:
			var ok bool
			p, l, c, ok = otherSlice(k.elem, a)
			if !ok {
				return false
			}
		}
		w[0], w[1], w[2] = uint64(uintptr(p)), uint64(l), uint64(c)
		return true
	}
	v, ok := scalarBits(k.elem, a)
	w[0] = v
	return ok
}

func sliceParts[T any](s []T) (unsafe.Pointer, int, int, bool) {
	return unsafe.Pointer(unsafe.SliceData(s)), len(s), cap(s), true
}

func otherSlice(k types.BasicKind, a any) (unsafe.Pointer, int, int, bool) {
	switch s := a.(type) {
	case []bool:
		if k == types.Bool {
			return sliceParts(s)
		}
	case []int8:
		if k == types.Int8 {
			return sliceParts(s)
		}
	case []int16:
		if k == types.Int16 {
			return sliceParts(s)
		}
	case []int32:
		if k == types.Int32 {
			return sliceParts(s)
		}
	case []uint:
		if k == types.Uint {
			return sliceParts(s)
		}
	case []uint8:
		if k == types.Uint8 {
			return sliceParts(s)
		}
	case []uint16:
		if k == types.Uint16 {
			return sliceParts(s)
		}
	case []uint32:
		if k == types.Uint32 {
			return sliceParts(s)
		}
	case []uint64:
		if k == types.Uint64 {
			return sliceParts(s)
		}
	case []uintptr:
		if k == types.Uintptr {
			return sliceParts(s)
		}
	}
	return nil, 0, 0, false
}

// scalarBits returns a's bits as a frame word if a is of kind k.
func scalarBits(k types.BasicKind, a any) (uint64, bool) {
	switch v := a.(type) {
	case float64:
		return math.Float64bits(v), k == types.Float64
	case float32:
		return uint64(math.Float32bits(v)), k == types.Float32
	case int:
		return uint64(v), k == types.Int
	case int64:
		return uint64(v), k == types.Int64
	case int32:
		return uint64(uint32(v)), k == types.Int32
	case int16:
		return uint64(uint16(v)), k == types.Int16
	case int8:
		return uint64(uint8(v)), k == types.Int8
	case uint:
		return uint64(v), k == types.Uint
	case uint64:
		return v, k == types.Uint64
	case uint32:
		return uint64(v), k == types.Uint32
	case uint16:
		return uint64(v), k == types.Uint16
	case uint8:
		return uint64(v), k == types.Uint8
	case uintptr:
		return uint64(v), k == types.Uintptr
	case bool:
		if v {
			return 1, k == types.Bool
		}
		return 0, k == types.Bool
	}
	return 0, false
}

// getResult converts a result word of kind k to its Go value.
func getResult(w uint64, k types.BasicKind) any {
	switch k {
	case types.Float64:
		return math.Float64frombits(w)
	case types.Float32:
		return math.Float32frombits(uint32(w))
	case types.Int:
		return int(w)
	case types.Int64:
		return int64(w)
	case types.Int32:
		return int32(w)
	case types.Int16:
		return int16(w)
	case types.Int8:
		return int8(w)
	case types.Uint:
		return uint(w)
	case types.Uint64:
		return w
	case types.Uint32:
		return uint32(w)
	case types.Uint16:
		return uint16(w)
	case types.Uint8:
		return uint8(w)
	case types.Uintptr:
		return uintptr(w)
	case types.Bool:
		return w&1 != 0
	}
	return nil
}

// scalarReflectType is the Go type of scalar parameter kind k (nil for a
// slice), for converting arguments of another numeric type.
func scalarReflectType(k pkind) reflect.Type {
	if k.slice {
		return nil
	}
	switch k.elem {
	case types.Bool:
		return reflect.TypeFor[bool]()
	case types.Int:
		return reflect.TypeFor[int]()
	case types.Int8:
		return reflect.TypeFor[int8]()
	case types.Int16:
		return reflect.TypeFor[int16]()
	case types.Int32:
		return reflect.TypeFor[int32]()
	case types.Int64:
		return reflect.TypeFor[int64]()
	case types.Uint:
		return reflect.TypeFor[uint]()
	case types.Uint8:
		return reflect.TypeFor[uint8]()
	case types.Uint16:
		return reflect.TypeFor[uint16]()
	case types.Uint32:
		return reflect.TypeFor[uint32]()
	case types.Uint64:
		return reflect.TypeFor[uint64]()
	case types.Uintptr:
		return reflect.TypeFor[uintptr]()
	case types.Float32:
		return reflect.TypeFor[float32]()
	case types.Float64:
		return reflect.TypeFor[float64]()
	}
	return nil
}
