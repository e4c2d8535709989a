package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// Config configures a Loader. The zero value of every field but
// BatchSize has a sensible meaning.
type Config struct {
	// BatchSize is the number of samples per batch (at least 1).
	BatchSize int
	// Workers is the number of goroutines that read and decode samples;
	// 0 means runtime.GOMAXPROCS(0). Each batch is split among them by
	// sample, so they all work on the earliest unfinished batches.
	Workers int
	// Order is the order of the samples in an epoch.
	Order Order
	// Seed keys every random choice: the shuffles and the ops' draws.
	Seed int64
	// DropLast drops each rank's last batch when it is smaller than
	// BatchSize.
	DropLast bool
	// Indices, if not nil, is the subset of the file's samples an epoch
	// visits (in this order for Sequential); an index may appear more than
	// once, and each appearance counts as a sample.
	Indices []int
	// Rank and WorldSize shard every epoch for distributed training: rank
	// r of WorldSize gets a disjoint part of equal size (see the package
	// documentation for the padding). WorldSize 0 means 1.
	Rank, WorldSize int
	// BatchesAhead is how many batches the workers may prepare beyond the
	// one the caller holds; the Loader allocates BatchesAhead+2 batch
	// slots, once.
	BatchesAhead int
	// OpenPages is, for QuasiRandom, how many data pages (in the epoch's
	// random page order) a shuffling window spans; 0 means 8.
	OpenPages int
	// Fields maps each field to load to its ops. A field's list that does
	// not start with a Decoder gets the field's DefaultDecoder first; an
	// empty list loads the decoded value. A nil map loads every field of
	// the file with its default decoder.
	Fields map[string][]Op
	// Open are options for dataset.Open (dataset.WithPread with a bounded
	// cache, for instance, for a file larger than memory).
	Open []dataset.OpenOption
	// NoCompile runs every op that has a plain Go Run with it, one sample
	// at a time, instead of compiling it: the reference the compiled
	// stages are tested against, and the baseline they are measured
	// against. Ops with only a Kernel are compiled still. A build without
	// LLVM (without cgo), where gojit would interpret the compiled stages,
	// behaves as if NoCompile were set.
	NoCompile bool
}

// ErrClosed is reported by Epoch on a closed Loader.
var ErrClosed = errors.New("pipeline: loader is closed")

// SampleError is the error of an op on one sample.
type SampleError struct {
	Path  string // the dataset file
	Index int    // the sample's index in the file
	Field string
	Op    string // the op's name
	Step  int    // the op's position in the field's pipeline (0: decoder)
	Err   error
}

