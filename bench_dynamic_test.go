package gojit_test

import (
	"fmt"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// BenchmarkDynamicDense is relu(x·w + bias) for x of batch x 512 and w of
// 512 x 512 float32, compiled once with a dynamic batch axis. x_static is
// the time of the kernel compiled for the batch's static shape over the
// dynamic kernel's, measured in the same process, interleaved, best of
// several rounds (above 1: the dynamic kernel is faster).
func BenchmarkDynamicDense(b *testing.B) {
	const k, n = 512, 512
	dense := func(x, w, bias *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Add(bias).Relu() }
	w := gojit.FromFloat32(bench.RandFloat32(k*n, 10), k, n)
	bias := gojit.FromFloat32(bench.RandFloat32(n, 11), n)
	dyn, err := gojit.Compile(dense, gojit.WithDynamicDim(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{1, 7, 100, 1000} {
		b.Run(fmt.Sprint(batch), func(b *testing.B) {
			x := gojit.FromFloat32(bench.RandFloat32(batch*k, 9), batch, k)
			out := []*gojit.Array{gojit.New(gojit.Float32, batch, n)}
			static := callInto(b, compiled(b, dense), out, x, w, bias)
			run := callInto(b, dyn, out, x, w, bias)
			b.ResetTimer()
			for range b.N {
				run()
			}
			b.StopTimer()
			t := bestOf(5, max(1, 2000/batch), run, static)
			b.ReportMetric(t[1].Seconds()/t[0].Seconds(), "x_static")
		})
	}
}
