package gojit_test

// BenchmarkResizeBilinear times the data pipeline's image stage
// (resizeTrace: crop, bilinear resize, flip, normalize, HWC -> CHW) over a
// batch of 64 images of 256x256x3 uint8 resized to 224x224, against
// resizeGo, the plain Go loop doing the same arithmetic, measured in the
// same run and interleaved (bestOf). It reports the time per image
// (us/image), per output element (ns/elem) and x_go_loop = Go time /
// gojit time, on one thread and on the default number, for the trace
// written in CHW directly (layout=chw) and as an HWC resize followed by
// a Transpose (layout=hwc), and for the HWC resize itself, f32[B,S,S,3]
// (layout=hwc_out), whose innermost axis is the 3 channels. x_go_tuned compares with resizeGoTuned, the
// same arithmetic with the column terms computed once per image.

import (
	"fmt"
	"math"
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
	tunedOut := make([]float32, B*3*S*S)
	tuned := func() { resizeGoTuned(tunedOut, xs, shs, ps, B, H, W, S) }
	tuned()
	for i, v := range tunedOut {
		if v != goOut[i] {
			b.Fatalf("tuned Go loop: element %d = %v, want %v", i, v, goOut[i])
		}
	}
	for _, layout := range []string{"chw", "hwc", "hwc_out"} {
		for _, threads := range []int{1, 0} {
			name := "threads=default"
			if threads == 1 {
				name = "threads=1"
			}
			b.Run(fmt.Sprintf("layout=%s/%s", layout, name), func(b *testing.B) {
				f, err := gojit.Compile(resizeTrace(B, H, W, S, layout), gojit.WithThreads(threads))
				if err != nil {
					b.Fatal(err)
				}
				shape := []int{B, 3, S, S}
				if layout == "hwc_out" {
					shape = []int{B, S, S, 3}
				}
				out := []*gojit.Array{gojit.New(gojit.Float32, shape...)}
				call := callInto(b, f, out, x, sh, p)
				got := out[0].Float32()
				if layout == "hwc_out" {
					got = toCHW(got, B, S)
				}
				for i, v := range got {
					if v != goOut[i] {
						b.Fatalf("element %d = %v, the Go loop gives %v", i, v, goOut[i])
					}
				}
				b.ResetTimer()
				for b.Loop() {
					call()
				}
				b.StopTimer()
				best := bestOf(5, 2, call, goLoop, tuned)
				b.ReportMetric(float64(best[1])/float64(best[0]), "x_go_loop")
				b.ReportMetric(float64(best[2])/float64(best[0]), "x_go_tuned")
				b.ReportMetric(best[0].Seconds()*1e6/B, "us/image")
				b.ReportMetric(best[0].Seconds()*1e9/float64(B*3*S*S), "ns/elem")
				b.ReportMetric(best[1].Seconds()*1e9/float64(B*3*S*S), "go_ns/elem")
			})
		}
	}
}

// resizeGoTuned is resizeGo with what depends on the output column alone
// (the source columns and their weight) computed once per image, as a
// careful hand-written loop would; the results are the same.
func resizeGoTuned(out []float32, x []uint8, shapes []int32, p []float32, B, H, W, S int) {
	const C = 3
	f := func(v float32) float32 { return v }
	clamp := func(v, hi float32) float32 { return min(max(v, 0), hi) }
	c0s, c1s, txs := make([]int, S), make([]int, S), make([]float32, S)
	for b := range B {
		x0, y0, x1, y1, fl := p[5*b], p[5*b+1], p[5*b+2], p[5*b+3], p[5*b+4]
		bh, bw := float32(shapes[3*b]), float32(shapes[3*b+1])
		scy, scx := f((y1-y0)/float32(S)), f((x1-x0)/float32(S))
		for k := range S {
			j := float32(k)
			if fl > 0.5 {
				j = float32(S-1) - j
			}
			sx := clamp(f(x0+f(f(j+0.5)*scx))-0.5, bw-1)
			fx := float32(math.Floor(float64(sx)))
			txs[k], c0s[k], c1s[k] = sx-fx, int(fx)*C, int(min(fx+1, bw-1))*C
		}
		img := x[b*H*W*C : (b+1)*H*W*C]
		for c := range C {
			mean := float32(c) + 120
			for i := range S {
				sy := clamp(f(y0+f(f(float32(i)+0.5)*scy))-0.5, bh-1)
				fy := float32(math.Floor(float64(sy)))
				ty := sy - fy
				r0, r1 := img[int(fy)*W*C+c:], img[int(min(fy+1, bh-1))*W*C+c:]
				o := out[((b*C+c)*S+i)*S:][:S]
				for k := range o {
					c0, c1, tx := c0s[k], c1s[k], txs[k]
					a, b2 := float32(r0[c0]), float32(r0[c1])
					c2, d := float32(r1[c0]), float32(r1[c1])
					top := a + f((b2-a)*tx)
					bot := c2 + f((d-c2)*tx)
					v := top + f((bot-top)*ty)
					o[k] = (v - mean) / 58
				}
			}
		}
	}
}