// Error names the file, the sample, the field and the op, then the cause.
func (e *SampleError) Error() string {
	if e.Op == opRead {
		// The dataset's error names the file, the sample and the field.
		return "pipeline: " + e.Err.Error()
	}
	return fmt.Sprintf("pipeline: %s: sample %d, field %q, op %d (%s): %v", e.Path, e.Index, e.Field, e.Step, e.Op, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *SampleError) Unwrap() error { return e.Err }

// opRead is SampleError.Op for a failure to read the stored bytes.
const opRead = "read"

// Loader reads batches of samples from a dataset file through each
// field's ops, into batch memory it allocates once.
type Loader struct {
	path   string
	r      *dataset.Reader
	cfg    Config
	plans  []plan
	byName map[string]int
	bufs   []buffer
	slots  []*slot
	shard  *shard

	per, nBatches, lastLen int // samples per rank and epoch; batches; size of the last

	stages []stage // in run order
	passes int     // the passes of a batch (see step.phase)

	readTime, goTime atomic.Int64   // nanoseconds reading; in plain Go stages (reads included)
	timing           []atomic.Int64 // nanoseconds in each compiled stage

	workers []*worker
	free    chan int // slots the workers may fill, in order (see dispatch)

	mu      sync.Mutex
	running bool
	closed  bool
	cancel  context.CancelFunc
}

// NewLoader opens the dataset file at path and prepares a loader: it
// declares every field's ops, allocates BatchesAhead+2 batch slots and
// computes the sharding. Nothing runs until Epoch.
func NewLoader(path string, cfg Config) (*Loader, error) {
	if cfg.WorldSize == 0 {
		cfg.WorldSize = 1
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.OpenPages == 0 {
		cfg.OpenPages = 8
	}
	switch {
	case cfg.BatchSize < 1:
		return nil, fmt.Errorf("pipeline: %s: BatchSize %d, want at least 1", path, cfg.BatchSize)
	case cfg.Workers < 0:
		return nil, fmt.Errorf("pipeline: %s: Workers %d is negative", path, cfg.Workers)
	case cfg.WorldSize < 1 || cfg.Rank < 0 || cfg.Rank >= cfg.WorldSize:
		return nil, fmt.Errorf("pipeline: %s: Rank %d of WorldSize %d: want 0 <= Rank < WorldSize", path, cfg.Rank, cfg.WorldSize)
	case cfg.BatchesAhead < 0:
		return nil, fmt.Errorf("pipeline: %s: BatchesAhead %d is negative", path, cfg.BatchesAhead)
	case cfg.OpenPages < 1:
		return nil, fmt.Errorf("pipeline: %s: OpenPages %d, want at least 1", path, cfg.OpenPages)
	case cfg.Order != Sequential && cfg.Order != Random && cfg.Order != QuasiRandom:
		return nil, fmt.Errorf("pipeline: %s: unknown %v", path, cfg.Order)
	}
	r, err := dataset.Open(path, cfg.Open...)
	if err != nil {
		return nil, err
	}
	l, err := newLoader(path, r, cfg)
	if err != nil {
		r.Close()
		return nil, err
	}
	return l, nil
}

func newLoader(path string, r *dataset.Reader, cfg Config) (*Loader, error) {
	n := r.Len()
	base := cfg.Indices
	if base == nil {
		base = make([]int, n)
		for i := range base {
			base[i] = i
		}
	} else {
		base = slices.Clone(base)
		for j, x := range base {
			if x < 0 || x >= n {
				return nil, fmt.Errorf("pipeline: %s: Indices[%d] = %d is out of range: the file has %d samples", path, j, x, n)
			}
		}
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("pipeline: %s: no samples to load (the file has %d, Indices %d)", path, n, len(cfg.Indices))
	}
	schema := r.Schema()
	// Without LLVM gojit interprets kernels: the plain Go ops are faster.
	noCompile := cfg.NoCompile || gojit.LLVMVersion() == ""
	plans, bufs, err := buildPlans(path, schema, cfg.Fields, cfg.Seed, noCompile, func(f int) ([]int, error) {
		// The file's descriptors record every field's maxima (checked by
		// Open against every sample), so nothing is read to size buffers.
		return r.Maxima(f).Shape, nil
	})
	if err != nil {
		return nil, err
	}
	l := &Loader{path: path, r: r, cfg: cfg, plans: plans, bufs: bufs, byName: map[string]int{}}
	if err := l.buildStages(); err != nil {
		return nil, err
	}
	l.timing = make([]atomic.Int64, len(l.stages))
	for i, p := range plans {
		l.byName[p.name] = i
	}
	pageOf := func(i int) int {
		first, np := r.SamplePages(i)
		if np == 0 {
			return 0
		}
		return first
	}
	l.shard = newShard(cfg.Order, cfg.Seed, cfg.Rank, cfg.WorldSize, cfg.OpenPages, base, pageOf)
	l.per = l.shard.perRank()
	l.nBatches, l.lastLen = l.per/cfg.BatchSize, cfg.BatchSize
	if rem := l.per % cfg.BatchSize; rem != 0 && !cfg.DropLast {
		l.nBatches++
		l.lastLen = rem
	}
	nslots := cfg.BatchesAhead + 2
	l.free = make(chan int, nslots)
	for i := range nslots {
		l.slots = append(l.slots, l.newSlot())
		_ = i
	}
	for range cfg.Workers {
		l.workers = append(l.workers, l.newWorker())
	}
	return l, nil
}

// Timings is where a Loader's time went, summed over its workers and
// batches since it was made (see Loader.Timings).
type Timings struct {
	// Read is the time spent reading stored bytes.
	Read time.Duration
	// Go is the time in plain Go stages, reading excluded: decoding and
	// the ops that are not compiled.
	Go time.Duration
	// Compiled is the time in each stage (indexed as Loader.Stages; zero
	// for the plain Go stages).
	Compiled []time.Duration
}

// Timings returns where the loader's time went so far.
func (l *Loader) Timings() Timings {
	r := time.Duration(l.readTime.Load())
	t := Timings{Read: r, Go: time.Duration(l.goTime.Load()) - r}
	for i := range l.timing {
		t.Compiled = append(t.Compiled, time.Duration(l.timing[i].Load()))
	}
	return t
}

// Len returns the number of batches per epoch on this rank.
func (l *Loader) Len() int { return l.nBatches }

// Samples returns the number of samples per epoch on this rank, padding
// included: ceil(len(Indices) / WorldSize).
func (l *Loader) Samples() int { return l.per }

// Padding returns how many entries of the epoch's padded global order
// (over all ranks) repeat a sample: WorldSize*Samples() - len(Indices).
func (l *Loader) Padding() int { return l.shard.padding() }

// Fields returns the loaded fields' names, in the order their pipelines
// run.
func (l *Loader) Fields() []string {
	names := make([]string, len(l.plans))
	for i, p := range l.plans {
		names[i] = p.name
	}
	return names
}

// State returns the state of a loaded field's value, or false.
func (l *Loader) State(field string) (State, bool) {
	i, ok := l.byName[field]
	if !ok {
		return State{}, false
	}
	return l.plans[i].final().out, true
}

// SlotBytes returns the bytes of batch memory one slot holds; the Loader
// has BatchesAhead+2 of them.
func (l *Loader) SlotBytes() int {
	n := 0
	for _, b := range l.bufs {
		n += b.per * l.cfg.BatchSize
	}
	return n
}

// Close releases the file and the batch memory. During an epoch (from
// another goroutine, or from inside the loop) it cancels the epoch, and the
// release happens when that epoch's loop returns, after its goroutines
// have stopped. Batches must not be used after Close.
func (l *Loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.running {
		l.cancel()
		return nil
	}
	return l.release()
}

// release drops the slots and closes the file; l.mu is held.
func (l *Loader) release() error {
	l.slots, l.workers = nil, nil
	return l.r.Close()
}

// Epoch returns the batches of an epoch, in order, for range:
//
//	for batch, err := range loader.Epoch(ctx, epoch) {
//		if err != nil { ... }
//		use(batch.Field("image"))
//	}
//
// A batch and its arrays are valid until the next iteration: the loader
// then reuses their slot. The first error (an op failing on a sample, a
// damaged page, the context's end) is yielded with a nil batch and ends
// the epoch. Stopping early (break) or cancelling ctx stops the workers
// before the loop returns. One epoch runs at a time per Loader.
func (l *Loader) Epoch(ctx context.Context, epoch int) iter.Seq2[*Batch, error] {
	return l.Epochs(ctx, epoch, 1)
}

// Epochs is Epoch for count consecutive epochs from first, without a
// pause between them: the workers start on the next epoch's first batches
// while the caller still consumes the current epoch's last ones. Each
// batch's content is what Epoch would give for its epoch (Batch.Epoch
// tells which).
func (l *Loader) Epochs(ctx context.Context, first, count int) iter.Seq2[*Batch, error] {
	return func(yield func(*Batch, error) bool) {
		if count < 1 {
			return
		}
		l.mu.Lock()
		switch {
		case l.closed:
			l.mu.Unlock()
			yield(nil, fmt.Errorf("pipeline: %s: epoch %d: %w", l.path, first, ErrClosed))
			return
		case l.running:
			l.mu.Unlock()
			yield(nil, fmt.Errorf("pipeline: %s: epoch %d: another epoch of this loader is running", l.path, first))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		l.running, l.cancel = true, cancel
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.running, l.cancel = false, nil
			if l.closed {
				l.release()
			}
			l.mu.Unlock()
		}()
		l.run(ctx, cancel, first, count, yield)
	}
}

// job is one chunk of a batch's samples.
type job struct{ slot, lo, hi int }

// dispatch hands out the chunks of the batches, in order, to the workers.
// There is no dispatcher goroutine: the worker that asks for the first
// chunk of a batch waits for a free slot and fills in the batch, so a slot
// the caller frees is taken up by one wake-up, not two. Only dispatch
// reads the shard's order (copying each batch's indices into its slot), so
// it may compute the next epoch's while the caller still holds batches of
// this one.
type dispatch struct {
	l            *Loader
	mu           sync.Mutex
	epoch, last  int // the current epoch and the last one to run
	k            int // the next batch of the epoch to start
	mine         []int
	offset       int
	slot         int // the current batch's slot
	chunk, count int // its next chunk and its number of chunks
}

// next returns the next chunk to fill, or false when there is none or ctx
// is done.
func (d *dispatch) next(ctx context.Context) (job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.l
	if l.nBatches == 0 {
		return job{}, false
	}
	if d.chunk == d.count {
		if d.k == l.nBatches {
			if d.epoch == d.last {
				return job{}, false
			}
			d.epoch++
			d.mine, d.offset = l.shard.epoch(d.epoch)
			d.k = 0
		}
		select {
		case <-ctx.Done():
			return job{}, false
		case d.slot = <-l.free:
		}
		s := l.slots[d.slot]
		B := l.cfg.BatchSize
		lo := d.k * B
		m := min(B, l.per-lo)
		b := &s.batch
		b.epoch, b.number, b.n = d.epoch, d.k, m
		b.first = d.offset + lo
		b.padFrom = max(0, min(m, len(l.shard.base)-b.first))
		copy(b.indices, d.mine[lo:lo+m])
		s.err = nil
		// A few chunks per worker, so a worker the OS delays holds back
		// little of the batch.
		d.chunk, d.count = 0, min(chunksPerWorker*len(l.workers), m)
		s.pending.Store(int32(d.count))
		d.k++
	}
	m := l.slots[d.slot].batch.n
	c := d.chunk
	d.chunk++
	return job{d.slot, c * m / d.count, (c + 1) * m / d.count}, true
}

func (l *Loader) run(ctx context.Context, cancel context.CancelFunc, first, count int, yield func(*Batch, error) bool) {
	S := len(l.slots)
	for len(l.free) > 0 {
		<-l.free
	}
	for i := range S {
		l.free <- i
		select {
		case <-l.slots[i].done:
		default:
		}
	}
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	d := &dispatch{l: l, epoch: first - 1, last: first + count - 1, k: l.nBatches}
	for _, w := range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := d.next(ctx)
				if !ok {
					return
				}
				s := l.slots[j.slot]
				if ctx.Err() == nil {
					if at, err := w.fill(ctx, s, 0, j.lo, j.hi); err != nil {
						s.setErr(at, err)
					}
				}
				if s.pending.Add(-1) == 0 {
					// The last worker of a batch runs its compiled stages
					// (and any later pass).
					if ctx.Err() == nil && s.firstErr() == nil {
						if err := w.finish(ctx, s); err != nil {
							s.setErr(0, err)
						}
					}
					s.done <- struct{}{}
				}
			}
		}()
	}
	for k := range count * l.nBatches {
		s := l.slots[k%S]
		select {
		case <-ctx.Done():
			yield(nil, fmt.Errorf("pipeline: %s: epoch %d stopped before batch %d: %w", l.path, first+k/l.nBatches, k%l.nBatches, context.Cause(ctx)))
			return
		case <-s.done:
		}
		if err := s.firstErr(); err != nil {
			yield(nil, err)
			return
		}
		if ctx.Err() != nil {
			yield(nil, fmt.Errorf("pipeline: %s: epoch %d stopped at batch %d: %w", l.path, first+k/l.nBatches, k%l.nBatches, context.Cause(ctx)))
			return
		}
		if !yield(&s.batch, nil) {
			return
		}
		l.free <- k % S
	}
}
