package runtime

import (
	"errors"
	goruntime "runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// runAcquired runs e, which the caller holds, on 0, 1, 2, ... and compares
// with the interpreter, like checkRun.
func runAcquired(t testing.TB, e *Executable) {
	err := checkRunWith(t, e, func(ins, outs []unsafe.Pointer) error { return e.RunAcquired(ins, outs, RunOptions{}) })
	if err != nil {
		t.Errorf("RunAcquired: %v", err)
	}
}

// TestAcquiredKernelOutlivesEviction: an executable held by a caller is
// evicted but not freed; it still runs, and the last Release frees it.
func TestAcquiredKernelOutlivesEviction(t *testing.T) {
	if err := withConfig(t, Config{MaxEntries: 1}); err != nil {
		t.Fatal(err)
	}
	before := ReadStats()
	e, err := BuildAcquired(scaledGraph(t, 41, 64), Options{OptLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Acquire() { // a second hold, as a second running call
		t.Fatal("Acquire failed on a cached executable")
	}
	build(t, scaledGraph(t, 42, 64)) // evicts e
	if !e.Evicted() || e.freed.Load() {
		t.Fatalf("evicted %v, freed %v; want evicted and not freed", e.Evicted(), e.freed.Load())
	}
	if e.Acquire() {
		t.Fatal("Acquire succeeded on an evicted executable")
	}
	if err := checkRun(t, e); !errors.Is(err, ErrEvicted) {
		t.Fatalf("Run on an evicted executable: %v, want ErrEvicted", err)
	}
	runAcquired(t, e) // the holders still run it
	e.Release()
	if e.freed.Load() {
		t.Fatal("freed while a call still holds it")
	}
	runAcquired(t, e)
	e.Release()
	if !e.freed.Load() {
		t.Fatal("not freed after the last Release")
	}
	Purge()
	if s := ReadStats(); s.Kernels != before.Kernels {
		t.Errorf("%d kernels loaded after purging, want %d", s.Kernels, before.Kernels)
	}
}

// TestConcurrentBuildAcquiredSurvivesEvictionRace: goroutines build and run
// more graphs than the cache holds, beside a goroutine purging it. Every
// run of an acquired executable must succeed, and once every hold is
// released and the cache purged, every kernel must have been freed: the
// holds taken for callers waiting on another's build balance exactly.
func TestConcurrentBuildAcquiredSurvivesEvictionRace(t *testing.T) {
	for _, purge := range []bool{false, true} {
		name := "MaxEntries=1"
		if purge {
			name = "Purge"
		}
		t.Run(name, func(t *testing.T) {
			if err := withConfig(t, Config{MaxEntries: 1}); err != nil {
				t.Fatal(err)
			}
			before := ReadStats()
			const graphs, goroutines, iterations = 4, 8, 40
			gs := make([]*ir.Graph, graphs)
			for k := range gs {
				gs[k] = scaledGraph(t, 50+k, 256)
			}
			stop := make(chan struct{})
			var purger sync.WaitGroup
			if purge {
				purger.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
							Purge()
						}
					}
				})
			}
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range iterations {
						// Pairs of goroutines ask for the same graph, so
						// some wait for another's build.
						e, err := BuildAcquired(gs[(g/2+i)%graphs], Options{OptLevel: 1})
						if err != nil {
							t.Error(err)
							return
						}
						runAcquired(t, e)
						e.Release()
					}
				})
			}
			wg.Wait()
			close(stop)
			purger.Wait()
			s := ReadStats()
			if s.Evictions == before.Evictions {
				t.Error("nothing was evicted")
			}
			Purge()
			if s := ReadStats(); s.Kernels != before.Kernels {
				t.Errorf("%d kernels loaded after releasing all and purging, want %d: holds do not balance", s.Kernels, before.Kernels)
			}
		})
	}
}

// TestConcurrentWaitersAreHeld: callers that wait for another caller's build of the
// same graph each receive the executable already held, so that it cannot
// be evicted and freed between the build and their run.
func TestConcurrentWaitersAreHeld(t *testing.T) {
	if err := withConfig(t, Config{MaxEntries: 1}); err != nil {
		t.Fatal(err)
	}
	opt := Options{OptLevel: 1}
	cg, err := passes.Optimize(scaledGraph(t, 43, 64), opt.Passes)
	if err != nil {
		t.Fatal(err)
	}
	plan := passes.Fuse(cg)
	sig := Signature(cg, opt)
	const waiters = 3
	build := func(*diskcache.Store) (*Executable, error) {
		// Finish only once the others wait for this build.
		for {
			kernels.mu.Lock()
			n := kernels.m[sig].waiters
			kernels.mu.Unlock()
			if n == waiters {
				return compile(cg, plan, sig, opt, nil)
			}
			goruntime.Gosched()
		}
	}
	exes := make([]*Executable, waiters+1)
	var wg sync.WaitGroup
	for i := range exes {
		wg.Go(func() {
			e, err := kernels.get(sig, build)
			if err != nil {
				t.Error(err)
			}
			exes[i] = e
		})
	}
	wg.Wait()
	e := exes[0]
	for _, x := range exes {
		if x != e {
			t.Fatal("callers of one signature got different executables")
		}
	}
	if n := e.inflight.Load(); n != waiters+1 {
		t.Fatalf("%d holds after %d gets, want %d", n, waiters+1, waiters+1)
	}
	Purge()
	for range exes {
		if e.freed.Load() {
			t.Fatal("freed while held")
		}
		runAcquired(t, e)
		e.Release()
	}
	if !e.freed.Load() {
		t.Fatal("not freed after the last Release")
	}
}
