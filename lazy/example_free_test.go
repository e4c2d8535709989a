package lazy_test

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit/lazy"
)

// A GT2-style loop frees its inputs once it has read the result. With
// WithFreeDropsDerived, Free gives the inputs' copies back at once (the
// next iteration copies into memory in cache), and an intermediate kept
// from the loop, fused away by the read, can no longer be read. (On
// systems without mmap the copies live on the heap, Free gives nothing
// back early, and the kept tensor stays readable.)
func ExampleWithFreeDropsDerived() {
	c, err := lazy.NewContext(lazy.WithFreeDropsDerived())
	if err != nil {
		panic(err)
	}
	a, b := make([]float32, 100*100), make([]float32, 100*100)
	var kept *lazy.Tensor
	for step := range 3 {
		for i := range a {
			a[i], b[i] = float32(step), 0.25
		}
		x, y := c.FromFloat32(a, 100, 100), c.FromFloat32(b, 100, 100)
		h := x.Add(y)
		v, err := h.Mul(x).MatMul(y).Relu().Mean().Item()
		if err != nil {
			panic(err)
		}
		fmt.Printf("step %d: %.4f\n", step, v)
		kept = h
		x.Free()
		y.Free()
	}
	_, err = kept.Float32()
	fmt.Println(errors.Is(err, lazy.ErrDerivedFromFreed))
	// Output:
	// step 0: 0.0000
	// step 1: 31.2500
	// step 2: 112.5000
	// true
}
