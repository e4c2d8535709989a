package bench

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// Chain5 is the 5-op elementwise chain over two float32 inputs:
// max((a+b)*a - b*0.5, 0), i.e. add, mul, mul, sub, max.
func Chain5(a, b *gojit.Tensor) *gojit.Tensor {
	return a.Add(b).Mul(a).Sub(b.Mul(gojit.Scalar(0.5))).Relu()
}

// Chain5Fused is the same computation as one plain Go loop: the baseline a
// careful Go programmer would write.
func Chain5Fused(out, a, b []float32) {
	b = b[:len(a)]
	out = out[:len(a)]
	for i, x := range a {
		y := b[i]
		out[i] = max((x+y)*x-y*0.5, 0)
	}
}

// Chain5Unfused does the ops one at a time with an intermediate slice per
// op, as an op-by-op array library does.
func Chain5Unfused(a, b []float32) []float32 {
	n := len(a)
	t1 := make([]float32, n)
	for i := range t1 {
		t1[i] = a[i] + b[i]
	}
	t2 := make([]float32, n)
	for i := range t2 {
		t2[i] = t1[i] * a[i]
	}
	t3 := make([]float32, n)
	for i := range t3 {
		t3[i] = b[i] * 0.5
	}
	t4 := make([]float32, n)
	for i := range t4 {
		t4[i] = t2[i] - t3[i]
	}
	t5 := make([]float32, n)
	for i := range t5 {
		t5[i] = max(t4[i], 0)
	}
	return t5
}

// RandFloat32 returns n deterministic pseudo-random values in [-1, 1).
func RandFloat32(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// Case is one measured function and the baseline it is compared with.
type Case struct {
	Name     string
	Baseline string
	Run      func(b *testing.B)
	Base     func(b *testing.B)
}

// ChainCases measures Chain5 against the fused and unfused Go loops at n.
func ChainCases(n int) ([]Case, error) {
	f, err := gojit.Compile(Chain5)
	if err != nil {
		return nil, err
	}
	a, b := RandFloat32(n, 1), RandFloat32(n, 2)
	A, B := gojit.FromFloat32(a), gojit.FromFloat32(b)
	out := gojit.New(gojit.Float32, n)
	if err := f.CallInto([]*gojit.Array{out}, A, B); err != nil {
		return nil, err
	}
	ref := make([]float32, n)
	Chain5Fused(ref, a, b)
	for i, v := range out.Float32() {
		if v != ref[i] {
			return nil, fmt.Errorf("chain n=%d: gojit[%d]=%v, Go loop %v", n, i, v, ref[i])
		}
	}
	run := func(tb *testing.B) {
		tb.SetBytes(int64(12 * n))
		for tb.Loop() {
			if err := f.CallInto([]*gojit.Array{out}, A, B); err != nil {
				tb.Fatal(err)
			}
		}
	}
	fused := func(tb *testing.B) {
		tb.SetBytes(int64(12 * n))
		for tb.Loop() {
			Chain5Fused(ref, a, b)
		}
	}
	unfused := func(tb *testing.B) {
		tb.SetBytes(int64(12 * n))
		for tb.Loop() {
			Chain5Unfused(a, b)
		}
	}
	name := fmt.Sprintf("chain5/n=%d", n)
	return []Case{
		{Name: name, Baseline: "Go fused loop", Run: run, Base: fused},
		{Name: name, Baseline: "Go op by op", Run: run, Base: unfused},
	}, nil
}

// CallOverhead measures a cached call with three 16-element inputs.
func CallOverhead() (func(b *testing.B), error) {
	f, err := gojit.Compile(func(a, b, c *gojit.Tensor) *gojit.Tensor { return a.Mul(b).Add(c) })
	if err != nil {
		return nil, err
	}
	A := gojit.FromFloat32(RandFloat32(16, 1))
	B := gojit.FromFloat32(RandFloat32(16, 2))
	C := gojit.FromFloat32(RandFloat32(16, 3))
	out := gojit.New(gojit.Float32, 16)
	outs := []*gojit.Array{out}
	if err := f.CallInto(outs, A, B, C); err != nil {
		return nil, err
	}
	return func(tb *testing.B) {
		tb.ReportAllocs()
		for tb.Loop() {
			if err := f.CallInto(outs, A, B, C); err != nil {
				tb.Fatal(err)
			}
		}
	}, nil
}

// coldSeq makes every ColdCompile graph new to the process, across
// benchmark runs as well as iterations.
var coldSeq atomic.Int64

// ColdCompile measures tracing and compiling a fresh 6-op function over n
// float32 elements, first call included: each iteration uses a different
// constant so no compile cache can answer. Issue 15's target is n=16;
// over 64 elements or fewer the module is Tiny and takes the quick
// backend (internal/llvm), so n=1024 shows the full one.
func ColdCompile(n int) func(b *testing.B) {
	return func(tb *testing.B) {
		a := gojit.FromFloat32(RandFloat32(n, 1))
		b := gojit.FromFloat32(RandFloat32(n, 2))
		for tb.Loop() {
			k := float64(coldSeq.Add(1))
			f, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor {
				return x.Add(y).Mul(x).Sub(gojit.Scalar(k)).Exp().Maximum(y).Sqrt()
			})
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := f.Call(a, b); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// Measure runs fn with testing.Benchmark and returns its time per op.
func Measure(fn func(b *testing.B)) time.Duration {
	r := testing.Benchmark(fn)
	if r.N == 0 {
		return 0
	}
	return time.Duration(r.T.Nanoseconds() / int64(r.N))
}
