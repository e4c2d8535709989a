package lazy_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/lazy"
)

// The GT2 pattern: add, mul, matmul, relu and mean over 100×100 inputs,
// written step by step. Nothing runs until Item; the five ops run as one
// compiled batch, and the next iteration finds it in the cache.
func Example() {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float32, 100*100), make([]float32, 100*100)
	for iter := range 2 {
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		x := lazy.FromFloat32(a, 100, 100)
		y := lazy.FromFloat32(b, 100, 100)
		c := x.Add(y)
		d := c.Mul(x)
		e := d.MatMul(y)
		f := e.Relu()
		result, err := f.Mean().Item()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("iteration %d: %.4f (plain Go: %.4f)\n", iter, result, reference(a, b, 100))
	}
	// Output:
	// iteration 0: 7.7410 (plain Go: 7.7410)
	// iteration 1: 9.2875 (plain Go: 9.2875)
}

// reference is the GT2 pattern as plain Go loops.
func reference(a, b []float32, n int) float64 {
	sum := 0.0
	for i := range n {
		for j := range n {
			s := 0.0
			for k := range n {
				s += float64((a[i*n+k]+b[i*n+k])*a[i*n+k]) * float64(b[k*n+j])
			}
			sum += math.Max(s, 0)
		}
	}
	return sum / float64(n*n)
}

// A training loop written step by step: logistic regression with
// hand-written gradients, 200 steps. Its ops flush when the pending graph
// reaches the batch size and when the loss and the weights are read at the
// end, and it reaches the same weights as the same step compiled with
// gojit.Compile.
func Example_logisticRegression() {
	const n, d, steps, lr = 256, 3, 200, 0.5
	X, y := syntheticData(n, d)

	// Lazily. Batches of 32 nodes (about four steps) keep the kernels
	// small; the default batch size suits longer-running loops.
	c, err := lazy.NewContext(lazy.WithBatchSize(32))
	if err != nil {
		fmt.Println(err)
		return
	}
	xs, ys := c.FromFloat32(X, n, d), c.FromFloat32(y, n, 1)
	w := c.Full(gojit.Float32, 0, d, 1)
	var p *lazy.Tensor
	for range steps {
		p = xs.MatMul(w).Sigmoid()
		grad := xs.Transpose().MatMul(p.Sub(ys)).Mul(lazy.Scalar(1.0 / n))
		w = w.Sub(grad.Mul(lazy.Scalar(lr)))
	}
	one := lazy.Scalar(1)
	loss, err := ys.Mul(p.Log()).Add(one.Sub(ys).Mul(one.Sub(p).Log())).Mean().Neg().Item()
	if err != nil {
		fmt.Println(err)
		return
	}
	lazyW, err := w.Float32()
	if err != nil {
		fmt.Println(err)
		return
	}

	// The same step through gojit.Compile.
	step, err := gojit.Compile(func(x, y, w *gojit.Tensor) *gojit.Tensor {
		p := x.MatMul(w).Sigmoid()
		grad := x.Transpose().MatMul(p.Sub(y)).Mul(gojit.Scalar(1.0 / n))
		return w.Sub(grad.Mul(gojit.Scalar(lr)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	wa := gojit.New(gojit.Float32, d, 1)
	xa, ya := gojit.FromFloat32(X, n, d), gojit.FromFloat32(y, n, 1)
	for range steps {
		out, err := step.Call(xa, ya, wa)
		if err != nil {
			fmt.Println(err)
			return
		}
		wa = out[0]
	}
	same := true
	for i, v := range wa.Float32() {
		same = same && math.Abs(float64(v-lazyW[i])) <= 1e-5*math.Max(1, math.Abs(float64(v)))
	}
	fmt.Printf("loss %.3f\nweights %.2f\nsame as gojit.Compile: %v\n", loss, lazyW, same)
	// Output:
	// loss 0.452
	// weights [1.27 -1.57 0.79]
	// same as gojit.Compile: true
}

// syntheticData draws n points whose label is 1 when 2a - 1.5b + 0.75c > 0,
// flipped for about one point in ten.
func syntheticData(n, d int) (X, y []float32) {
	r := rand.New(rand.NewPCG(3, 4))
	X, y = make([]float32, n*d), make([]float32, n)
	for i := range n {
		s := 0.0
		for j, wt := range []float64{2, -1.5, 0.75} {
			v := r.NormFloat64()
			X[i*d+j] = float32(v)
			s += wt * v
		}
		if (s > 0) != (r.Float64() < 0.1) {
			y[i] = 1
		}
	}
	return X, y
}

// Each goroutine records into its own Context; tensors of one Context
// never mix with another's.
func ExampleNewContext() {
	results := make([]float64, 3)
	done := make(chan struct{})
	for i := range results {
		go func() {
			defer func() { done <- struct{}{} }()
			c, err := lazy.NewContext(lazy.WithBatchSize(64))
			if err != nil {
				panic(err)
			}
			x := c.FromFloat32([]float32{1, 2, 3})
			results[i], err = x.Mul(lazy.Scalar(float64(i + 1))).Sum().Item()
			if err != nil {
				panic(err)
			}
		}()
	}
	for range results {
		<-done
	}
	fmt.Println(results)
	// Output: [6 12 18]
}

// Stats explain what lazy did: here, the second iteration of a loop
// found its batch in the cache.
func ExampleStats() {
	c, _ := lazy.NewContext()
	before := lazy.Stats()
	for i := range 2 {
		x := c.FromFloat64([]float64{1, 2, 3, float64(i)})
		if _, err := x.Exp().Log().Sub(x).Abs().Max().Item(); err != nil {
			fmt.Println(err)
			return
		}
	}
	s := lazy.Stats()
	fmt.Println("read flushes:", s.FlushRead-before.FlushRead)
	fmt.Println("cache hits:", s.CacheHits-before.CacheHits)
	// Output:
	// read flushes: 2
	// cache hits: 1
}
