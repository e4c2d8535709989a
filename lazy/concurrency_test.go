package lazy

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gojit/gojit"
)

var concurrentRuns atomic.Int64

// One Context per goroutine runs in parallel; goroutines sharing the
// default Context take turns. Run with -race.
func TestContextsAcrossGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	work := func(from func([]float32, ...int) *Tensor, id int) {
		defer wg.Done()
		for it := range 15 {
			a := []float32{float32(id), float32(it), 1, 2}
			x := from(a)
			y := x.Mul(x).Add(Scalar(1))
			if it%3 == 0 {
				y = y.Sqrt()
			}
			s, err := y.Sum().Item()
			if err != nil {
				errs <- err
				return
			}
			want := 0.0
			for _, v := range a {
				w := float64(v*v + 1)
				if it%3 == 0 {
					w = float64(float32Sqrt(float32(w)))
				}
				want += w
			}
			if d := s - want; d > 1e-4 || d < -1e-4 {
				errs <- fmt.Errorf("goroutine %d iteration %d: %v, want %v", id, it, s, want)
				return
			}
		}
	}
	for id := range 4 {
		c, err := NewContext(WithBatchSize(3 + id))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go work(c.FromFloat32, id)
	}
	for id := 4; id < 7; id++ {
		wg.Add(1)
		go work(FromFloat32, id)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Contexts that need the same new batch at the same time compile it once:
// the others wait for it, and the cache is not locked meanwhile.
func TestConcurrentMissCompilesOnce(t *testing.T) {
	const workers = 4
	shift := float32(concurrentRuns.Add(1)) // a new pattern at every run (-count)
	before := Stats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	got := make([]float64, workers)
	errs := make([]error, workers)
	for i := range workers {
		c, err := NewContext()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := c.FromFloat32([]float32{1, 2, 3, 4})
			y := x.Mul(Scalar(0.375)).Add(Scalar(float64(7.125 + shift))).Sqrt().Sum() // a pattern no other test uses
			<-start
			got[i], errs[i] = y.Item()
		}()
	}
	close(start)
	wg.Wait()
	want := 0.0
	for _, v := range []float32{1, 2, 3, 4} {
		want += float64(float32Sqrt(v*0.375 + 7.125 + shift))
	}
	for i := range workers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if d := got[i] - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("worker %d: %v, want %v", i, got[i], want)
		}
	}
	if m := Stats().CacheMisses - before.CacheMisses; m != 1 {
		t.Fatalf("%d misses for one batch needed by %d Contexts at once, want 1", m, workers)
	}
}

// TestSharedFastTensorAcrossGoroutines shares a pending tensor of a fast
// path, whose core tensor is made by the first method that needs one
// (Tensor.core), and a weak scalar, made without locking, between
// goroutines of one Context; under -race it checks that neither is
// written unlocked.
func TestSharedFastTensorAcrossGoroutines(t *testing.T) {
	c := newCtx(t)
	x := c.FromFloat32([]float32{1, 2, 3, 4}, 4)
	y := x.Add(x) // pending, recorded by the fast path
	s := Scalar(0.5)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if dt, sh := y.DType(), y.Shape(); dt != gojit.Float32 || len(sh) != 1 || sh[0] != 4 {
				errs <- fmt.Errorf("goroutine %d: %s%v, want float32[4]", g, dt, sh)
				return
			}
			v, err := y.Mul(s).Add(Scalar(float64(g))).Sum().Item()
			if want := 10 + 4*float64(g); err != nil || v != want {
				errs <- fmt.Errorf("goroutine %d: %v, %v; want %v", g, v, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
