package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/llvm"
)

// Pool runs the chunks of one parallel loop on several goroutines. Waking a
// parked goroutine costs 50-100 µs on the small virtual machines gojit is
// measured on (more than a whole kernel at n=1e5), so workers spin for a
// while after each job, where a new job reaches them in well under a
// microsecond, and park only when no work has come for SpinTime.
//
// One loop runs at a time: a caller that finds the pool busy runs its loop
// alone rather than wait.
type Pool struct {
	workers int
	busy    sync.Mutex

	seq  atomic.Uint64 // incremented for every loop
	cur  job
	mu   sync.Mutex // guards parked and the wake-ups
	cond *sync.Cond
	// parked counts workers blocked in cond.Wait.
	parked int
	start  sync.Once
}

// SpinTime is how long an idle worker spins before parking.
const SpinTime = 200 * time.Microsecond

// job is the loop the pool is running. The pool owns one job and reuses
// it for every loop, so running a loop allocates nothing. Its state word
// packs an epoch (incremented per loop), the chunk count and the next
// unclaimed chunk: a worker claims a chunk with one compare-and-swap that
// fails if the loop it saw has ended and another begun, and reads the
// loop's description only after a successful claim. The owner rewrites the
// description only after every claimed chunk has finished (pending is 0),
// so no claim can see a half-written loop.
type job struct {
	state   atomic.Uint64 // epoch<<32 | chunks<<16 | next
	pending atomic.Int64  // chunks not finished
	fn      func(chunk int)
	rng     RangeCall
}

// RangeCall describes a loop that calls a kernel's range entry point:
// chunk c of n runs group Group over [Extent*c/n, Extent*(c+1)/n).
type RangeCall struct {
	Addr   uintptr        // the range entry point
	Args   unsafe.Pointer // its argument array (pinned), when not Direct
	Group  int64
	Extent int64
	Size   int64 // the dynamic dimension's size, passed through
	// Direct passes the buffers in Ptrs as integer arguments
	// (llvm.CallRangeDirect), so nothing needs pinning; the pool's job
	// holds them, which keeps them reachable until the loop is done.
	Direct bool
	Ptrs   [llvm.MaxDirect]unsafe.Pointer
}

// testHookPublished, set by tests, runs between publishing a loop and the
// caller's first chunk.
var testHookPublished func()

// maxChunks bounds the chunks of one loop (16 bits of the state word).
const maxChunks = 1<<16 - 1

// NewPool returns a pool that runs loops on the calling goroutine plus
// workers extra goroutines (started on first use).
func NewPool(workers int) *Pool {
	p := &Pool{workers: max(workers, 0)}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// Threads is the number of goroutines a loop can run on.
func (p *Pool) Threads() int { return p.workers + 1 }

// Run calls fn(0) ... fn(chunks-1), spread over the pool's goroutines,
// and returns when all have returned. fn must be safe to call
// concurrently for different chunks.
func (p *Pool) Run(chunks int, fn func(chunk int)) {
	if chunks <= 1 || p.workers == 0 || !p.busy.TryLock() {
		for c := range chunks {
			fn(c)
		}
		return
	}
	p.run(chunks, fn, nil)
}

// RunRange runs r split into chunks pieces, spread over the pool's
// goroutines, and returns when all have finished. It allocates nothing.
func (p *Pool) RunRange(chunks int, r *RangeCall) {
	if chunks <= 1 || p.workers == 0 || !p.busy.TryLock() {
		r.chunk(0, 1)
		return
	}
	p.run(chunks, nil, r)
}

func (r *RangeCall) chunk(c, n int64) {
	if r.Direct {
		llvm.CallRangeDirect(r.Addr, &r.Ptrs, r.Group, r.Extent*c/n, r.Extent*(c+1)/n, r.Size)
		return
	}
	llvm.CallRange(r.Addr, r.Args, r.Group, r.Extent*c/n, r.Extent*(c+1)/n, r.Size)
}

// run publishes a loop (p.busy held) and works on it until it is done.
func (p *Pool) run(chunks int, fn func(int), r *RangeCall) {
	defer p.busy.Unlock()
	p.start.Do(func() {
		for range p.workers {
			go p.worker()
		}
	})
	chunks = min(chunks, maxChunks)
	j := &p.cur
	j.fn = fn
	if r != nil {
		j.rng = *r
	}
	j.pending.Store(int64(chunks))
	// Chunk 0 is the caller's before the loop is published, so that each
	// core runs the same part of a loop from one call to the next and
	// finds its data in its cache; the workers claim from chunk 1.
	epoch := j.state.Load()>>32 + 1
	j.state.Store(epoch<<32 | uint64(chunks)<<16 | 1)
	p.seq.Add(1)
	p.mu.Lock()
	if p.parked > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
	if testHookPublished != nil {
		testHookPublished()
	}
	t0 := time.Now()
	j.run(0, int64(chunks))
	j.work(chunks <= p.workers+1, time.Since(t0))
	for spins := 0; j.pending.Load() > 0; spins++ {
		if spins > 64 {
			goruntime.Gosched()
		}
	}
	j.fn, j.rng = nil, RangeCall{}
}

// run runs chunk c of n and counts it done.
func (j *job) run(c, n int64) {
	if j.fn != nil {
		j.fn(int(c))
	} else {
		j.rng.chunk(c, n)
	}
	j.pending.Add(-1)
}

// work claims and runs chunks of the current loop until none are left.
//
// patient is for the caller of a loop of at most one chunk per thread,
// who took own to run chunk 0: it leaves the other chunks to the workers
// for as long as its own took, and takes one only if none was claimed
// meanwhile (a worker the host has descheduled). Were it to take the next
// chunk whenever a worker was a few hundred nanoseconds late, the part of
// the loop each core runs, and with it the data in each core's cache,
// would change from call to call.
func (j *job) work(patient bool, own time.Duration) {
	for {
		s := j.state.Load()
		chunks, next := int64(s>>16&0xffff), int64(s&0xffff)
		if next >= chunks {
			return
		}
		if patient {
			if j.waitClaim(s, own) {
				continue // a worker claimed one: look again
			}
			// A worker is late (descheduled): take the rest as they
			// come rather than wait again for each.
			patient = false
		}
		if !j.state.CompareAndSwap(s, s+1) {
			continue
		}
		j.run(next, chunks)
	}
}

// waitClaim spins until the state word moves on from s (a chunk was
// claimed) or for d, and reports whether it moved.
func (j *job) waitClaim(s uint64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for spins := 0; ; spins++ {
		if j.state.Load() != s {
			return true
		}
		if spins&63 == 63 && time.Now().After(deadline) {
			return false
		}
	}
}

func (p *Pool) worker() {
	seen := p.seq.Load()
	for {
		deadline := time.Now().Add(SpinTime)
		for spins := 0; p.seq.Load() == seen; spins++ {
			if spins&63 == 63 {
				if time.Now().After(deadline) {
					p.park(seen)
					deadline = time.Now().Add(SpinTime)
				} else {
					goruntime.Gosched()
				}
			}
		}
		seen = p.seq.Load()
		p.cur.work(false, 0)
	}
}

// park blocks until a job newer than seen is published.
func (p *Pool) park(seen uint64) {
	p.mu.Lock()
	p.parked++
	for p.seq.Load() == seen {
		p.cond.Wait()
	}
	p.parked--
	p.mu.Unlock()
}
