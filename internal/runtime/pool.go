package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"
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

	seq  atomic.Uint64 // incremented for every job
	job  atomic.Pointer[job]
	mu   sync.Mutex // guards parked and the wake-ups
	cond *sync.Cond
	// parked counts workers blocked in cond.Wait.
	parked int
	start  sync.Once
}

// SpinTime is how long an idle worker spins before parking.
const SpinTime = 200 * time.Microsecond

type job struct {
	fn      func(chunk int)
	chunks  int64
	next    atomic.Int64 // next unclaimed chunk
	pending atomic.Int64 // chunks not finished
}

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
	defer p.busy.Unlock()
	p.start.Do(func() {
		for range p.workers {
			go p.worker()
		}
	})
	j := &job{fn: fn, chunks: int64(chunks)}
	j.pending.Store(int64(chunks))
	p.job.Store(j)
	p.seq.Add(1)
	p.mu.Lock()
	if p.parked > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
	j.work()
	for spins := 0; j.pending.Load() > 0; spins++ {
		if spins > 64 {
			goruntime.Gosched()
		}
	}
	p.job.Store(nil)
}

// work claims and runs chunks until none are left.
func (j *job) work() {
	for {
		c := j.next.Add(1) - 1
		if c >= j.chunks {
			return
		}
		j.fn(int(c))
		j.pending.Add(-1)
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
		if j := p.job.Load(); j != nil {
			j.work()
		}
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
