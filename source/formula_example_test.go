package source_test

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/source"
)

func ExampleCompileFormula() {
	schema := map[string]gojit.DType{"price": gojit.Float64, "qty": gojit.Int64, "discount": gojit.Float64}
	f, err := source.CompileFormula("price * float64(qty) * (1 - discount)", schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Columns(), f.DType())
	// Output: [price qty discount] f64
}

func ExampleCompileFormula_errors() {
	schema := map[string]gojit.DType{"price": gojit.Float64, "qty": gojit.Int64}
	_, err := source.CompileFormula("price * qty + pricee", schema)
	fmt.Println(err)
	var e *source.Error
	fmt.Println(errors.As(err, &e), len(e.Diags))
	// Output:
	// formula:1:7: price * qty: mismatched types float64 and int64
	// 	price * qty + pricee
	// 	      ^
	// formula:1:15: unknown column pricee (did you mean price?)
	// 	price * qty + pricee
	// 	              ^
	// true 2
}

func ExampleFormula_Eval() {
	schema := map[string]gojit.DType{"price": gojit.Float64, "qty": gojit.Float64, "vip": gojit.Bool}
	f, err := source.CompileFormula("where(vip, 0.9, 1.0) * price * qty", schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := f.Eval(map[string]*gojit.Array{
		"price": gojit.FromFloat64([]float64{10, 20, 30}),
		"qty":   gojit.FromFloat64([]float64{1, 2, 3}),
		"vip":   gojit.FromBool([]bool{false, true, false}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Float64())
	// Output: [10 36 90]
}

func ExampleFormula_EvalInto() {
	schema := map[string]gojit.DType{"x": gojit.Float32, "y": gojit.Float32}
	f, err := source.CompileFormula("math.Sqrt(x*x + y*y) > 5", schema)
	if err != nil {
		fmt.Println(err)
		return
	}
	cols := map[string]*gojit.Array{
		"x": gojit.FromFloat32([]float32{3, 4, 6}),
		"y": gojit.FromFloat32([]float32{4, 4, 0}),
	}
	dst := gojit.New(gojit.Bool, 3) // reused call after call: no allocation
	if err := f.EvalInto(dst, cols); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dst.Bool())
	// Output: [false true true]
}

func ExampleFormula_Code() {
	f, err := source.CompileFormula("a + b", map[string]gojit.DType{"a": gojit.Int32, "b": gojit.Int32})
	if err != nil {
		fmt.Println(err)
		return
	}
	src, _ := f.Code(source.StageSource)
	fmt.Println(src)
	_, err = f.Code(source.StageSSA)
	fmt.Println(err != nil)
	// Output:
	// a + b
	// true
}

func ExampleFormula_Columns() {
	f, err := source.CompileFormula("b*b - 4*a*c", map[string]gojit.DType{"a": gojit.Float64, "b": gojit.Float64, "c": gojit.Float64, "unused": gojit.Int64})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Columns())
	// Output: [b a c]
}
