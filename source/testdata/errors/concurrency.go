package kernels

func F(xs []float64, n int) float64 {
	ch := make(chan float64, 1)
	done := make(chan bool)
	go func() {
		ch <- xs[0]
		done <- true
	}()
	defer close(ch)
	select {
	case v := <-ch:
		return v
	case <-done:
	}
	s := <-ch
	for v := range ch {
		s += v
	}
	return s
}
