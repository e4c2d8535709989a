//go:build cgo && !nollvm

package source

import (
	"errors"
	"fmt"
	"strings"
)

// The examples' kernels, Dot and Axpy, are in kernels_test.go.

func ExampleCompileFunc() {
	f, err := CompileFunc(Dot)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := f.Call([]float64{1, 2, 3}, []float64{4, 5, 6})
	fmt.Println(out, err)
	// Output: [32] <nil>
}

func ExampleCompile() {
	const src = `package kernels

func Clamp(x []float64, lo, hi float64) int {
	n := 0
	for i, v := range x {
		if v < lo || v > hi {
			x[i] = min(max(v, lo), hi)
			n++
		}
	}
	return n
}
`
	f, err := Compile(src, "Clamp")
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float64{-2, 0.5, 3}
	out, err := f.Call(x, 0.0, 1.0)
	fmt.Println(out, x, err)
	// Output: [2] [0 0.5 1] <nil>
}

func ExampleBind3() {
	f, err := CompileFunc(Axpy)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A bound function has the compiled function's parameters and an error
	// result, which reports what Go would panic with.
	var axpy func(float32, []float32, []float32) error
	if err := Bind3(f, &axpy); err != nil {
		fmt.Println(err)
		return
	}
	x, y := []float32{1, 2, 3}, []float32{10, 10, 10}
	fmt.Println(axpy(2, x, y), y)
	err = axpy(2, x, y[:2])
	var re *RuntimeError
	fmt.Println(errors.As(err, &re), re.Msg)
	// Output:
	// <nil> [12 14 16]
	// true index out of range [2] with length 2
}

func ExampleBind() {
	f, err := CompileFunc(Dot)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Bind takes any signature (its calls go through reflection).
	var dot func([]float64, []float64) (float64, error)
	if err := Bind(f, &dot); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dot([]float64{1, 2}, []float64{3, 4}))
	// Output: 11 <nil>
}

func ExampleFunc_Code() {
	f, err := CompileFunc(Dot)
	if err != nil {
		fmt.Println(err)
		return
	}
	ssaText, _ := f.Code(StageSSA)
	for _, line := range strings.Split(ssaText, "\n") {
		if strings.HasPrefix(line, "func ") || strings.Contains(line, " = phi ") {
			fmt.Println(strings.Join(strings.Fields(line), " "))
		}
	}
	// Output:
	// func Dot(x []float64, y []float64) float64:
	// t1 = phi [0: 0:float64, 2: t10] #s float64
	// t2 = phi [0: -1:int, 2: t3] #rangeindex int
}

func ExampleRange() {
	const src = `package kernels

import "github.com/gojit/gojit/source"

// Norms sets out[i] to the squared norm of row i of the n×d matrix x and
// returns the largest.
func Norms(x []float32, d int, out []float32) float32 {
	m := float32(0)
	for i := range source.Range(len(out)) {
		s := float32(0)
		for _, v := range x[i*d : i*d+d] {
			s += v * v
		}
		out[i] = s
		m = max(m, s)
	}
	return m
}
`
	f, err := Compile(src, "Norms")
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float32{1, 2, 3, 4, 0, 0}
	out := make([]float32, 3)
	res, err := f.Call(x, 2, out)
	fmt.Println(res, out, err)
	// Output: [25] [5 25 0] <nil>
}
