package source

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Benchmarks: each target runs as Go (the same function compiled by Go)
// and compiled, in one run; compare the two with benchstat or by eye.
//
//	go test ./source -run '^$' -bench . -benchmem

func randF32(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	return x
}

func randF64(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.Float64() * 100
	}
	return x
}

func BenchmarkSaxpy(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		x, y := randF32(n, 1), randF32(n, 2)
		b.Run(sizeName("Go", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				saxpy(1.0001, x, y)
			}
		})
		b.Run(sizeName("compiled", n), func(b *testing.B) {
			var g func(float32, []float32, []float32) error
			if err := Bind3(compileT(b, saxpy), &g); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				g(1.0001, x, y)
			}
		})
	}
}

func BenchmarkPairwise(b *testing.B) {
	const n, d = 1000, 64
	x, out := randF32(n*d, 3), make([]float32, n*n)
	b.Run("Go", func(b *testing.B) {
		for b.Loop() {
			pairwise(x, n, d, out)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		var g func([]float32, int, int, []float32) error
		if err := Bind4(compileT(b, pairwise), &g); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			g(x, n, d, out)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		var g func([]float32, int, int, []float32) error
		if err := Bind4(compileParT(b, "Pairwise"), &g); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			g(x, n, d, out)
		}
	})
}

func BenchmarkNewton(b *testing.B) {
	const n = 1000000
	x, out := randF64(n, 4), make([]float64, n)
	b.Run("Go", func(b *testing.B) {
		for b.Loop() {
			newton(x, out)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		var g func([]float64, []float64) error
		if err := Bind2(compileT(b, newton), &g); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			g(x, out)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		var g func([]float64, []float64) error
		if err := Bind2(compileParT(b, "Newton"), &g); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			g(x, out)
		}
	})
}

// BenchmarkCompile is a cold compile (caches bypassed) of a 20-line
// function, loading included; CompileFunc's loading and type-checking is
// the loader's part.
func BenchmarkCompile(b *testing.B) {
	needLLVM(b)
	for b.Loop() {
		if _, err := CompileFunc(control, WithoutCache()); err != nil {
			b.Fatal(err)
		}
	}
}

func sizeName(s string, n int) string {
	switch {
	case n >= 1000000:
		return s + "/1e6"
	case n >= 100000:
		return s + "/1e5"
	case n >= 1000:
		return s + "/1e3"
	}
	return s
}

// TestColdCompileFresh reports (it asserts nothing about time) what the
// first CompileFunc in a fresh process costs, LLVM's start and the
// loading of Go's math source included, and then a second function of the
// same package, then the first again: it runs this test binary again as
// a child per case.
//
//	go test ./source -run TestColdCompileFresh -v
func TestColdCompileFresh(t *testing.T) {
	if mode := os.Getenv("SOURCE_COLD_CHILD"); mode != "" {
		first, second := any(control), any(whileLoop)
		if mode == "math" {
			first = mathLibm // Exp, Log, Sin, Cos, Pow, Tanh
		}
		// first again: what the first compile paid for the process
		// (LLVM's start, reading math) is the difference.
		for i, fn := range []any{first, second, first} {
			start := time.Now()
			if _, err := CompileFunc(fn, WithoutCache()); err != nil {
				fmt.Println("error:", err)
				return
			}
			fmt.Printf("compile%d=%.1fms\n", i+1, float64(time.Since(start).Microseconds())/1000)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	needLLVM(t)
	for _, mode := range []string{"plain", "math"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestColdCompileFresh$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SOURCE_COLD_CHILD="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "compile2=") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		var fields []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "compile") {
				fields = append(fields, l)
			}
		}
		t.Logf("fresh process, first function %s: %s", mode, strings.Join(fields, " "))
	}
}
