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
// collector.
//
// Medium outputs, from slabMinBytes up to recycleMinBytes, are carved
// from slabs: a slab holds slabOutputs outputs of one size and
// carries the one finalizer, so it returns to the pool once every output
// carved from it (and every slice taken from them) is unreachable. A
// finalizer per 4 KiB output would cost more than the kernel; one per
// slab costs little per output. More important is what recycling saves
// at this size: a make per Call lets the collector run every few hundred
// Calls, and a collection costs a millisecond of wall time on a small
// virtual machine (waking the idle processor, two stop-the-world pauses),
// several times the kernel's own time summed over those Calls. The price
// of slabs: an output a caller keeps pins its slab, slabOutputs times its
// own size (at most 1 MiB). Outputs under slabMinBytes are allocated with
// make: they are cheap enough, and leave the collector's pacing to the
// rest of the program.
//
// Slabs are pooled by their size up to slabPoolPerSize bytes each. The
// pooled slabs count as live heap, so the collector's pacing lets the heap
// grow by as much again before the next cycle: the pool also spaces out
// collections, which is what makes a loop of small Calls cheap. Resident
// memory in a steady loop is bounded by about twice the pools' bytes.
const (
	recycleMinBytes   = 64 << 10
	outputPoolBytes   = 256 << 20
	outputPoolPerSize = 8

	slabOutputs     = 16
	slabMinBytes    = 1 << 10
	slabPoolPerSize = 8 << 20
	slabAlign       = 64 // bytes: carved outputs stay cache-line aligned
)

var outputPool = struct {
	sync.Mutex
	free  map[uintptr][]unsafe.Pointer // by size in bytes
	bytes uintptr
	// carving is the slab outputs of one (rounded) size are being carved
	// from, by that size.
	carving map[uintptr]*slabCursor
	// hits and misses count Calls served from the pool and not; tests
	// read them.
	hits, misses int64
}{free: map[uintptr][]unsafe.Pointer{}, carving: map[uintptr]*slabCursor{}}

// slabCursor is the slab of one output size being carved: base is the
// slab (it keeps the slab reachable until it is used up), next the byte
// offset of the next output in it.
type slabCursor struct {
	base unsafe.Pointer
	next uintptr
	size uintptr // of the slab
}

// takeBuffer returns a pooled buffer of exactly size bytes, or nil.
// outputPool must be locked.
func takeBuffer(size uintptr) unsafe.Pointer {
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

// giveBuffer keeps p, an unreachable output buffer or slab of size bytes,
// for reuse, if the pool has room. It runs on the finalizer goroutine.
func giveBuffer(p unsafe.Pointer, size uintptr, perSize int) {
	outputPool.Lock()
	defer outputPool.Unlock()
	if outputPool.bytes+size > outputPoolBytes || len(outputPool.free[size]) >= perSize {
		return // dropped: the collector frees it at its next cycle
	}
	outputPool.free[size] = append(outputPool.free[size], p)
	outputPool.bytes += size
}

// recycled returns a buffer of size bytes, pooled or new, whose finalizer
// gives it back to the pool, keeping at most perSize of that size.
func recycled(size uintptr, perSize int) unsafe.Pointer {
	outputPool.Lock()
	p := takeBuffer(size)
	outputPool.Unlock()
	if p == nil {
		p = unsafe.Pointer(unsafe.SliceData(make([]byte, size)))
	}
	runtime.SetFinalizer((*byte)(p), func(b *byte) { giveBuffer(unsafe.Pointer(b), size, perSize) })
	return p
}

// carve returns size bytes from the current slab for that size, starting
// a new slab when it is used up.
func carve(size uintptr) unsafe.Pointer {
	size = (size + slabAlign - 1) &^ (slabAlign - 1)
	outputPool.Lock()
	c := outputPool.carving[size]
	if c == nil {
		c = &slabCursor{size: slabOutputs * size}
		outputPool.carving[size] = c
	}
	if c.base != nil && c.next+size <= c.size {
		p := unsafe.Add(c.base, c.next)
		c.next += size
		outputPool.Unlock()
		return p
	}
	c.base = nil
	outputPool.Unlock()
	slab := recycled(c.size, int(slabPoolPerSize/c.size))
	outputPool.Lock()
	defer outputPool.Unlock()
	// Another Call may have started a slab meanwhile; this one replaces
	// it (that slab's remaining space is lost until it is collected).
	c.base, c.next = slab, size
	return slab
}

// outputSlice returns n elements of T for a Call output: recycled when
// there is a pooled buffer of that size (its contents are stale, and the
// caller must overwrite every element), otherwise new. Either way it is
// tracked for recycling when large enough.
func outputSlice[T any](n int) []T {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	switch {
	case size < slabMinBytes:
		return make([]T, n)
	case size < recycleMinBytes:
		return unsafe.Slice((*T)(carve(size)), n)
	}
	return unsafe.Slice((*T)(recycled(size, outputPoolPerSize)), n)
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
