package gojit_test

import (
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// BenchmarkWhileNewton measures the cube root of 1e6 float32 values by
// Newton's iteration written with While (cbrtNewton), against a plain Go
// loop doing the same iteration per element (cbrtGo). The two alternate
// within each benchmark iteration, so that load on a shared machine
// falls on both alike, and the benchmark reports their times and the
// ratio go/gojit:
//
//	go test -run '^$' -bench WhileNewton -benchtime 10x .
func BenchmarkWhileNewton(b *testing.B) {
	const n = 1_000_000
	data := make([]float32, n)
	for i := range data {
		data[i] = 0.001 + float32(i%100_000)*0.37
	}
	x := gojit.FromFloat32(data, n)
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return cbrtNewton(x) })
	if err != nil {
		b.Fatal(err)
	}
	out := gojit.New(gojit.Float32, n)
	if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, n)
	var tj, tg time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		cbrtGo(dst, data)
		tj, tg = tj+mid.Sub(start), tg+time.Since(mid)
	}
	b.StopTimer()
	if got := out.Data().([]float32); !equalF32(got, dst) {
		b.Fatal("gojit and the Go loop disagree")
	}
	b.ReportMetric(float64(tj.Nanoseconds())/float64(b.N), "gojit-ns/op")
	b.ReportMetric(float64(tg.Nanoseconds())/float64(b.N), "go-ns/op")
	b.ReportMetric(float64(tg)/float64(tj), "go/gojit")
}

// BenchmarkForLoopScalar measures the cost of one iteration of a loop over
// a tiny state (1000 iterations of s += i), which runs in the generated
// loop driver: what remains is two indirect calls of the compiled regions
// per iteration. It reports ns per iteration.
func BenchmarkForLoopScalar(b *testing.B) {
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(1000), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(i.Cast(gojit.Float32))}
			})[0]
	})
	if err != nil {
		b.Fatal(err)
	}
	x := gojit.FromFloat32([]float32{0}, []int{}...)
	out := gojit.New(gojit.Float32)
	if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
		b.Fatal(err)
	}
	if got := out.Data().([]float32)[0]; got != 999*1000/2 {
		b.Fatalf("sum = %g, want %d", got, 999*1000/2)
	}
	b.ResetTimer()
	for range b.N {
		if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/iteration")
}

// BenchmarkForLoopTake is a 1000-iteration loop whose body gathers (a
// permutation of a 64-element state): its kernels check indices, and it
// runs in the generated drivers all the same (a bad index stops them and
// the call runs again from Go, to report it).
func BenchmarkForLoopTake(b *testing.B) {
	perm := make([]int32, 64)
	for k := range perm {
		perm[k] = int32((k * 7) % 64)
	}
	p := gojit.FromInt32(perm, 64)
	f, err := gojit.Compile(func(x, p *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(1000), []*gojit.Tensor{x},
			func(_ *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Take(p, 0).Mul(gojit.Scalar(0.5)).Add(x)}
			})[0]
	})
	if err != nil {
		b.Fatal(err)
	}
	x := gojit.FromFloat32(make([]float32, 64), 64)
	out := gojit.New(gojit.Float32, 64)
	if err := f.CallInto([]*gojit.Array{out}, x, p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := f.CallInto([]*gojit.Array{out}, x, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/iteration")
}

// BenchmarkCondCall measures the per-call cost of a function with control
// flow on tiny arrays, where the call is all there is: a Cond picking
// exp(x) or -x, against the same written with Where (both branches
// computed, no control flow).
func BenchmarkCondCall(b *testing.B) {
	x := gojit.FromFloat32([]float32{1, 2, 3, 4})
	for _, c := range []struct {
		name string
		fn   func(x *gojit.Tensor) *gojit.Tensor
	}{
		{"Cond", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
				func() []*gojit.Tensor { return []*gojit.Tensor{x.Exp()} },
				func() []*gojit.Tensor { return []*gojit.Tensor{x.Neg()} })[0]
		}},
		{"Where", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Where(x.Sum().Greater(gojit.Scalar(0)), x.Exp(), x.Neg())
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f, err := gojit.Compile(c.fn)
			if err != nil {
				b.Fatal(err)
			}
			out := gojit.New(gojit.Float32, 4)
			if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := f.CallInto([]*gojit.Array{out}, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
