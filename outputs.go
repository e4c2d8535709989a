package gojit

import (
	"runtime"
	"sync"
	"unsafe"
)

// Output buffers without a tax.
//
// Call hands out new arrays, and a user may keep them, or slices taken
// from them (Float32 returns the array's own slice), as long as they like.
// Allocating each output with make costs more than computing it at large
// sizes: Go zeroes the buffer, which the kernel then overwrites; the
// garbage collector runs every few calls; and memory it returned to the
// operating system faults back in page by page.
//
// So large output buffers are recycled, but only once the garbage collector
// has proven that nothing points into them any more: each buffer Call hands
// out carries a finalizer on its first element. A finalizer runs only when
// its object, the whole allocation, is unreachable, and a slice or pointer
// to any element of it keeps it reachable, so neither the Array nor any
// slice taken from it can still see the memory. The finalizer puts the
// buffer in a pool instead of letting it be freed (which a finalizer may
// do: the object becomes reachable again from the pool), and the next Call
// needing that many bytes takes it without zeroing, since the kernel writes
// every element of its outputs. Finalizers are one-shot; each reuse sets a
// new one.
//
// The pool holds at most outputPoolBytes, and at most outputPoolPerSize
// buffers of one size; a buffer that does not fit is left to the
// collector. Buffers smaller than recycleMinBytes are cheaper to allocate
// than to track.
//
// The pool's buffers count as live heap, so the collector's pacing
// (GOGC) lets the heap grow by as much again before the next cycle, in
// which new buffers are allocated: at best about half the Calls of a
// steady loop reuse a buffer. CallInto, which reuses the caller's arrays,
// avoids the cost entirely.
const (
	recycleMinBytes   = 64 << 10
	outputPoolBytes   = 256 << 20
	outputPoolPerSize = 8
)

var outputPool = struct {
	sync.Mutex
	free  map[uintptr][]unsafe.Pointer // by size in bytes
	bytes uintptr
	// hits and misses count Calls served from the pool and not; tests
	// read them.
	hits, misses int64
}{free: map[uintptr][]unsafe.Pointer{}}

// takeBuffer returns a pooled buffer of exactly size bytes, or nil.
func takeBuffer(size uintptr) unsafe.Pointer {
	outputPool.Lock()
	defer outputPool.Unlock()
	list := outputPool.free[size]
	if len(list) == 0 {
		outputPool.misses++
		return nil
	}
	p := list[len(list)-1]
	list[len(list)-1] = nil
	outputPool.free[size] = list[:len(list)-1]
	outputPool.bytes -= size
	outputPool.hits++
	return p
}

// giveBuffer keeps p, an unreachable output buffer of size bytes, for
// reuse, if the pool has room. It runs on the finalizer goroutine.
func giveBuffer(p unsafe.Pointer, size uintptr) {
	outputPool.Lock()
	defer outputPool.Unlock()
	if outputPool.bytes+size > outputPoolBytes || len(outputPool.free[size]) >= outputPoolPerSize {
		return // dropped: the collector frees it at its next cycle
	}
	outputPool.free[size] = append(outputPool.free[size], p)
	outputPool.bytes += size
}

// outputSlice returns n elements of T for a Call output: recycled when
// there is a pooled buffer of that size (its contents are stale, and the
// caller must overwrite every element), otherwise new. Either way it is
// tracked for recycling when large enough.
func outputSlice[T any](n int) []T {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if size < recycleMinBytes {
		return make([]T, n)
	}
	var s []T
	if p := takeBuffer(size); p != nil {
		s = unsafe.Slice((*T)(p), n)
	} else {
		s = make([]T, n)
	}
	runtime.SetFinalizer(&s[0], func(p *T) { giveBuffer(unsafe.Pointer(p), size) })
	return s
}

// newOutput returns the array for a Call result of dtype dt and shape,
// whose every element the kernel will write (its contents may be stale).
func newOutput(dt DType, shape []int) *Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	var a *Array
	switch dt {
	case Bool:
		a = wrapOwned(dt, outputSlice[bool](n), shape)
	case Uint8:
		a = wrapOwned(dt, outputSlice[uint8](n), shape)
	case Int32:
		a = wrapOwned(dt, outputSlice[int32](n), shape)
	case Int64:
		a = wrapOwned(dt, outputSlice[int64](n), shape)
	case Float32:
		a = wrapOwned(dt, outputSlice[float32](n), shape)
	case Float64:
		a = wrapOwned(dt, outputSlice[float64](n), shape)
	default:
		return New(dt, shape...)
	}
	return a
}

// wrapOwned is wrap for data and shape that are the array's own and
// known to be valid (a compiled result's shape and a buffer of its size):
// nothing is copied or checked.
func wrapOwned[T any](dt DType, data []T, shape []int) *Array {
	a := &Array{dtype: dt, data: data, shape: shape}
	if len(data) > 0 {
		a.ptr = unsafe.Pointer(unsafe.SliceData(data))
		a.bytes = uintptr(len(data)) * unsafe.Sizeof(data[0])
	}
	return a
}
