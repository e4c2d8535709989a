package lazy

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// counters are process-wide: every Context counts into them.
type counters struct {
	ops, inputs, shared, freed       atomic.Int64
	compiledOps, interpretedOps      atomic.Int64
	read, free, sync, batch          atomic.Int64
	hits, misses, dynamic, fallbacks atomic.Int64
	compileNanos                     atomic.Int64

	mu                     sync.Mutex
	flushes                int64
	minOps, maxOps, sumOps int64
	lastMiss               string
}

var stats counters

func (s *counters) flush(reason string, ops int, interpreted bool) {
	switch reason {
	case ReasonRead:
		s.read.Add(1)
	case ReasonFree:
		s.free.Add(1)
	case ReasonSync:
		s.sync.Add(1)
	case ReasonBatch:
		s.batch.Add(1)
	}
	if interpreted {
		s.interpretedOps.Add(int64(ops))
	} else {
		s.compiledOps.Add(int64(ops))
	}
	s.mu.Lock()
	if s.flushes == 0 || int64(ops) < s.minOps {
		s.minOps = int64(ops)
	}
	s.maxOps = max(s.maxOps, int64(ops))
	s.sumOps += int64(ops)
	s.flushes++
	s.mu.Unlock()
}

func (s *counters) setLastMiss(why string) {
	s.mu.Lock()
	s.lastMiss = why
	s.mu.Unlock()
}

// Statistics are lazy's counters since the process started (or the last
// ResetStats), over every Context.
type Statistics struct {
	// OpsRecorded counts tensors recorded by ops (each public op call
	// that succeeded), each when its Context next flushes (a pending
	// graph's ops are counted by its flush); Inputs counts tensors made
	// from host data.
	OpsRecorded, Inputs int64
	// InputsShared counts the Inputs that share the copy of the same
	// host slice made earlier, because its bytes had not changed
	// (unchanged.go; slices of 32 KiB to 1 MiB).
	InputsShared int64
	// InputsFreed counts the Inputs whose copy's buffer Free gave back
	// at once, nothing else being able to read it (free.go).
	InputsFreed int64
	// OpsCompiled and OpsInterpreted count the graph nodes (inputs
	// excluded) of flushed batches run by compiled code and by the
	// interpreter (GOJIT_DISABLE_JIT, WithInterpreter, builds without
	// LLVM, or a compile failure).
	OpsCompiled, OpsInterpreted int64
	// Flushes by reason: a read (Array, Float32 ..., Item), Free, Sync,
	// and the pending graph reaching the batch size.
	FlushRead, FlushFree, FlushSync, FlushBatch int64
	// CacheHits counts batches whose kernel was already built (a size
	// served by a dynamic kernel included); CacheMisses those that were
	// compiled (or, after a compile failure, interpreted).
	CacheHits, CacheMisses int64
	// DynamicKernels counts kernels built to serve every size of a
	// varying leading dimension; Fallbacks counts batches whose compile
	// failed and that the interpreter ran.
	DynamicKernels, Fallbacks int64
	// MinOpsPerFlush, MaxOpsPerFlush and AvgOpsPerFlush describe the
	// batches' sizes in graph nodes.
	MinOpsPerFlush, MaxOpsPerFlush int64
	AvgOpsPerFlush                 float64
	// CompileTime is the total time spent building kernels on misses.
	CompileTime time.Duration
	// LastMiss says what differed between the last missed batch and the
	// nearest graph compiled before it ("first batch" for the first).
	LastMiss string
	// ResidentValues and ResidentBytes count the large buffers (64 KiB
	// and more: batch outputs and host-input copies) not yet garbage
	// collected; runtime.AddCleanup counts them down. (Counting costs a
	// cleanup per buffer, about 0.5 µs: as much as copying 20 KB.)
	ResidentValues, ResidentBytes int64
}

// Flushes is the total number of flushes.
func (s Statistics) Flushes() int64 { return s.FlushRead + s.FlushFree + s.FlushSync + s.FlushBatch }

// HitRate is CacheHits over all lookups (0 when there were none).
func (s Statistics) HitRate() float64 {
	if n := s.CacheHits + s.CacheMisses; n > 0 {
		return float64(s.CacheHits) / float64(n)
	}
	return 0
}

// String formats the statistics on a few lines.
func (s Statistics) String() string {
	return fmt.Sprintf("ops recorded %d (inputs %d, %d sharing an unchanged copy, %d freed at once), compiled %d, interpreted %d\n"+
		"flushes %d: read %d, free %d, sync %d, batch size %d; ops per flush min %d avg %.1f max %d\n"+
		"cache hits %d, misses %d (hit rate %.1f%%), dynamic kernels %d, fallbacks %d, compile time %v\n"+
		"resident values %d (%d bytes)\nlast miss: %s",
		s.OpsRecorded, s.Inputs, s.InputsShared, s.InputsFreed, s.OpsCompiled, s.OpsInterpreted,
		s.Flushes(), s.FlushRead, s.FlushFree, s.FlushSync, s.FlushBatch, s.MinOpsPerFlush, s.AvgOpsPerFlush, s.MaxOpsPerFlush,
		s.CacheHits, s.CacheMisses, 100*s.HitRate(), s.DynamicKernels, s.Fallbacks, s.CompileTime.Round(time.Microsecond),
		s.ResidentValues, s.ResidentBytes, s.LastMiss)
}

// Stats returns lazy's counters.
func Stats() Statistics {
	s := Statistics{
		OpsRecorded: stats.ops.Load(), Inputs: stats.inputs.Load(), InputsShared: stats.shared.Load(),
		InputsFreed: stats.freed.Load(),
		OpsCompiled: stats.compiledOps.Load(), OpsInterpreted: stats.interpretedOps.Load(),
		FlushRead: stats.read.Load(), FlushFree: stats.free.Load(), FlushSync: stats.sync.Load(), FlushBatch: stats.batch.Load(),
		CacheHits: stats.hits.Load(), CacheMisses: stats.misses.Load(),
		DynamicKernels: stats.dynamic.Load(), Fallbacks: stats.fallbacks.Load(),
		CompileTime:    time.Duration(stats.compileNanos.Load()),
		ResidentValues: resident.n.Load(), ResidentBytes: resident.bytes.Load(),
	}
	stats.mu.Lock()
	s.MinOpsPerFlush, s.MaxOpsPerFlush, s.LastMiss = stats.minOps, stats.maxOps, stats.lastMiss
	if stats.flushes > 0 {
		s.AvgOpsPerFlush = float64(stats.sumOps) / float64(stats.flushes)
	}
	stats.mu.Unlock()
	return s
}

// ResetStats sets the counters (not the resident values, nor the kernel
// cache) back to zero.
func ResetStats() {
	for _, a := range []*atomic.Int64{&stats.ops, &stats.inputs, &stats.shared, &stats.freed, &stats.compiledOps, &stats.interpretedOps,
		&stats.read, &stats.free, &stats.sync, &stats.batch, &stats.hits, &stats.misses, &stats.dynamic,
		&stats.fallbacks, &stats.compileNanos} {
		a.Store(0)
	}
	stats.mu.Lock()
	stats.flushes, stats.minOps, stats.maxOps, stats.sumOps, stats.lastMiss = 0, 0, 0, 0, ""
	stats.mu.Unlock()
}

func slogDefault() *slog.Logger { return slog.Default() }
