package gojit

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
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
// The pool holds at most outputPoolBytes in all, and of one size
// outputPoolSizeBytes' worth of buffers at first (from
// outputPoolMinPerSize to outputPoolMaxPerSize of them); to make room for
// a size, it drops the buffers of the sizes Calls used least recently, and
// a buffer that still does not fit is left to the collector. Buffers of a
// size no Call took for idleRelease (2 s) are dropped too, so an idle
// program's memory goes back to the system after its next collection. The
// collector does not return dead outputs to the pool on its own schedule
// often enough: see "Collections started by Call" below.
//
// A Call takes the pooled buffer written last (the pool of a size is a
// heap by when each buffer was handed out or released): the finalizers
// give buffers back in no useful order, and the last written is the most
// likely to be still in cache.
//
// The pool of a size doubles (sizeStats.grow, up to maxGrow times and
// outputPoolBytes' worth) when a Call finds it empty while a collection
// Call started is refilling it: that collection outlasted the buffers left, and
// each Call meanwhile makes a new buffer, zeroed and faulted in, which
// costs more than the kernel. How many buffers outlast a collection
// depends on the host (how long a collection takes against how fast
// Calls use buffers), and growing measures it. On the 2-vCPU Zen 5 VM
// (November 2026, loaded by other processes), 4 MB outputs (n=1e6 of the
// 5-op chain) with the first 16 buffers were new 15-22% of the time, and
// Call took 1.86-2.14 times CallInto's time (CPU 2.06-2.24); grown to 64,
// new 3%, and 1.10-1.32 times (CPU 1.13-1.28), resident memory 270-320 MB
// instead of 150-245 (BenchmarkCallAllocating, old and new binaries
// alternated three times); grown to 32 only, 1.41-1.65 times. Slab pools
// grow by the same rule: at n=1e3, with the host loaded (load average 7),
// 19-31% of the slabs were new with 32 MiB of them and Call took 4.2-5.6
// times CallInto's CPU time, 4-8% and 3.2-3.6 times grown (128 MiB,
// resident memory 170-263 MB instead of 99-155); less loaded, they
// seldom grew. On the Intel VM the pool was seldom found empty (3.5% new
// buffers at n=1e6).
//
// Why the pool is not sized to keep outputs in the cache: on that Zen 5
// VM CallInto's 12 MB working set at n=1e6 stays in its 32 MiB L3
// (65-150 us a call), so every Call output not among the last few written
// comes from memory; keeping a size's pool inside the L3 takes a
// collection every 2-4 Calls of 4 MB, and a collection costs 250-900 us of
// CPU there, more than the cold memory. Measured: pools of 4 and 2
// buffers (16 and 8 MiB) gave 2.9-4.1 times CallInto's time, half the
// buffers new because the collections could not keep up, against 1.4-1.9
// for 16. On the Intel VM, whose L3 share is about 8 MiB, a pool inside
// the cache is smaller still. Neither host's cache sizes would give a
// better pool size than the growth above.
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
// Slabs are pooled by their size up to slabPoolPerSize bytes each at
// first (they grow like the larger buffers' pools). The
// pooled slabs count as live heap, so the collector's pacing lets the heap
// grow by as much again before the next cycle: the pool also spaces out
// collections, which is what makes a loop of small Calls cheap. The
// larger the pool, the rarer the collections, but the colder the memory a
// Call writes: a loop of 4 KB outputs cycles through the pool, beyond the
// L2 cache, where CallInto rewrites the same 4 KB in L1 (its kernel then
// runs 3 times as fast). 32 MiB was faster than 8 and 2 MiB, and 64 and
// 128 MiB little faster still (BenchmarkCallAllocating at n=1e3).
//
// That cold memory is what keeps a loop of small Calls above twice
// CallInto's time, not the bookkeeping: BenchmarkOutputWorkingSet runs
// CallInto over 4 KB outputs in turn, and an output last written 4 MiB
// before costs little more than rewriting the same one, but one last
// written 8 MiB or more before costs 0.3-0.5 us more (the stores drain
// after the kernel returns: in a profile, in exitsyscall's first atomic
// instruction). Reusing outputs within 4 MiB means a collection every
// thousand Calls of 4 KB, and a collection costs 0.5-4 ms of CPU on the
// small virtual machines measured (runtime.GC also yields once per span it
// sweeps). Tried and not kept, because the 32 MiB cycle was as slow with
// them: software prefetches (PREFETCHW or PREFETCHT1 of the output just
// before the kernel, or of the next one or two ahead), clearing the
// output with REP STOSB first (which writes whole lines without reading
// them), and, in a copy loop of the same shape, 2 MiB pages
// (MADV_HUGEPAGE): the cost is the memory, not the TLB. Go's make for
// these outputs instead of slabs took twice the Call thread's CPU time
// (zeroing, then more collections).
//
// On the Zen 5 VM (1 MiB L2 per core, 32 MiB L3; one run of
// BenchmarkOutputWorkingSet) the kernel's CPU time per 4 KB output was
// 129 ns rewriting one output, 158 cycling through 1 MiB, 200 through
// 4 MiB and 299 through 32 MiB, and a plain Call 611; Call plus Release,
// whose memory is as warm as CallInto's, took 1.5 times CallInto's time.
// So twice CallInto's time at n=1e3 would need the outputs reused within
// about 1 MiB, a collection every 250 Calls, each 250-1300 us of CPU
// there (mostly runtime.GC's sweep, one yield per span): out of reach of
// recycling after a collection, on either host.
//
// The caller can help: Array.Release gives a result back at once, and
// the next Call of that size takes it, still in cache, from a LIFO list
// (slab outputs) or the pool (larger buffers, their finalizer cleared).
// It is safe because it recycles only a buffer no slice was ever taken
// from (Array.handed: every accessor marks it), so nothing else can point
// into it; any other array is only emptied. It is offered beside the
// collector-driven pool, not instead of it, because only the caller knows
// when it is done, and a Call that forgets to release must still cost
// little. Measured (BenchmarkCallAllocating's release-pair against its
// pair, one run, loaded 2-vCPU host): Call plus Release took 1.3-1.5
// times CallInto's time at n=1e3 (Call alone 3.9), 1.08-1.24 at 1e6 with a
// heap of 16 MB instead of 77-106, and 1.03-1.05 at 1e7 with 153 MB
// instead of 306. An output arena (results valid until the next Call) was
// not taken: it gives the same speed as Release but makes every kept
// result a silent use-after-reuse.
//
// Resident memory in a steady loop of Calls that drop their outputs is
// bounded by the pools plus the buffers handed out between two
// collections, which those started by Call keep to about a pool's worth:
// at most 256 MiB of pool in all, which one size's grown pool may fill; with 80 MB of inputs and 40 MB outputs,
// a heap of 350-400 MB where the collector's pacing alone let it reach
// 500-700 MB.
const (
	recycleMinBytes      = 64 << 10
	outputPoolBytes      = 256 << 20
	outputPoolSizeBytes  = 64 << 20
	outputPoolMinPerSize = 8
	outputPoolMaxPerSize = 64

	slabOutputs     = 16
	slabMinBytes    = 1 << 10
	slabPoolPerSize = 32 << 20
	slabAlign       = 64 // bytes: carved outputs stay cache-line aligned
)

