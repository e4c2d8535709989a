package lazy

import (
	"runtime"
	"slices"
	"sync/atomic"

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

// residentMin is the smallest buffer Stats counts as resident.
const residentMin = 32 << 10

// resident counts the large buffers still reachable (for Stats).
var resident struct{ n, bytes atomic.Int64 }

// newArray returns a new array of dt and shape whose contents are
// undefined (the caller overwrites all of it).
func newArray(dt gojit.DType, shape []int) *gojit.Array {
	a := lazycore.H.NewOutput(ir.DType(dt), shape).(*gojit.Array)
	track(a)
	return a
}

// copyOf returns a copy of data in a recycled buffer or a new one (not
// zeroed first: one pass over the memory).
func copyOf[T any](dt gojit.DType, data []T) []T {
	buf, ok := lazycore.H.Buffer(ir.DType(dt), len(data)).([]T)
	if !ok {
		return slices.Clone(data) // not pooled: one pass, no zeroing
	}
	copy(buf, data)
	return buf
}

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
