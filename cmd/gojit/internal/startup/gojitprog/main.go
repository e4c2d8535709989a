// Command gojitprog is the program `gojit bench -startup` runs in fresh
// processes. With the argument "main" it only prints the wall-clock time
// at which main started (Unix nanoseconds); with "run" it also compiles
// the startup function with gojit, calls it once on startup.N elements,
// checks the result against startup.Plain bit for bit, and prints how long
// Compile and the first Call took, whether LLVM was loaded and whether
// the build of gojit was identified (runtime.BuildIdentity); when LLVM
// was loaded, how long loading it took and which file it came from; and
// the process's minor page faults and CPU time after the first call. "run2" also
// compiles and calls a second function and prints how long that took.
// "small" does what "run2" does with the small function instead (6 ops
// over 16 elements, issue 15's cold-compile case) and two of its
// constants. A wrong result exits with status 1.
package main

import (
	"fmt"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/cmd/gojit/internal/startup"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/runtime"
)

func main() {
	t0 := time.Now()
	fmt.Printf("main %d\n", t0.UnixNano())
	if len(os.Args) > 1 && os.Args[1] == "main" {
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "small" {
		small(t0)
		return
	}
	f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
		t := x.Add(y).Mul(x).Sub(y).Mul(gojit.Scalar(0.5)).Add(gojit.Scalar(1)).Relu()
		t = t.Mul(y).Add(x)
		return t.Div(y.Abs().Add(gojit.Scalar(1))).Neg()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	a, b := startup.Inputs()
	res, err := f.Call(gojit.FromFloat32(a), gojit.FromFloat32(b))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	elapsed := time.Since(t0)
	got := res[0].Float32()
	want := make([]float32, startup.N)
	startup.Plain(a, b, want)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			fmt.Fprintf(os.Stderr, "out[%d] = %v, want %v\n", i, got[i], want[i])
			os.Exit(1)
		}
	}
	fmt.Printf("first %d\nllvm %t\nidentified %t\n", elapsed.Nanoseconds(), llvm.Loaded(), runtime.BuildIdentity() != "")
	if llvm.Loaded() {
		_, lib, _ := llvm.LibraryVersion()
		fmt.Printf("llvmload %d\nlibrary %s\n", llvm.LoadTime().Nanoseconds(), lib)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		fmt.Printf("minflt %d\ncpu %d\n", ru.Minflt, syscall.TimevalToNsec(ru.Utime)+syscall.TimevalToNsec(ru.Stime))
	}
	if len(os.Args) > 1 && os.Args[1] == "run2" {
		// A second, different function (the first without its final
		// negation, so its result is -want): what a compile costs once
		// LLVM is loaded and warm in this process.
		t1 := time.Now()
		g, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
			t := x.Add(y).Mul(x).Sub(y).Mul(gojit.Scalar(0.5)).Add(gojit.Scalar(1)).Relu()
			t = t.Mul(y).Add(x)
			return t.Div(y.Abs().Add(gojit.Scalar(1)))
		})
		var res2 []*gojit.Array
		if err == nil {
			res2, err = g.Call(gojit.FromFloat32(a), gojit.FromFloat32(b))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		second := time.Since(t1)
		for i, v := range res2[0].Float32() {
			if math.Float32bits(v) != math.Float32bits(-want[i]) {
				fmt.Fprintf(os.Stderr, "second function: out[%d] = %v, want %v\n", i, v, -want[i])
				os.Exit(1)
			}
		}
		fmt.Printf("second %d\n", second.Nanoseconds())
	}
}

// small compiles and calls the small function with k=3, then again with
// k=4, checking both against startup.PlainSmall, and reports the times
// of both as "first" and "second".
func small(t0 time.Time) {
	a, b := startup.Inputs()
	a, b = a[:startup.SmallN], b[:startup.SmallN]
	var second time.Duration
	for i, k := range []float32{3, 4} {
		t1 := time.Now()
		f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
			return x.Add(y).Mul(x).Sub(gojit.Scalar(float64(k))).Exp().Maximum(y).Sqrt()
		})
		var res []*gojit.Array
		if err == nil {
			res, err = f.Call(gojit.FromFloat32(a), gojit.FromFloat32(b))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if i == 0 {
			fmt.Printf("first %d\n", time.Since(t0).Nanoseconds())
		} else {
			second = time.Since(t1)
		}
		want := make([]float32, startup.SmallN)
		startup.PlainSmall(a, b, k, want)
		for j, v := range res[0].Float32() {
			// exp may differ from Go's in the last place or two.
			if d := math.Abs(float64(v - want[j])); d > 4e-7*math.Abs(float64(want[j])) {
				fmt.Fprintf(os.Stderr, "small function, k=%v: out[%d] = %v, want %v\n", k, j, v, want[j])
				os.Exit(1)
			}
		}
	}
	fmt.Printf("llvm %t\nidentified %t\n", llvm.Loaded(), runtime.BuildIdentity() != "")
	if llvm.Loaded() {
		_, lib, _ := llvm.LibraryVersion()
		fmt.Printf("llvmload %d\nlibrary %s\n", llvm.LoadTime().Nanoseconds(), lib)
	}
	fmt.Printf("second %d\n", second.Nanoseconds())
}