var outputPool = struct {
	sync.Mutex
	// free holds the pooled buffers by size in bytes, each list a heap
	// by when their contents were last written, the warmest first.
	free map[uintptr][]pooled
	// written is outputPool.clock when each buffer recycled hands out
	// (handed out or pooled) was last written, by its address: kept
	// here rather than in a closure per buffer, which would cost each
	// Call an allocation. The collector does not move heap objects.
	written map[uintptr]uint64
	bytes   uintptr
	// carving is the slab outputs of one (rounded) size are being carved
	// from, by that size.
	carving map[uintptr]*slabCursor
	// hits and misses count Calls served from the pool and not; tests
	// read them.
	hits, misses int64

	// sizes is what the pool knows of each buffer size it recycles.
	sizes map[uintptr]*sizeStats
	// returned counts the bytes of buffers found unreachable (pooled or
	// not), handed the bytes handed out, both since the process started.
	returned, handed uint64
	// The collections Call starts (see maybeCollect): collecting is set
	// while one runs; gcNanos is the measured cost of one; yield the
	// share of the bytes handed out that come back, measured between
	// two of them from returned and handed, whose values at the start
	// of the last one are returned0 and handed0; forced counts them.
	collecting         bool
	gcNanos            int64
	yield              float64
	returned0, handed0 uint64
	forced             int64
	// collections numbers the collections Call started.
	collections int64
	// idleArmed is set while a releaseIdle is scheduled.
	idleArmed bool
	// noForce turns forced collections off (for benchmarks).
	noForce bool
	// clock counts the buffers handed out (for sizeStats.lastUse).
	clock uint64
	// released holds the slab outputs given back by Array.Release, by
	// their (rounded) size, the last one given back last: each keeps its
	// slab reachable. releasedBytes is their total size.
	released      map[uintptr][]unsafe.Pointer
	releasedBytes uintptr
	// releasedTaken records the sizes whose released list a Call took
	// from since the last releaseIdle.
	releasedTaken map[uintptr]bool
}{free: map[uintptr][]pooled{}, written: map[uintptr]uint64{}, carving: map[uintptr]*slabCursor{}, sizes: map[uintptr]*sizeStats{},
	released: map[uintptr][]unsafe.Pointer{}, releasedTaken: map[uintptr]bool{},
	gcNanos: initialGCNanos, yield: 1}

