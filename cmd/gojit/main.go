package main

import (
	"fmt"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

func main() {
	f, _ := gojit.Compile(func(a, b *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		y := a.Add(b).Mul(a).Sub(b.Mul(gojit.Scalar(0.5))).Relu()
		return y, y.Sum()
	})
	n := 1000
	A, B := gojit.FromFloat32(bench.RandFloat32(n, 1)), gojit.FromFloat32(bench.RandFloat32(n, 2))
	l, err := f.Lower(A, B)
	if err != nil {
		panic(err)
	}
	fmt.Println("TRACED\n" + l.Traced)
	fmt.Println("FUSED\n" + l.Fused)
	fmt.Println("LLVM\n" + l.LLVM)
	fmt.Println("OPT\n" + l.Optimized)
	fmt.Println("ASM\n" + l.Assembly)
	fmt.Println(l.CompileTime)
}
