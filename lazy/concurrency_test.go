package lazy

import (
	"fmt"
	"sync"
	"testing"
)

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