// sizeStats is what the pool knows of the buffers of one size.
type sizeStats struct {
	// makeNanos is the time a new buffer of this size takes to allocate
	// (zeroing it, faulting its pages in): a moving average of the
	// measured times, first a guess at defaultMakeRate.
	makeNanos int64
	// handed counts the buffers handed out since the last forced
	// collection started, taken those since the last releaseIdle.
	handed, taken int
	// lastUse is outputPool.clock when a Call last took one.
	lastUse uint64
	// keep is how many buffers of this size the pool keeps: base at
	// first, doubled (up to maxGrow times base) each collection during
	// which a Call found the pool empty, base again when releaseIdle
	// drops its buffers; grownIn is the number of the
	// collection it last grew in (see "The pool of one size" below).
	keep, base int
	grownIn    int64
	// fin gives a buffer of this size back to the pool: made once, not a
	// closure per buffer, which would cost each Call an allocation.
	fin func(*byte)
}

// grow doubles the buffers of size the pool keeps, up to maxGrow times
// the first number and outputPoolBytes' worth: a Call found the pool of
// that size empty while a collection was refilling it. outputPool must be
// locked.
func (st *sizeStats) grow(size uintptr) {
	st.grownIn = outputPool.collections
	limit := min(maxGrow*st.base, int(outputPoolBytes/size))
	if st.keep < limit {
		st.keep = min(2*st.keep, limit)
	}
}

// slabCursor is the slab of one output size being carved: base is the
// slab (it keeps the slab reachable until it is used up), next the byte
// offset of the next output in it.
type slabCursor struct {
	base unsafe.Pointer
	next uintptr
	size uintptr // of the slab
	// used says a Call carved from it since the last releaseIdle, which
	// drops an unused cursor and with it the slab it pins.
	used bool
}

// takeBuffer returns a pooled buffer of exactly size bytes, or nil.
// outputPool must be locked.
func takeBuffer(size uintptr) unsafe.Pointer {
	list := outputPool.free[size]
	if len(list) == 0 {
		outputPool.misses++
		return nil
	}
	p := list[0].p
	outputPool.free[size] = popWarmest(list)
	outputPool.bytes -= size
	outputPool.hits++
	return p
}

