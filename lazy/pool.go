package lazy

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gojit/gojit"
)

// Large buffers (batch outputs and host-input copies) are recycled: when
// the gojit.Array holding one becomes unreachable (its tensors, the
// graphs that used it and the user have all let go), a cleanup returns its
// memory to a small pool, and the next flush writes its output there
// instead of allocating and zeroing a new one. An array the user took with
// Array is never recycled: the user may keep its slices.

const (
	recycleMin    = 32 << 10  // smaller buffers are cheap to allocate (not large objects)
	poolMaxBytes  = 256 << 20 // the pool's total size
	poolMaxPerKey = 16
)

// resident counts the large buffers still reachable (for Stats).
var resident struct{ n, bytes atomic.Int64 }

// bufRef marks a recycled buffer that the user has seen.
type bufRef struct{ exposed atomic.Bool }

type poolKey struct {
	dt gojit.DType
	n  int
}

var pool struct {
	mu    sync.Mutex
	free  map[poolKey][]any
	bytes int64
}

type recycled struct {
	ref  *bufRef
	key  poolKey
	data any
}

// newArray returns a new array of dt and shape whose contents are
// undefined (the caller overwrites all of it), and, for a recyclable
// size, the reference that Array marks when the user sees it.
func newArray(dt gojit.DType, shape []int) (*gojit.Array, *bufRef) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n*dt.Size() < recycleMin {
		return gojit.New(dt, shape...), nil
	}
	var a *gojit.Array
	if data := poolGet(poolKey{dt, n}); data != nil {
		a = wrapData(data, shape)
	} else {
		a = gojit.New(dt, shape...)
	}
	return a, track(a)
}

// copyOf returns a copy of data in a recycled buffer or a new one (not
// zeroed first: one pass over the memory).
func copyOf[T any](dt gojit.DType, data []T) []T {
	if len(data)*dt.Size() >= recycleMin {
		if buf, ok := poolGet(poolKey{dt, len(data)}).([]T); ok {
			copy(buf, data)
			return buf
		}
	}
	return slices.Clone(data)
}

// track registers a's buffer for recycling once a is unreachable, if it
// is large enough, and returns the reference Array marks.
func track(a *gojit.Array) *bufRef {
	dt, n := a.DType(), a.Size()
	if n*dt.Size() < recycleMin || a.Err() != nil {
		return nil
	}
	ref := &bufRef{}
	resident.n.Add(1)
	resident.bytes.Add(int64(n * dt.Size()))
	runtime.AddCleanup(a, func(r recycled) {
		resident.n.Add(-1)
		resident.bytes.Add(-int64(r.key.n * r.key.dt.Size()))
		if !r.ref.exposed.Load() {
			poolPut(r.key, r.data)
		}
	}, recycled{ref, poolKey{dt, n}, a.Data()})
	return ref
}

func poolGet(key poolKey) any {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	list := pool.free[key]
	if len(list) == 0 {
		return nil
	}
	data := list[len(list)-1]
	pool.free[key] = list[:len(list)-1]
	pool.bytes -= int64(key.n * key.dt.Size())
	return data
}

func poolPut(key poolKey, data any) {
	size := int64(key.n * key.dt.Size())
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.free == nil {
		pool.free = map[poolKey][]any{}
	}
	if len(pool.free[key]) >= poolMaxPerKey || pool.bytes+size > poolMaxBytes {
		return
	}
	pool.free[key] = append(pool.free[key], data)
	pool.bytes += size
}

func wrapData(data any, shape []int) *gojit.Array {
	switch d := data.(type) {
	case []float32:
		return gojit.FromFloat32(d, shape...)
	case []float64:
		return gojit.FromFloat64(d, shape...)
	case []int32:
		return gojit.FromInt32(d, shape...)
	case []int64:
		return gojit.FromInt64(d, shape...)
	case []uint8:
		return gojit.FromUint8(d, shape...)
	case []bool:
		return gojit.FromBool(d, shape...)
	}
	panic("lazy: unexpected buffer type")
}
