package lazy_test

import (
	"fmt"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/lazy"
)

// Cond picks a branch by a value computed at run time; both branches are
// recorded, the compiled batch runs one.
func ExampleCond() {
	x := lazy.FromFloat32([]float32{1, -2, 4})
	r := lazy.Cond(x.Sum().Greater(lazy.Scalar(0)),
		func() []*lazy.Tensor { return []*lazy.Tensor{x.Mul(lazy.Scalar(10))} },
		func() []*lazy.Tensor { return []*lazy.Tensor{x.Neg()} })
	fmt.Println(r[0].Float32())
	// Output: [10 -20 40] <nil>
}

// While repeats its body while its condition holds: here, doubling until
// the sum passes 100, counting the steps.
func ExampleWhile() {
	x := lazy.FromFloat32([]float32{1, 2})
	r := lazy.While([]*lazy.Tensor{lazy.Full(gojit.Int32, 0), x},
		func(s []*lazy.Tensor) *lazy.Tensor { return s[1].Sum().LessEqual(lazy.Scalar(100)) },
		func(s []*lazy.Tensor) []*lazy.Tensor {
			return []*lazy.Tensor{s[0].Add(lazy.Scalar(1)), s[1].Mul(lazy.Scalar(2))}
		})
	steps, _ := r[0].Item()
	fmt.Println(steps)
	fmt.Println(r[1].Float32())
	// Output:
	// 6
	// [64 128] <nil>
}

// ForLoop runs its body for i = lo ... hi-1: here, x·(0+1+2+3).
func ExampleForLoop() {
	x := lazy.FromFloat32([]float32{1, 2})
	r := lazy.ForLoop(lazy.Scalar(0), lazy.Scalar(4), []*lazy.Tensor{lazy.Full(gojit.Float32, 0, 2)},
		func(i *lazy.Tensor, s []*lazy.Tensor) []*lazy.Tensor {
			return []*lazy.Tensor{s[0].Add(x.Mul(i.Cast(gojit.Float32)))}
		})
	fmt.Println(r[0].Float32())
	// Output: [6 12] <nil>
}
