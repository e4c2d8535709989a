package runtime

import (
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// BenchmarkTargets runs kernels built portable and for this host
// (codegen.Target: AVX-512's VSCALEF exp, float32 and float64, and the
// reciprocal division of internal/codegen/divide.go), interleaved in one process, and reports the
// host code's speedup as x_portable (best of several rounds each):
//
//	go test ./internal/runtime -run '^$' -bench Targets
func BenchmarkTargets(b *testing.B) {
	if !llvm.Available() {
		b.Skip("no LLVM in this build")
	}
	const rows, cols = 4096, 1024
	kernels := []struct{ name, text string }{
		{"softmax", `graph {
  %%0 = param 0 : f32[%[1]d,%[2]d]
  %%1 = reduce_max %%0 axes=[1] : f32[%[1]d]
  %%2 = reshape %%1 : f32[%[1]d,1]
  %%3 = broadcast %%2 : f32[%[1]d,%[2]d]
  %%4 = sub %%0, %%3 : f32[%[1]d,%[2]d]
  %%5 = exp %%4 : f32[%[1]d,%[2]d]
  %%6 = reduce_sum %%5 axes=[1] : f32[%[1]d]
  %%7 = reshape %%6 : f32[%[1]d,1]
  %%8 = broadcast %%7 : f32[%[1]d,%[2]d]
  %%9 = div %%5, %%8 : f32[%[1]d,%[2]d]
  return %%9
}`},
		{"exp", `graph {
  %%0 = param 0 : f32[%[1]d,%[2]d]
  %%1 = exp %%0 : f32[%[1]d,%[2]d]
  return %%1
}`},
		{"exp-f64", `graph {
  %%0 = param 0 : f64[%[1]d,%[2]d]
  %%1 = exp %%0 : f64[%[1]d,%[2]d]
  return %%1
}`},
		{"div-row", `graph {
  %%0 = param 0 : f32[%[1]d,%[2]d]
  %%1 = reduce_sum %%0 axes=[1] : f32[%[1]d]
  %%2 = reshape %%1 : f32[%[1]d,1]
  %%3 = broadcast %%2 : f32[%[1]d,%[2]d]
  %%4 = div %%0, %%3 : f32[%[1]d,%[2]d]
  return %%4
}`},
	}
	x := make([]float32, rows*cols)
	x64 := make([]float64, rows*cols)
	for i := range x {
		x[i] = float32(math.Sin(float64(i))) * 4
		x64[i] = float64(x[i])
	}
	out := make([]float64, rows*cols) // room for either dtype
	for _, k := range kernels {
		g, err := ir.Parse(fmt.Sprintf(k.text, rows, cols))
		if err != nil {
			b.Fatal(err)
		}
		var runs [2]func()
		for i, opt := range []Options{{OptLevel: 3, Portable: true}, {OptLevel: 3}} {
			exe, err := Build(g, opt)
			if err != nil {
				b.Fatal(err)
			}
			in := unsafe.Pointer(&x[0])
			if exe.Graph.Nodes[0].DType == ir.Float64 {
				in = unsafe.Pointer(&x64[0])
			}
			runs[i] = func() {
				if err := exe.Run([]unsafe.Pointer{in}, []unsafe.Pointer{unsafe.Pointer(&out[0])}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(k.name, func(b *testing.B) {
			for range b.N {
				runs[1]()
			}
			b.StopTimer()
			best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
			for range 15 {
				for i, run := range runs {
					start := time.Now()
					for range 3 {
						run()
					}
					best[i] = min(best[i], time.Since(start)/3)
				}
			}
			b.ReportMetric(float64(best[1].Microseconds())/1000, "best_ms")
			b.ReportMetric(best[0].Seconds()/best[1].Seconds(), "x_portable")
		})
	}
}
