package lazy

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojit/gojit"
)

// Host copies outside the Go heap (see hostCopy).
//
// A loop that makes its inputs from host slices copies them every
// iteration, and a copy's buffer can be reused only once the collector
// has found its Array unreachable. On the Go heap, pooled buffers count as
// live heap, so the pacer lets the program allocate as much again before
// the next collection: about two fifths of the copies then go to fresh
// memory (zeroed, and often faulted in again after the scavenger returned
// it), and those allocations are what makes the collector run. Buffers
// mapped outside the heap are seen by neither the pacer nor the
// scavenger; they are reused, and mapped a chunk (or, over hostMax, a
// buffer) at a time, at most one more per collection; only a free buffer
// over hostMax is ever unmapped, to make room for another size (bigRoom)
// or when no copy took its size for hostIdle (releaseIdleHost).
//
// Such a buffer is recycled by the cleanup of its Array. That is safe
// because nothing else points into it: lazy hands an input's Array to the
// user only through Tensor.Array, which gives the user a heap copy
// instead, and kernels (or the interpreter) read the buffer only while
// they run, with its Array referenced; a pending graph holds the Arrays
// of its inputs. At most hostMapBytes (and hostBigBytes) are mapped;
// beyond, and where nothing can be mapped (mapHost), a copy goes to the
// output pool.

// hostMin and hostMax bound the host copies carved from chunks mapped
// outside the heap. Outside the heap a size class never serves another:
// larger copies (up to hostBigMax) are mapped one buffer at a time, from
// a budget of their own (hostBigBytes), so that a few 4 MB copies (the
// 10-op chain's input) do not take up the room the 40 KB ones need.
// Larger still, or when that budget is used up, they go to the output
// pool, which pools them one by one.
//
// Large copies are kept outside the heap for what the output pool costs
// them: with the 10-op chain's 4 MB input copied every iteration (AMD
// EPYC Zen 5, 2 vCPUs), one iteration in twenty or so took a new buffer
// from the heap, zeroed and faulted in page by page (91 page faults per
// iteration on average against 54 with the input shared, page faults 15%
// of the process's CPU time), and the pooled copies, counted as live
// heap, brought collections sooner. A buffer mapped here is faulted in
// once and then reused; the cost is that it stays mapped, hostBigBytes
// at most.
const (
	hostMin = 32 << 10
	hostMax = 1 << 20

	hostBigBytes = 64 << 20
	hostBigMax   = hostBigBytes / 4
)

const (
	hostChunk    = 4 << 20 // bytes mapped at a time
	hostMapBytes = 32 << 20
	hostPage     = 4096
)

var hostMem = struct {
	sync.Mutex
	chunks   [][2]uintptr   // mapped ranges [start, end): chunks and large buffers
	carved   int            // how many of them are chunks
	cur      unsafe.Pointer // the chunk being carved
	left     uintptr
	free     map[uintptr][]unsafe.Pointer // by size, last in first out
	epoch    uint64                       // gcEpoch when the last chunk was mapped
	big      uintptr                      // bytes mapped for copies over hostMax
	bigEpoch uint64                       // gcEpoch when the last of those was mapped
	// bigTaken records the sizes over hostMax taken since the last
	// releaseIdleHost, which idleArmed says is scheduled.
	bigTaken  map[uintptr]bool
	idleArmed bool
	hits, n   int64 // for tests
}{free: map[uintptr][]unsafe.Pointer{}, bigTaken: map[uintptr]bool{}}

// takeHostMem returns a buffer of size bytes (a multiple of hostPage)
// outside the heap, or nil.
func takeHostMem(size uintptr) unsafe.Pointer {
	hostMem.Lock()
	defer hostMem.Unlock()
	hostMem.n++
	if size > hostMax {
		hostMem.bigTaken[size] = true
	}
	if list := hostMem.free[size]; len(list) > 0 {
		p := list[len(list)-1]
		list[len(list)-1] = nil
		hostMem.free[size] = list[:len(list)-1]
		hostMem.hits++
		return p
	}
	if size > hostMax {
		// As for chunks, one more buffer at most per collection: a loop
		// needs as many as it copies between two collections.
		if hostMem.big > 0 && gcEpoch.Load() == hostMem.bigEpoch || !bigRoom(size) {
			return nil
		}
		p := mapHost(size)
		if p == nil {
			return nil
		}
		hostMem.bigEpoch = gcEpoch.Load()
		hostMem.big += size
		hostMem.chunks = append(hostMem.chunks, [2]uintptr{uintptr(p), uintptr(p) + size})
		return p
	}
	if hostMem.left < size {
		// One more chunk at most per collection: buffers come back only
		// after one, and a program that collects rarely would otherwise
		// fault in all hostMapBytes at once before reusing any.
		if size > hostChunk || uintptr(hostMem.carved+1)*hostChunk > hostMapBytes ||
			hostMem.carved > 0 && gcEpoch.Load() == hostMem.epoch {
			return nil
		}
		hostMem.epoch = gcEpoch.Load()
		p := mapHost(hostChunk)
		if p == nil {
			return nil
		}
		hostMem.chunks = append(hostMem.chunks, [2]uintptr{uintptr(p), uintptr(p) + hostChunk})
		hostMem.carved++
		hostMem.cur, hostMem.left = p, hostChunk
	}
	p := hostMem.cur
	hostMem.cur = unsafe.Add(p, size)
	hostMem.left -= size
	return p
}