// pooled is a buffer in the pool and outputPool.clock when its contents
// were last written (handed out, or given back by Release).
type pooled struct {
	p     unsafe.Pointer
	stamp uint64
}

// giveBuffer keeps p, an unreachable output buffer or slab of size bytes,
// for reuse, if the pool has room; when the pool of that size is full, it
// keeps the warmer of p and the coldest pooled one. It runs on the
// finalizer goroutine.
func giveBuffer(p unsafe.Pointer, size uintptr) {
	outputPool.Lock()
	defer outputPool.Unlock()
	stamp := outputPool.written[uintptr(p)]
	perSize := perSize(size)
	if st := outputPool.sizes[size]; st != nil {
		perSize = st.keep
	}
	outputPool.returned += uint64(size)
	list := outputPool.free[size]
	if len(list) >= perSize {
		// Full (this happens only after Calls made new buffers): the
		// coldest pooled one goes if p is warmer.
		if len(list) == 0 {
			delete(outputPool.written, uintptr(p))
			return
		}
		i := coldest(list)
		if list[i].stamp > stamp {
			delete(outputPool.written, uintptr(p))
			return // dropped: the collector frees it at its next cycle
		}
		delete(outputPool.written, uintptr(list[i].p))
		list[i] = pooled{p, stamp}
		warmUp(list, i)
		return
	}
	if !makeRoom(size) {
		delete(outputPool.written, uintptr(p))
		return
	}
	outputPool.free[size] = pushPooled(list, pooled{p, stamp})
	outputPool.bytes += size
	armIdleRelease()
}

// perSize is how many pooled buffers of size bytes (at least
// recycleMinBytes) the pool keeps: outputPoolSizeBytes' worth, at least
// outputPoolMinPerSize and at most outputPoolMaxPerSize.
func perSize(size uintptr) int {
	return int(min(max(outputPoolSizeBytes/size, outputPoolMinPerSize), outputPoolMaxPerSize))
}

// makeRoom makes room in the pool for a buffer of size bytes if it can,
// dropping the buffers of the sizes Calls used least recently before this
// one. outputPool must be locked.
func makeRoom(size uintptr) bool {
	p := &outputPool
	for p.bytes+size > outputPoolBytes {
		victim, last := uintptr(0), p.sizes[size].lastUse
		for s, list := range p.free {
			if st := p.sizes[s]; len(list) > 0 && s != size && st.lastUse < last {
				victim, last = s, st.lastUse
			}
		}
		if victim == 0 {
			return false
		}
		dropFree(victim)
	}
	return true
}

// dropFree drops the pooled buffers of size. outputPool must be locked.
func dropFree(size uintptr) {
	list := outputPool.free[size]
	for _, b := range list {
		delete(outputPool.written, uintptr(b.p))
	}
	clear(list)
	outputPool.bytes -= size * uintptr(len(list))
	delete(outputPool.free, size)
}

// recycled returns a buffer of size bytes, pooled or new, whose finalizer
// gives it back to the pool, which keeps perSize of that size at first.
func recycled(size uintptr, perSize int) unsafe.Pointer {
	outputPool.Lock()
	p := takeBuffer(size)
	st := outputPool.sizes[size]
	first := st == nil // its pool is empty because there never was one
	if first {
		st = &sizeStats{makeNanos: int64(size / defaultMakeRate), keep: perSize, base: perSize,
			fin: func(b *byte) { giveBuffer(unsafe.Pointer(b), size) }}
		outputPool.sizes[size] = st
	}
	if p == nil && !first && outputPool.collecting && st.grownIn != outputPool.collections {
		st.grow(size)
	}
	st.taken++
	st.handed++
	outputPool.clock++
	st.lastUse = outputPool.clock
	outputPool.handed += uint64(size)
	stamp := outputPool.clock
	if p != nil {
		outputPool.written[uintptr(p)] = stamp
		maybeCollect(size, st)
	}
	outputPool.Unlock()
	if p == nil {
		t := time.Now()
		p = unsafe.Pointer(unsafe.SliceData(make([]byte, size)))
		d := int64(time.Since(t))
		outputPool.Lock()
		st.makeNanos += (d - st.makeNanos) / 4
		outputPool.written[uintptr(p)] = stamp
		maybeCollect(size, st)
		outputPool.Unlock()
	}
	runtime.SetFinalizer((*byte)(p), st.fin)
	return p
}

