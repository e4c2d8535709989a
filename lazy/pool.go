package lazy

import (
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// Buffers: lazy has no pool of its own. Batch outputs and the copies of
// host data come from the root package's output pool (outputs.go, the one
// gojit.Func.Call uses): a large buffer carries a finalizer on its first
// element and returns to the pool once nothing points into it, neither
// the Array nor any slice the user took from it, so a buffer the user saw
// through Array is safe without any bookkeeping, and the next flush of
// that size writes there instead of allocating and zeroing new memory.
// Medium buffers (1 to 64 KiB) are carved from pooled slabs, which return
// to the pool once every buffer carved from them is unreachable.

// residentMin is the smallest buffer Stats counts as resident.
const residentMin = 64 << 10

// resident counts the large buffers still reachable (for Stats).
var resident struct{ n, bytes atomic.Int64 }

// newArray returns a new array of dt and shape whose contents are
// undefined (the caller overwrites all of it).
func newArray(dt gojit.DType, shape []int) *gojit.Array {
	a := lazycore.H.NewOutput(ir.DType(dt), shape).(*gojit.Array)
	track(a)
	return a
}

// hostCopy returns an array of dt and shape (1-D when nil) holding a copy
// of data: outside the Go heap from hostMin to hostBigMax bytes
// (hostmem.go), otherwise (or when that memory is used up) in a buffer of
// the output pool, as a batch output. Either way it is copied in one pass
// (bigCopy), without zeroing, and, in a loop that creates its inputs from
// host slices, into memory used before rather than a fresh large object,
// which the runtime zeroes and often faults in again (the scavenger
// returns freed pages to the system). Invalid shapes go through wrap, for
// its error.
func hostCopy[T any](dt gojit.DType, wrap func([]T, ...int) *gojit.Array, data []T, shape []int) (*gojit.Array, *hostBuf) {
	if cloneHostCopies || shape != nil && (ir.Shape(shape).Check(ir.DType(dt)) != nil || ir.Shape(shape).Size() != len(data)) {
		a := wrap(slices.Clone(data), shape...) // wrap checks the shape
		track(a)
		return a, nil
	}
	var zero T
	if bytes := uintptr(len(data)) * unsafe.Sizeof(zero); !heapHostCopies && bytes >= hostMin && bytes <= hostBigMax {
		if a, k := hostMemCopy(wrap, data, shape); a != nil {
			return a, k
		}
	}
	if shape == nil {
		shape = []int{len(data)}
	} else {
		shape = slices.Clone(shape)
	}
	a := newArray(dt, shape)
	bigCopy(a.Data().([]T), data)
	return a, nil
}

// cloneHostCopies makes host copies plain clones, as lazy made them
// before, and heapHostCopies keeps them in the output pool: for the
// benchmarks that compare the three.
var cloneHostCopies, heapHostCopies bool

type residentKey struct{ bytes int64 }

// track counts a's buffer as resident until a is unreachable, if it is
// large enough.
func track(a *gojit.Array) {
	bytes := int64(a.Size() * a.DType().Size())
	if bytes < residentMin || a.Err() != nil {
		return
	}
	resident.n.Add(1)
	resident.bytes.Add(bytes)
	runtime.AddCleanup(a, func(k residentKey) {
		resident.n.Add(-1)
		resident.bytes.Add(-k.bytes)
	}, residentKey{bytes})
}