// bigRoom makes room for a buffer of size bytes (over hostMax) in the
// budget of hostBigBytes, if it can, by unmapping free buffers of other
// sizes: a program whose large copies change size would otherwise keep
// the budget taken by sizes it no longer copies. hostMem must be locked.
func bigRoom(size uintptr) bool {
	for s, list := range hostMem.free {
		if hostMem.big+size <= hostBigBytes {
			break
		}
		if s > hostMax && s != size {
			dropBig(s, list)
		}
	}
	return hostMem.big+size <= hostBigBytes
}

// dropBig unmaps list, the free buffers of size bytes (over hostMax).
// hostMem must be locked.
func dropBig(size uintptr, list []unsafe.Pointer) {
	for _, p := range list {
		unmapHost(p, size)
		hostMem.big -= size
		hostMem.chunks = slices.DeleteFunc(hostMem.chunks, func(c [2]uintptr) bool { return c[0] == uintptr(p) })
	}
	delete(hostMem.free, size)
}

// hostIdle is how long free buffers over hostMax of a size no copy takes
// stay mapped (from once to twice that), as the output pool's idle
// release: a program done with its large copies gives the memory back to
// the system. Tests shorten it.
var hostIdle = 2 * time.Second

// releaseIdleHost unmaps the free buffers over hostMax of the sizes no
// copy took since its last run.
func releaseIdleHost() {
	hostMem.Lock()
	defer hostMem.Unlock()
	left := false
	for size, list := range hostMem.free {
		switch {
		case size <= hostMax:
		case hostMem.bigTaken[size]:
			left = true
		default:
			dropBig(size, list)
		}
	}
	clear(hostMem.bigTaken)
	if hostMem.idleArmed = left; left {
		time.AfterFunc(hostIdle, releaseIdleHost)
	}
}

// isHostMem reports whether a's data is in memory mapped for host copies.
func isHostMem(a *gojit.Array) bool {
	var p unsafe.Pointer
	switch d := a.Data().(type) { // the dtypes host copies have
	case []float32:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []float64:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []int32:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []int64:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []uint8:
		p = unsafe.Pointer(unsafe.SliceData(d))
	case []bool:
		p = unsafe.Pointer(unsafe.SliceData(d))
	default:
		return false
	}
	hostMem.Lock()
	defer hostMem.Unlock()
	for _, c := range hostMem.chunks {
		if uintptr(p) >= c[0] && uintptr(p) < c[1] {
			return true
		}
	}
	return false
}

// hostMemCopy copies data to a buffer outside the heap and wraps it with
// shape (valid for data), or returns nil when there is no room. The
// hostBuf gives the buffer back: the Array's cleanup, or Tensor.Free when
// it proves the Array unreachable (freeHost), whichever comes first.
func hostMemCopy[T any](wrap func([]T, ...int) *gojit.Array, data []T, shape []int) (*gojit.Array, *hostBuf) {
	var zero T
	bytes := uintptr(len(data)) * unsafe.Sizeof(zero)
	size := (bytes + hostPage - 1) &^ (hostPage - 1)
	p := takeHostMem(size)
	if p == nil {
		return nil, nil
	}
	buf := unsafe.Slice((*T)(p), len(data))
	bigCopy(buf, data)
	a := wrap(buf, shape...)
	k := &hostBuf{p: p, size: size}
	if bytes >= residentMin { // counted as resident too (track), by the same cleanup
		k.resident = int64(bytes)
		resident.n.Add(1)
		resident.bytes.Add(k.resident)
	}
	runtime.AddCleanup(a, (*hostBuf).give, k)
	return a, k
}

// hostBuf is a buffer outside the heap that an Array wraps. It must not
// point to the Array: it is its cleanup's argument.
type hostBuf struct {
	p        unsafe.Pointer
	size     uintptr
	resident int64 // bytes counted as resident, or 0
	given    atomic.Bool
	// shared and escaped (the Context's lock) say that Free cannot know
	// every holder of the Array: another Tensor shares it (unchanged.go)
	// or it was brought into a later pending graph (Context.use).
	shared, escaped bool
}

// give returns the buffer to the free list, once: from the Array's
// cleanup, or from Free (freeHost) before it.
func (k *hostBuf) give() {
	if !k.given.CompareAndSwap(false, true) {
		return
	}
	if k.resident > 0 {
		resident.n.Add(-1)
		resident.bytes.Add(-k.resident)
	}
	hostMem.Lock()
	hostMem.free[k.size] = append(hostMem.free[k.size], k.p)
	if k.size > hostMax && !hostMem.idleArmed {
		hostMem.idleArmed = true
		time.AfterFunc(hostIdle, releaseIdleHost)
	}
	hostMem.Unlock()
}

// heapCopy returns a copy of a on the Go heap (a host copy, so of one of
// the dtypes FromFloat32 and its siblings make).
func heapCopy(a *gojit.Array) *gojit.Array {
	var c *gojit.Array
	switch d := a.Data().(type) {
	case []float32:
		c = gojit.FromFloat32(slices.Clone(d), a.Shape()...)
	case []float64:
		c = gojit.FromFloat64(slices.Clone(d), a.Shape()...)
	case []int32:
		c = gojit.FromInt32(slices.Clone(d), a.Shape()...)
	case []int64:
		c = gojit.FromInt64(slices.Clone(d), a.Shape()...)
	case []uint8:
		c = gojit.FromUint8(slices.Clone(d), a.Shape()...)
	case []bool:
		c = gojit.FromBool(slices.Clone(d), a.Shape()...)
	default:
		return a // not reachable: see from
	}
	track(c)
	return c
}
