package gojit_test

import (
	"fmt"

	"github.com/gojit/gojit"
)

func ExampleTensor_Mod() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor { return a.Mod(b) })
	out, err := f.Call(gojit.FromInt32([]int32{-7, 7, 7, 5}), gojit.FromInt32([]int32{3, -3, 3, 0}))
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].Int32()) // the divisor's sign, as Python's %; x mod 0 is 0
	// Output: [2 -2 1 0]
}

func ExampleEinsum() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor {
		return gojit.Einsum("ij,jk->ik", a, b) // a matrix product
	})
	a := gojit.FromInt64([]int64{1, 2, 3, 4}, 2, 2)
	b := gojit.FromInt64([]int64{5, 6, 7, 8}, 2, 2)
	out, err := f.Call(a, b)
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].Int64(), out[0].Shape())
	// Output: [19 22 43 50] [2 2]
}

func ExampleTensor_TopK() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.TopK(2) })
	out, err := f.Call(gojit.FromFloat32([]float32{3, 9, 1, 9, 4}))
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].Float32(), out[1].Int64())
	// Output: [9 9] [1 3]
}

func ExampleTensor_Pad() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) []*gojit.Tensor {
		w := [][2]int{{2, 1}}
		return []*gojit.Tensor{x.Pad(w, gojit.PadConstant, 0), x.Pad(w, gojit.PadEdge, 0), x.Pad(w, gojit.PadReflect, 0)}
	})
	out, err := f.Call(gojit.FromInt32([]int32{1, 2, 3}))
	if err != nil {
		panic(err)
	}
	for _, o := range out {
		fmt.Println(o.Int32())
	}
	// Output:
	// [0 0 1 2 3 0]
	// [1 1 1 2 3 3]
	// [3 2 1 2 3 2]
}

func ExampleTensor_CumSum() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.CumSum(-1) })
	out, err := f.Call(gojit.FromInt32([]int32{1, 2, 3, 4, 5, 6}, 2, 3))
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].Int32())
	// Output: [1 3 6 4 9 15]
}

func ExampleFromFloat16() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(3)).Add(gojit.Scalar(0.25)) // computed in Float32, stored as Float16
	})
	x := gojit.FromFloat16([]gojit.F16{gojit.F16Of(1), gojit.F16Of(0.1), gojit.F16Of(30000)})
	out, err := f.Call(x)
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].DType(), out[0].Float16()) // 0.1 is 0.0999755859375 in Float16; 90000 overflows
	// Output: f16 [3.25 0.5498047 +Inf]
}