// carve returns size bytes for a slab output: the one last given back by
// Release if any, else from the current slab for that size, starting a
// new slab when it is used up.
func carve(size uintptr) unsafe.Pointer {
	size = (size + slabAlign - 1) &^ (slabAlign - 1)
	outputPool.Lock()
	if list := outputPool.released[size]; len(list) > 0 {
		p := list[len(list)-1]
		list[len(list)-1] = nil
		outputPool.released[size] = list[:len(list)-1]
		outputPool.releasedBytes -= size
		if !outputPool.releasedTaken[size] {
			outputPool.releasedTaken[size] = true
		}
		outputPool.hits++
		outputPool.Unlock()
		return p
	}
	c := outputPool.carving[size]
	if c == nil {
		c = &slabCursor{size: slabOutputs * size}
		outputPool.carving[size] = c
		armIdleRelease()
	}
	c.used = true
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

// releasedMaxBytes bounds the slab outputs Release keeps (each also keeps
// its slab, slabOutputs times its size, reachable).
const releasedMaxBytes = 4 << 20

// releaseOutput takes back the buffer of bytes bytes at p, a Call output
// that Array.Release found never handed out: nothing else points into it.
// A buffer too small for a slab is left to the collector (make is cheap at
// that size); a slab output goes to the released list for its size, and a
// larger buffer, its finalizer cleared, to the pool Calls take from.
func releaseOutput(p unsafe.Pointer, bytes uintptr) {
	switch {
	case bytes < slabMinBytes:
		return
	case bytes < recycleMinBytes:
		size := (bytes + slabAlign - 1) &^ (slabAlign - 1)
		outputPool.Lock()
		defer outputPool.Unlock()
		if outputPool.releasedBytes+size > releasedMaxBytes {
			return
		}
		outputPool.released[size] = append(outputPool.released[size], p)
		outputPool.releasedBytes += size
		armIdleRelease()
		return
	}
	runtime.SetFinalizer((*byte)(p), nil)
	outputPool.Lock()
	outputPool.clock++
	outputPool.written[uintptr(p)] = outputPool.clock
	outputPool.Unlock()
	giveBuffer(p, bytes)
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
	return unsafe.Slice((*T)(recycled(size, perSize(size))), n)
}

// newOutput returns the array for a result of dtype dt and shape, whose
// every element the kernel will write (its contents may be stale), with
// its slice boxed in data: for lazy, whose code reads arrays through Data.
func newOutput(dt DType, shape []int) *Array {
	a := new(Array)
	setOutput(a, dt, shape)
	if a.data == nil {
		a.data = a.slice()
	}
	return a
}

// setOutput makes a the array for a Call result of dtype dt and shape (see
// newOutput).
func setOutput(a *Array, dt DType, shape []int) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	switch dt {
	case Bool:
		setOwned(a, dt, outputSlice[bool](n), shape)
	case Uint8:
		setOwned(a, dt, outputSlice[uint8](n), shape)
	case Int32:
		setOwned(a, dt, outputSlice[int32](n), shape)
	case Int64:
		setOwned(a, dt, outputSlice[int64](n), shape)
	case Float32:
		setOwned(a, dt, outputSlice[float32](n), shape)
	case Float64:
		setOwned(a, dt, outputSlice[float64](n), shape)
	default:
		*a = *New(dt, shape...)
	}
}

// callOutput is the one allocation holding a Call's result array, the
// slice of results returned (for a single result), and the array's shape
// (up to inlineRank dimensions): a header allocation each would cost as
// much as the rest of a small Call's bookkeeping.
type callOutput struct {
	a     Array
	outs  [1]*Array
	shape [inlineRank]int
}

