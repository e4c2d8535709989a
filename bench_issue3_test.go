package gojit_test

// Benchmarks of reductions, row-wise reduce→elementwise fusion (softmax,
// layer norm), transcendental chains and matmul. Each reports, besides
// ns/op, a ratio against a baseline measured in the same process,
// interleaved, best of several rounds (the machine is shared and noisy):
//
//   - x_stream: the kernel's throughput in bytes moved (inputs read plus
//     outputs written) over that of a pure streaming kernel (out = x + 1)
//     compiled by gojit over the same data;
//   - x_1thread: the time of the whole call when the runtime cannot split
//     it (the input processed in pieces below runtime.ParallelWork) over
//     the time of one call that it splits across the worker pool.
//
// Peers measured on the development machine (NumPy/Numba, 2 threads):
// row sum 4096x4096 f32 3.9 ms, row softmax 4096x1024 f32 9.6 ms, matmul
// 1024x1024 f32 with bias and relu 10.4 ms.

import (
	"math"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// bestOf runs each fn reps times per round, rounds times interleaved, and
// returns the best time per call of each.
func bestOf(rounds, reps int, fns ...func()) []time.Duration {
	best := make([]time.Duration, len(fns))
	for i := range best {
		best[i] = time.Duration(math.MaxInt64)
	}
	for range rounds {
		for i, f := range fns {
			start := time.Now()
			for range reps {
				f()
			}
			best[i] = min(best[i], time.Since(start)/time.Duration(reps))
		}
	}
	return best
}

// compiled compiles fn or fails b.
func compiled(b *testing.B, fn any) *gojit.Func {
	b.Helper()
	f, err := gojit.Compile(fn)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// callInto returns a closure calling f into outs, failing b on error.
func callInto(b *testing.B, f *gojit.Func, outs []*gojit.Array, args ...any) func() {
	if err := f.CallInto(outs, args...); err != nil { // compile outside timing
		b.Fatal(err)
	}
	return func() {
		if err := f.CallInto(outs, args...); err != nil {
			b.Fatal(err)
		}
	}
}

func streamKernel(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Scalar(1)) }

// benchVsStream times run b.N times, then reports its throughput relative
// to the streaming kernel over x: moved is the bytes run reads and writes.
func benchVsStream(b *testing.B, x *gojit.Array, moved int, run func()) {
	stream := callInto(b, compiled(b, streamKernel), []*gojit.Array{gojit.New(x.DType(), x.Shape()...)}, x)
	b.SetBytes(int64(moved))
	b.ResetTimer()
	for range b.N {
		run()
	}
	b.StopTimer()
	t := bestOf(5, 3, run, stream)
	streamBytes := 2 * x.Size() * x.DType().Size()
	ratio := (float64(moved) / t[0].Seconds()) / (float64(streamBytes) / t[1].Seconds())
	b.ReportMetric(ratio, "x_stream")
	b.ReportMetric(float64(t[0].Microseconds())/1000, "best_ms")
}

// BenchmarkRowSum is the sum over the last axis of a 4096x4096 float32.
func BenchmarkRowSum(b *testing.B) {
	const r, c = 4096, 4096
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 1), r, c)
	f := compiled(b, func(x *gojit.Tensor) *gojit.Tensor { return x.Sum(-1) })
	out := gojit.New(gojit.Float32, r)
	benchVsStream(b, x, (r*c+r)*4, callInto(b, f, []*gojit.Array{out}, x))
}

// BenchmarkColSum is the sum over the first axis of a 4096x4096 float32.
func BenchmarkColSum(b *testing.B) {
	const r, c = 4096, 4096
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 2), r, c)
	f := compiled(b, func(x *gojit.Tensor) *gojit.Tensor { return x.Sum(0) })
	out := gojit.New(gojit.Float32, c)
	benchVsStream(b, x, (r*c+c)*4, callInto(b, f, []*gojit.Array{out}, x))
}

// softmax is the numerically stable row softmax.
func softmax(x *gojit.Tensor) *gojit.Tensor {
	e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
	return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
}

