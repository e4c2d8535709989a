package gojit_test

import (
	"fmt"

	"github.com/gojit/gojit"
)

// ExampleWhile halves each value until it is at most 1, counting the
// halvings of the largest: a loop whose trip count depends on the data.
func ExampleWhile() {
	f, err := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x, gojit.Full(gojit.Int32, 0)},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Max().Greater(gojit.Scalar(1)) },
			func(s []*gojit.Tensor) []*gojit.Tensor {
				big := s[0].Greater(gojit.Scalar(1))
				return []*gojit.Tensor{gojit.Where(big, s[0].Mul(gojit.Scalar(0.5)), s[0]), s[1].Add(gojit.Scalar(1))}
			})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := f.Call(gojit.FromFloat32([]float32{0.5, 3, 40}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Data(), out[1].Data())
	// Output: [0.5 0.75 0.625] [6]
}

// ExampleForLoop sums i*x for i = 0..n-1, with n a traced value.
func ExampleForLoop() {
	f, err := gojit.Compile(func(x, n *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), n, []*gojit.Tensor{x.Mul(gojit.Scalar(0))},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(x.Mul(i.Cast(gojit.Float32)))}
			})[0]
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []int32{4, 0} {
		out, err := f.Call(gojit.FromFloat32([]float32{1, 10}), gojit.FromInt32([]int32{n}, []int{}...))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(n, out[0].Data())
	}
	// Output:
	// 4 [6 60]
	// 0 [0 0]
}

// ExampleCond picks a branch from a traced value; each branch reads
// tensors of the enclosing function.
func ExampleCond() {
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Sqrt()} },
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Neg()} })[0]
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range [][]float32{{4, 9}, {-4, 1}} {
		out, err := f.Call(gojit.FromFloat32(in))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(out[0].Data())
	}
	// Output:
	// [2 3]
	// [4 -1]
}