const inlineRank = 4

// newOutputs returns the arrays for the results of a Call of e at dynamic
// size b (see newOutput).
func newOutputs(e *entry, b int) []*Array {
	if len(e.outs) == 1 {
		o := &e.outs[0]
		c := new(callOutput)
		shape := o.at(b)
		if shape != nil && len(shape) <= inlineRank {
			shape = c.shape[:copy(c.shape[:], shape):len(shape)]
		} else if o.dyn == nil {
			shape = slices.Clone(shape) // at returns the entry's own
		}
		setOutput(&c.a, o.dtype, shape)
		c.outs[0] = &c.a
		return c.outs[:]
	}
	outs := make([]*Array, len(e.outs))
	for i := range e.outs {
		o := &e.outs[i]
		shape := o.at(b)
		if o.dyn == nil {
			shape = slices.Clone(shape) // at returns the entry's own
		}
		outs[i] = new(Array)
		setOutput(outs[i], o.dtype, shape)
	}
	return outs
}

// setOwned makes a the array of data and shape, which are the array's own
// and known to be valid (a compiled result's shape and a buffer of its
// size): nothing is copied or checked. A non-empty array keeps its slice
// as ptr and bytes alone (see Array.data), which saves a Call an
// allocation.
func setOwned[T any](a *Array, dt DType, data []T, shape []int) {
	a.dtype, a.shape = dt, shape
	if len(data) == 0 {
		a.data = data
		return
	}
	a.ptr = unsafe.Pointer(unsafe.SliceData(data))
	a.bytes = uintptr(len(data)) * unsafe.Sizeof(data[0])
}

// Collections started by Call.
//
// Only a collection returns dead outputs to the pool, and the pooled
// buffers count as live heap, so left to its pacer the collector lets
// about as many bytes be allocated anew between two cycles as the pool and
// the program's other live data hold: in a loop of Calls whose outputs are
// dropped, half of the large outputs were new buffers, zeroed by make and
// their pages faulted in, which costs more than the kernel writing them.
//
// So when the pool of one size is down to a quarter and half a pool's
// worth of that size has been handed out since the last one, Call may
// start a collection in the background (runtime.GC on its own goroutine:
// Calls go on meanwhile with the buffers left, and the finalizers refill
// the pool when it ends). It does when the time that collection is
// expected to save, the buffers of that size handed out since the last one
// (at most a pool's worth) times the measured time of a new one times the
// share of buffers that came back last time (yield), is at least the
// measured cost of a collection (its CPU time less idle marking, at least
// minGCNanos). A program whose live heap is large has costly collections
// and gets few; one that keeps its outputs gets a low yield and few too
// (yield is at least minYield so that a change of behaviour is noticed);
// one with GOGC=off gets none.
//
// Starting earlier, when the pool holds just enough buffers to last the
// collection's measured wall time, made fewer new buffers (1.4-3.3% at
// n=1e6 instead of 3.5%) but a third more collections, and was slower
// (Call/CallInto 1.36-1.44 against 1.14-1.18, interleaved, loaded host).
const (
	defaultMakeRate = 4         // bytes per ns: a guess at make's speed until measured
	initialGCNanos  = 1_000_000 // a guess at a collection's cost until measured
	minGCNanos      = 200_000   // a collection costs at least this much (waking processors, two pauses)
	minYield        = 1.0 / 16  // the least yield assumed
	maxGrow         = 4         // a size's pool grows to at most this many times its first size
)

// idleRelease is how long pooled buffers no Call takes stay pooled (from
// once to twice that); tests shorten it.
var idleRelease = 2 * time.Second

