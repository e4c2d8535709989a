package gojit_test

// BenchmarkResizeBilinear times the data pipeline's image stage
// (resizeTrace: crop, bilinear resize, flip, normalize, HWC -> CHW) over a
// batch of 64 images of 256x256x3 uint8 resized to 224x224, against
// resizeGo, the plain Go loop doing the same arithmetic, measured in the
// same run and interleaved (bestOf). It reports the time per image
// (us/image), per output element (ns/elem) and x_go_loop = Go time /
// gojit time, on one thread and on the default number, for the trace
// written in CHW directly (layout=chw) and as an HWC resize followed by
// a Transpose (layout=hwc).

import (
	"fmt"
	"testing"

	"github.com/gojit/gojit"
)

func BenchmarkResizeBilinear(b *testing.B) {
	const B, H, W, S = 64, 256, 256, 224
	var sizes [][2]int
	var boxes [][5]float32
	for k := range B {
		h, w := 256-k%7, 250+k%6
		sizes = append(sizes, [2]int{h, w})
		boxes = append(boxes, [5]float32{float32(k % 13), float32(k % 17), float32(w - k%11), float32(h - k%5), float32(k % 2)})
	}
	x, sh, p := resizeInputs(1, B, H, W, sizes, boxes)
	goOut := make([]float32, B*3*S*S)
	xs, shs, ps := x.Uint8(), sh.Int32(), p.Float32()
	goLoop := func() { resizeGo(goOut, xs, shs, ps, B, H, W, S) }
	goLoop()
	for _, layout := range []string{"chw", "hwc"} {
		for _, threads := range []int{1, 0} {
			name := "threads=default"
			if threads == 1 {
				name = "threads=1"
			}
			b.Run(fmt.Sprintf("layout=%s/%s", layout, name), func(b *testing.B) {
				f, err := gojit.Compile(resizeTrace(B, H, W, S, layout == "hwc"), gojit.WithThreads(threads))
				if err != nil {
					b.Fatal(err)
				}
				out := []*gojit.Array{gojit.New(gojit.Float32, B, 3, S, S)}
				call := callInto(b, f, out, x, sh, p)
				for i, v := range out[0].Float32() {
					if v != goOut[i] {
						b.Fatalf("element %d = %v, the Go loop gives %v", i, v, goOut[i])
					}
				}
				b.ResetTimer()
				for b.Loop() {
					call()
				}
				b.StopTimer()
				best := bestOf(5, 2, call, goLoop)
				b.ReportMetric(float64(best[1])/float64(best[0]), "x_go_loop")
				b.ReportMetric(best[0].Seconds()*1e6/B, "us/image")
				b.ReportMetric(best[0].Seconds()*1e9/float64(B*3*S*S), "ns/elem")
				b.ReportMetric(best[1].Seconds()*1e9/float64(B*3*S*S), "go_ns/elem")
			})
		}
	}
}