// layerNorm normalizes each row to mean 0 and variance 1, then scales and
// shifts it.
func layerNorm(x, gamma, beta *gojit.Tensor) *gojit.Tensor {
	d := x.Sub(x.Reduce(gojit.ReduceMean, true, -1))
	v := d.Mul(d).Reduce(gojit.ReduceMean, true, -1)
	return d.Mul(v.Add(gojit.Scalar(1e-5)).Rsqrt()).Mul(gamma).Add(beta)
}

// BenchmarkSoftmax is the row softmax of a 4096x1024 float32.
func BenchmarkSoftmax(b *testing.B) {
	const r, c = 4096, 1024
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 3), r, c)
	f := compiled(b, softmax)
	out := gojit.New(gojit.Float32, r, c)
	benchVsStream(b, x, 2*r*c*4, callInto(b, f, []*gojit.Array{out}, x))
}

// BenchmarkLayerNorm is layer normalization of a 4096x1024 float32.
func BenchmarkLayerNorm(b *testing.B) {
	const r, c = 4096, 1024
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 4), r, c)
	gamma := gojit.FromFloat32(bench.RandFloat32(c, 5), c)
	beta := gojit.FromFloat32(bench.RandFloat32(c, 6), c)
	f := compiled(b, layerNorm)
	out := gojit.New(gojit.Float32, r, c)
	benchVsStream(b, x, 2*r*c*4, callInto(b, f, []*gojit.Array{out}, x, gamma, beta))
}

// BenchmarkStream is the streaming kernel itself (out = x + 1 over
// 4096x4096 float32), the baseline of the x_stream ratios.
func BenchmarkStream(b *testing.B) {
	const r, c = 4096, 4096
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 7), r, c)
	f := compiled(b, streamKernel)
	benchVsStream(b, x, 2*r*c*4, callInto(b, f, []*gojit.Array{gojit.New(gojit.Float32, r, c)}, x))
}

// expChain is a compute-bound elementwise chain of transcendental ops.
func expChain(x *gojit.Tensor) *gojit.Tensor {
	return x.Mul(gojit.Scalar(0.5)).Exp().Add(x.Tanh()).Sigmoid()
}

// BenchmarkExpChainThreads runs expChain over 1e6 float32 and reports the
// speedup of the default (split across the pool's threads) over the same
// call limited to one thread with WithThreads(1).
func BenchmarkExpChainThreads(b *testing.B) {
	const n = 1_000_000
	data := bench.RandFloat32(n, 8)
	x := gojit.FromFloat32(data, n)
	out := gojit.New(gojit.Float32, n)
	f := compiled(b, expChain)
	whole := callInto(b, f, []*gojit.Array{out}, x)
	one, err := gojit.Compile(expChain, gojit.WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	serial := callInto(b, one, []*gojit.Array{gojit.New(gojit.Float32, n)}, x)
	b.SetBytes(n * 8)
	b.ResetTimer()
	for range b.N {
		whole()
	}
	b.StopTimer()
	t := bestOf(15, 5, whole, serial)
	b.ReportMetric(t[1].Seconds()/t[0].Seconds(), "x_1thread")
	b.ReportMetric(float64(n)/t[1].Seconds()/1e9, "Gelem/s_1thread")
}

// BenchmarkMatMulBiasRelu is relu(a·w + bias) for 1024x1024 float32.
func BenchmarkMatMulBiasRelu(b *testing.B) {
	const n = 1024
	a := gojit.FromFloat32(bench.RandFloat32(n*n, 9), n, n)
	w := gojit.FromFloat32(bench.RandFloat32(n*n, 10), n, n)
	bias := gojit.FromFloat32(bench.RandFloat32(n, 11), n)
	f := compiled(b, func(a, w, bias *gojit.Tensor) *gojit.Tensor { return a.MatMul(w).Add(bias).Relu() })
	run := callInto(b, f, []*gojit.Array{gojit.New(gojit.Float32, n, n)}, a, w, bias)
	b.ResetTimer()
	for range b.N {
		run()
	}
	b.StopTimer()
	t := bestOf(3, 2, run)
	b.ReportMetric(float64(t[0].Microseconds())/1000, "best_ms")
	b.ReportMetric(2*n*n*n/t[0].Seconds()/1e9, "GFLOP/s")
}
