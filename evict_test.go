package gojit_test

// Eviction under concurrency: goroutines call Funcs while the compile
// cache evicts their kernels (a one-kernel cache, PurgeCache, changing
// limits). Every call must return the right result: eviction is internal
// and never reaches the caller, and no call may run freed code. The names
// match the Makefile's -race run (-run 'Concurrent|Race').

import (
	"fmt"
	"log/slog"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gojit/gojit"
)

// evictFuncs returns three Funcs with distinct graphs, x*(k+2) + j for
// j = 0, 1, 2 and a static k, so that two static values give six kernels.
func evictFuncs(t *testing.T, opts ...gojit.Option) []*gojit.Func {
	t.Helper()
	var fs []*gojit.Func
	for j := range 3 {
		f, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor {
			return x.Mul(gojit.Scalar(float64(k + 2))).Add(gojit.Scalar(float64(j)))
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// evictCalls has goroutines per Func, each calling it calls times with k
// alternating 0, 1 (Call and CallInto in turn) on arrays of n elements, and
// checks every result with a Go loop. If l is not nil, each goroutine waits
// for l's next run after each call. It returns how many calls failed, after
// reporting the first failures.
func evictCalls(t *testing.T, fs []*gojit.Func, goroutines, calls, n int, l *loop) int {
	t.Helper()
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%1000 - 500)
	}
	var failed, reported atomic.Int64
	fail := func(format string, args ...any) {
		failed.Add(1)
		if reported.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		j := g % len(fs)
		f := fs[j]
		wg.Go(func() {
			out := gojit.New(gojit.Float32, n)
			for i := range calls {
				k := (i + g/len(fs)) % 2
				var got []float32
				if i%4 < 2 {
					res, err := f.Call(gojit.FromFloat32(x, n), k)
					if err != nil {
						fail("goroutine %d, call %d (k=%d): %v", g, i, k, err)
						continue
					}
					got = res[0].Float32()
				} else {
					if err := f.CallInto([]*gojit.Array{out}, gojit.FromFloat32(x, n), k); err != nil {
						fail("goroutine %d, call %d (k=%d): CallInto: %v", g, i, k, err)
						continue
					}
					got = out.Float32()
				}
				for e, v := range x {
					if want := v*float32(k+2) + float32(j); got[e] != want {
						fail("goroutine %d, call %d (k=%d): out[%d] = %v, want %v", g, i, k, e, got[e], want)
						break
					}
				}
				if l != nil {
					l.next()
				}
			}
		})
	}
	wg.Wait()
	if d := failed.Load(); d > 0 {
		t.Logf("%d of %d calls failed", d, goroutines*calls)
	}
	return int(failed.Load())
}

// checkEvicted fails t unless the Funcs rebuilt evicted kernels (else the
// test tested nothing), and unless purging frees every kernel once no call
// runs: a call that kept its hold on a kernel would keep it loaded.
func checkEvicted(t *testing.T, fs []*gojit.Func) {
	t.Helper()
	var rebuilds int64
	for _, f := range fs {
		rebuilds += f.Stats().Rebuilds
	}
	if rebuilds == 0 {
		t.Error("no kernel was rebuilt after an eviction")
	}
	gojit.PurgeCache()
	if n := gojit.CacheStats().Kernels; n != 0 {
		t.Errorf("%d kernels loaded after purging an idle cache, want 0", n)
	}
	t.Logf("%d rebuilds", rebuilds)
}

// loop runs fn on its own goroutine, over and over, beside the callers.
type loop struct {
	done chan struct{}
	wg   sync.WaitGroup
	runs atomic.Int64
}

func beside(fn func(i int)) *loop {
	l := &loop{done: make(chan struct{})}
	l.wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-l.done:
				return
			default:
			}
			fn(i)
			l.runs.Add(1)
			goruntime.Gosched()
		}
	})
	return l
}

// next waits until fn has run once more. Callers call it between calls:
// a cached call takes a microsecond, and the scheduler may otherwise let
// hundreds of them through while fn waits for a CPU.
func (l *loop) next() {
	for n := l.runs.Load(); l.runs.Load() == n; {
		goruntime.Gosched()
	}
}

// stop ends the loop and returns how many times fn ran.
func (l *loop) stop() int64 {
	close(l.done)
	l.wg.Wait()
	return l.runs.Load()
}

func skipWithoutLLVM(t *testing.T) {
	t.Helper()
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: nothing is compiled or evicted")
	}
}

