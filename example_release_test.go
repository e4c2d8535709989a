package gojit_test

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit"
)

// A loop that feeds each result into the next call and drops it: Release
// gives each intermediate's buffer back at once, so the next Call rewrites
// memory still in cache instead of waiting for the garbage collector.
func ExampleArray_Release() {
	step, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(0.5)).Add(gojit.Scalar(1))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := gojit.FromFloat32(make([]float32, 1000))
	for i := range 20 {
		out, err := step.Call(x)
		if err != nil {
			fmt.Println(err)
			return
		}
		if i > 0 {
			x.Release() // the previous result: nothing else uses it
		}
		x = out[0]
	}
	fmt.Printf("%.6f\n", x.Float32()[0]) // converges to 2
	x.Release()                          // a slice was taken: only emptied, the slice stays valid
	fmt.Println(errors.Is(x.Err(), gojit.ErrReleased))
	// Output:
	// 1.999998
	// true
}
