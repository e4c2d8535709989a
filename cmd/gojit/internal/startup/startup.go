// Package startup holds what `gojit bench -startup` shares with the two
// programs it runs in fresh processes: the 12-op function both compute
// and its plain Go form, which is also the reference the gojit program
// checks its result against.
package startup

import "math"

// N is the number of elements the function runs over.
const N = 1000

// Inputs returns the function's two inputs, the same in every process.
func Inputs() (a, b []float32) {
	a, b = make([]float32, N), make([]float32, N)
	for i := range a {
		a[i] = float32(i%37)*0.25 - 4
		b[i] = float32(i%11)*0.5 - 2.5
	}
	return a, b
}

// Plain computes the function in a Go loop: twelve float32 operations per
// element, each rounded on its own (the conversions keep the compiler
// from fusing a multiply and an add), as the compiled kernel does.
func Plain(a, b, out []float32) {
	for i := range out {
		x, y := a[i], b[i]
		t := float32(x + y)      // 1 add
		t = float32(t * x)       // 2 mul
		t = float32(t - y)       // 3 sub
		t = float32(t * 0.5)     // 4 mul
		t = float32(t + 1)       // 5 add
		t = max(t, 0)            // 6 relu
		t = float32(t * y)       // 7 mul
		t = float32(t + x)       // 8 add
		d := float32(abs(y) + 1) // 9 abs, 10 add
		t = float32(t / d)       // 11 div
		out[i] = -t              // 12 neg
	}
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// SmallN is the number of elements of the small function: issue 15's
// cold-compile case, 6 ops over 16 elements, the function of
// BenchmarkColdCompile.
const SmallN = 16

// PlainSmall computes the small function, sqrt(max(exp((x+y)*x - k), y)),
// in a Go loop, each operation rounded to float32 (exp in float64 and
// then rounded, which the compiled exp may differ from in the last
// place).
func PlainSmall(a, b []float32, k float32, out []float32) {
	for i := range out {
		x, y := a[i], b[i]
		t := float32(x + y)
		t = float32(t * x)
		t = float32(t - k)
		t = float32(math.Exp(float64(t)))
		t = max(t, y)
		out[i] = float32(math.Sqrt(float64(t)))
	}
}