// TestConcurrentCallsSurviveEvictionRace is issue 9's report: with room
// for one kernel, more goroutines than kernels call three Funcs with a
// static argument alternating 0 and 1, so nearly every call finds its
// kernel evicted, rebuilds it and races other rebuilds that evict it again.
func TestConcurrentCallsSurviveEvictionRace(t *testing.T) {
	skipWithoutLLVM(t)
	withCache(t, gojit.CacheConfig{MaxEntries: 1, DisableDisk: true})
	fs := evictFuncs(t, gojit.WithOptLevel(1))
	evictCalls(t, fs, 6, 100, 64, nil)
	checkEvicted(t, fs)
}

// TestConcurrentCallsSurviveEvictionFromDiskRace is the same with the disk
// cache on, so that rebuilds load objects from disk (fast, so there are
// more of them and more races) rather than compile.
func TestConcurrentCallsSurviveEvictionFromDiskRace(t *testing.T) {
	skipWithoutLLVM(t)
	withCache(t, gojit.CacheConfig{MaxEntries: 1, Dir: filepath.Join(t.TempDir(), "cache")})
	fs := evictFuncs(t, gojit.WithOptLevel(1))
	before := gojit.CacheStats()
	evictCalls(t, fs, 6, 300, 64, nil)
	if after := gojit.CacheStats(); after.DiskHits == before.DiskHits {
		t.Error("no kernel was loaded from disk")
	}
	checkEvicted(t, fs)
}

// TestConcurrentCallsBesidePurgeRace calls PurgeCache in a loop while
// goroutines call.
func TestConcurrentCallsBesidePurgeRace(t *testing.T) {
	skipWithoutLLVM(t)
	withCache(t, gojit.CacheConfig{Dir: filepath.Join(t.TempDir(), "cache")})
	fs := evictFuncs(t, gojit.WithOptLevel(1))
	l := beside(func(int) { gojit.PurgeCache() })
	evictCalls(t, fs, 6, 300, 64, l)
	t.Logf("%d purges", l.stop())
	checkEvicted(t, fs)
}

// TestConcurrentCallsBesideConfigureCacheRace changes the cache's limits
// while goroutines call: lower limits evict at once.
func TestConcurrentCallsBesideConfigureCacheRace(t *testing.T) {
	skipWithoutLLVM(t)
	dir := filepath.Join(t.TempDir(), "cache")
	quiet := slog.New(slog.DiscardHandler)
	withCache(t, gojit.CacheConfig{Dir: dir})
	configs := []gojit.CacheConfig{
		{MaxEntries: 1, Dir: dir, Logger: quiet},
		{MaxEntries: 3, Dir: dir, Logger: quiet},
		{MaxBytes: 1, Dir: dir, Logger: quiet}, // every kernel is too large: the newest stays
		{Dir: dir, Logger: quiet},
		{MaxEntries: 2, DisableDisk: true, Logger: quiet},
	}
	l := beside(func(i int) {
		if err := gojit.ConfigureCache(configs[i%len(configs)]); err != nil {
			t.Error(err)
		}
	})
	fs := evictFuncs(t, gojit.WithOptLevel(1))
	evictCalls(t, fs, 6, 300, 64, l)
	t.Logf("%d reconfigurations", l.stop())
	checkEvicted(t, fs)
}

// TestConcurrentThreadedKernelsSurviveEvictionRace evicts kernels whose
// loops are split across the worker pool (large static and dynamic
// shapes) while goroutines run them.
func TestConcurrentThreadedKernelsSurviveEvictionRace(t *testing.T) {
	skipWithoutLLVM(t)
	withCache(t, gojit.CacheConfig{MaxEntries: 1, Dir: filepath.Join(t.TempDir(), "cache")})
	const n = 1 << 18 // several times the split threshold for a streaming loop
	for _, dynamic := range []bool{false, true} {
		t.Run(fmt.Sprintf("dynamic=%v", dynamic), func(t *testing.T) {
			var opts []gojit.Option
			if dynamic {
				opts = append(opts, gojit.WithDynamicDim(0, 0))
			}
			fs := evictFuncs(t, append(opts, gojit.WithOptLevel(1))...)
			l := beside(func(int) { gojit.PurgeCache() })
			evictCalls(t, fs, 4, 20, n, l)
			l.stop()
			checkEvicted(t, fs)
		})
	}
}
