package gojit_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/gojit/gojit"
)

func ExampleCompile() {
	f, err := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor {
		return a.Add(b).Mul(a).Relu()
	})
	if err != nil {
		panic(err)
	}
	out, err := f.Call(
		gojit.FromFloat32([]float32{1, -2, 3, 4}),
		gojit.FromFloat32([]float32{1, 1, 1, 1}),
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(out[0].Float32())
	// Output: [2 2 12 20]
}

func ExampleFunc_CallInto() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(gojit.Scalar(2)) })
	x := gojit.FromInt32([]int32{1, 2, 3})
	out := gojit.New(gojit.Int32, 3)
	for range 3 { // steady state: no allocation for the result
		if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
			panic(err)
		}
	}
	fmt.Println(out.Int32(), f.Stats().Traces)
	// Output: [2 4 6] 1
}

// Static arguments are baked into the trace: each value gets its own
// compiled code.
func ExampleCompile_static() {
	f, _ := gojit.Compile(func(x *gojit.Tensor, power int) *gojit.Tensor {
		y := x
		for range power - 1 { // runs while tracing
			y = y.Mul(x)
		}
		return y
	})
	x := gojit.FromFloat64([]float64{1, 2, 3})
	sq, _ := f.Call(x, 2)
	cube, _ := f.Call(x, 3)
	fmt.Println(sq[0].Float64(), cube[0].Float64(), f.Stats().Traces)
	// Output: [1 4 9] [1 8 27] 2
}

// Row softmax: reductions keep their axis with Reduce so the result
// broadcasts back against the input.
func ExampleTensor_Reduce() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
		return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
	})
	out, _ := f.Call(gojit.FromFloat64([]float64{0, 0, 1, 1, 3, 3}, 2, 3))
	for _, v := range out[0].Float64() {
		fmt.Printf("%.3f ", v)
	}
	fmt.Println()
	// Output: 0.212 0.212 0.576 0.063 0.468 0.468
}

func ExampleWhere() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.Where(x.Greater(gojit.Scalar(0)), x, x.Mul(gojit.Scalar(0.1)))
	})
	out, _ := f.Call(gojit.FromFloat32([]float32{-10, 5}))
	fmt.Println(out[0].Float32())
	// Output: [-1 5]
}

func ExampleTensor_MatMul() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor { return a.MatMul(b) })
	a := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := gojit.FromFloat32([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	out, _ := f.Call(a, b)
	fmt.Println(out[0].Shape(), out[0].Float32())
	// Output: [2 2] [4 5 10 11]
}

func ExampleIota() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return x.Add(gojit.Iota(gojit.Int64, 1, 2, 3))
	})
	out, _ := f.Call(gojit.FromInt64([]int64{10, 20}, 2, 1))
	fmt.Println(out[0].Int64())
	// Output: [10 11 12 20 21 22]
}

// Errors name the op and the line of user code that recorded it.
func ExampleFunc_Call_error() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor { return a.Add(b) })
	_, err := f.Call(gojit.New(gojit.Float32, 3), gojit.New(gojit.Float32, 4))
	msg := err.Error()
	fmt.Println(strings.Contains(msg, "example_test.go:"), strings.Contains(msg, "Add: shapes"))
	// Output: true true
}

func ExampleFunc_Lower() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor { return a.Add(b).Exp().Sum() })
	l, err := f.Lower(gojit.New(gojit.Float32, 1000), gojit.New(gojit.Float32, 1000))
	if err != nil {
		panic(err)
	}
	// add and exp are computed inside the reduction's loop: one group.
	fmt.Print(l.Fused[strings.Index(l.Fused, "group 0"):])
	// Output: group 0 -> %4 (reduce_sum): %2 %3 %4
}

func ExampleScalarArray() {
	f, _ := gojit.Compile(func(x, scale *gojit.Tensor) *gojit.Tensor { return x.Mul(scale) })
	out, _ := f.Call(gojit.FromFloat32([]float32{1, 2, 3}), gojit.ScalarArray(0.5, gojit.Float32))
	fmt.Println(out[0])
	fmt.Println(gojit.ScalarArray(2.5, gojit.Int32).Err())
	// Output:
	// f32[3] [0.5 1 1.5]
	// gojit: ScalarArray: 2.5 is not a i32 value
}

// A weak scalar that an integer tensor cannot hold is never truncated:
// comparisons are exact and arithmetic moves to Float32.
func ExampleScalar() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
		return x.Less(gojit.Scalar(2.5)), x.Less(gojit.Scalar(math.Inf(1))), x.Add(gojit.Scalar(0.5))
	})
	out, _ := f.Call(gojit.FromInt32([]int32{1, 2, 3}))
	fmt.Println(out[0])
	fmt.Println(out[1])
	fmt.Println(out[2])
	// Output:
	// bool[3] [true true false]
	// bool[3] [true true true]
	// f32[3] [1.5 2.5 3.5]
}