// maybeCollect starts a background collection if the pool of size is low
// and a collection is expected to save more than it costs (see above).
// outputPool must be locked.
func maybeCollect(size uintptr, st *sizeStats) {
	p := &outputPool
	perSize := st.keep
	if p.collecting || p.noForce || len(p.free[size]) > perSize/4 || st.handed < perSize/2 {
		return
	}
	gain := float64(min(st.handed, perSize)) * float64(st.makeNanos) * p.yield
	if gain < float64(p.gcNanos) {
		return
	}
	if h := p.handed - p.handed0; h > 0 {
		y := float64(p.returned-p.returned0) / float64(h)
		p.yield = min(max((p.yield+y)/2, minYield), 1)
	}
	p.returned0, p.handed0 = p.returned, p.handed
	for _, s := range p.sizes {
		s.handed = 0
	}
	p.collecting = true
	p.collections++
	go collect()
}

// gcSamples are the runtime metrics collect reads.
var gcSamples = []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/cpu/classes/gc/total:cpu-seconds"},
	{Name: "/cpu/classes/gc/mark/idle:cpu-seconds"}}

// collect runs a collection for maybeCollect and measures its cost.
func collect() {
	s := make([]metrics.Sample, len(gcSamples))
	copy(s, gcSamples)
	metrics.Read(s)
	off := s[0].Value.Kind() == metrics.KindUint64 && int64(s[0].Value.Uint64()) < 0
	var cost int64
	if !off {
		cpu0 := gcCPU(s)
		runtime.GC()
		metrics.Read(s)
		cost = max(int64((gcCPU(s)-cpu0)*1e9), minGCNanos)
	}
	outputPool.Lock()
	defer outputPool.Unlock()
	if off {
		cost = 2 * outputPool.gcNanos // GOGC=off: back off, without collecting
	} else {
		outputPool.forced++
	}
	// A moving average, each sample at most 4 times the average so far:
	// one collection the host delayed must not stop them for long.
	outputPool.gcNanos += (min(cost, 4*outputPool.gcNanos) - outputPool.gcNanos) / 4
	outputPool.collecting = false
}

// gcCPU is the collector's CPU time from gcSamples, less the idle
// marking: that runs on processors with nothing else to do, for as long
// as the mark phase lasts, so it measures the wait more than the work.
func gcCPU(s []metrics.Sample) float64 {
	f := func(s metrics.Sample) float64 {
		if s.Value.Kind() == metrics.KindFloat64 {
			return s.Value.Float64()
		}
		return 0
	}
	return f(s[1]) - f(s[2])
}

// armIdleRelease schedules releaseIdle if it is not. outputPool must be
// locked.
func armIdleRelease() {
	if !outputPool.idleArmed {
		outputPool.idleArmed = true
		time.AfterFunc(idleRelease, releaseIdle)
	}
}

// releaseIdle drops the pooled buffers of the sizes no Call took since its
// last run (from idleRelease to twice that ago): the collector frees them
// at its next cycle, and the runtime returns the memory to the system.
func releaseIdle() {
	p := &outputPool
	p.Lock()
	defer p.Unlock()
	for size := range p.free {
		st := p.sizes[size]
		if st != nil && st.taken > 0 {
			st.taken = 0
			continue
		}
		dropFree(size)
		if st != nil {
			// The Calls it grew for are gone: grown, the pool would hold
			// (and space collections by) that much again at the size's
			// next use, with no miss to show it needs to.
			st.keep = st.base
		}
	}
	for size, list := range p.released {
		if p.releasedTaken[size] {
			delete(p.releasedTaken, size)
			continue
		}
		clear(list)
		p.releasedBytes -= size * uintptr(len(list))
		delete(p.released, size)
	}
	// A cursor no Call carved from pins its partly used slab, up to
	// slabOutputs times its output size: a program that used many sizes
	// once would keep a slab of each.
	for size, c := range p.carving {
		if c.used {
			c.used = false
			continue
		}
		delete(p.carving, size)
	}
	if len(p.free) > 0 || len(p.released) > 0 || len(p.carving) > 0 {
		time.AfterFunc(idleRelease, releaseIdle)
	} else {
		p.idleArmed = false
	}
}
