package jpeg

import (
	"image"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// benchSet is the benchmarks' data: JPEGs about 256 pixels a side (each
// side 224..320), quality 90, 4:2:0, natural-looking content, each with
// crop boxes drawn like torchvision's RandomResizedCrop(224, scale=(0.08,
// 1), ratio=(3/4, 4/3)) and its center crop of 224/256 of the short side.
type benchSet struct {
	data   [][]byte
	rst    [][]byte // the same pixels with 16 restart intervals a row
	w, h   []int
	random [][]image.Rectangle
	center []image.Rectangle
}

func newBenchSet(tb testing.TB) *benchSet {
	tb.Helper()
	r := rand.New(rand.NewPCG(11, 13))
	s := &benchSet{}
	for i := range 24 {
		w, h := 224+r.IntN(97), 224+r.IntN(97)
		data, err := Encode(nil, natural(w, h, 3, uint64(i)), w, h, 3, 90)
		if err != nil {
			tb.Fatal(err)
		}
		rst, err := EncodeWith(nil, natural(w, h, 3, uint64(i)), w, h, 3, EncodeOptions{Quality: 90, RestartsPerRow: 16})
		if err != nil {
			tb.Fatal(err)
		}
		s.data, s.rst, s.w, s.h = append(s.data, data), append(s.rst, rst), append(s.w, w), append(s.h, h)
		var boxes []image.Rectangle
		for range 16 {
			boxes = append(boxes, randomResizedCrop(r, w, h))
		}
		s.random = append(s.random, boxes)
		side := int(math.Round(0.875 * float64(min(w, h))))
		s.center = append(s.center, image.Rect((w-side)/2, (h-side)/2, (w-side)/2+side, (h-side)/2+side))
	}
	return s
}

// randomResizedCrop draws a box of a w by h image as torchvision's
// RandomResizedCrop.get_params does with scale (0.08, 1) and ratio (3/4,
// 4/3): ten tries at a random area and log-uniform aspect, then a
// central crop.
func randomResizedCrop(r *rand.Rand, w, h int) image.Rectangle {
	area := float64(w * h)
	lo, hi := math.Log(3.0/4), math.Log(4.0/3)
	for range 10 {
		target := area * (0.08 + 0.92*r.Float64())
		aspect := math.Exp(lo + (hi-lo)*r.Float64())
		cw := int(math.Round(math.Sqrt(target * aspect)))
		ch := int(math.Round(math.Sqrt(target / aspect)))
		if cw > 0 && cw <= w && ch > 0 && ch <= h {
			x, y := r.IntN(w-cw+1), r.IntN(h-ch+1)
			return image.Rect(x, y, x+cw, y+ch)
		}
	}
	cw, ch := w, h
	if in := float64(w) / float64(h); in < 3.0/4 {
		ch = int(math.Round(float64(w) / (3.0 / 4)))
	} else if in > 4.0/3 {
		cw = int(math.Round(float64(h) * 4 / 3))
	}
	return image.Rect((w-cw)/2, (h-ch)/2, (w-cw)/2+cw, (h-ch)/2+ch)
}

// cropVariant is one way of decoding crops that BenchmarkDecodeCrop times.
type cropVariant struct {
	name string
	t    tuning
	rst  bool // decode the JPEGs with restart markers (benchSet.rst)
}

// BenchmarkDecodeCrop times, single-threaded, in the same loop and in the
// thread's CPU time so the ratios hold on a shared machine, the full decode (Decode, the
// baseline) and DecodeCrop of the random and the center crop boxes to
// 224x224, and DecodeCrop of the whole image at full scale, for each
// decoder tuning; the variants named restart decode the same pixels
// encoded with restart markers, against the same baseline (Decode of the
// JPEG without them). It reports images/s of the full decode and of the random
// crops, and the time of each DecodeCrop as a fraction of the full
// decode's.
func BenchmarkDecodeCrop(b *testing.B) {
	s := newBenchSet(b)
	full := make([]byte, 320*320*3)
	dst := make([]byte, MaxCropLen(image.Rect(0, 0, 320, 320), 0, 0, 3))
	for _, v := range cropVariants {
		b.Run(v.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var tFull, tRandom, tCenter, tWhole time.Duration
			k := 0
			for b.Loop() {
				i := k % len(s.data)
				data := s.data[i]
				if v.rst {
					data = s.rst[i]
				}
				box := s.random[i][(k/len(s.data))%len(s.random[i])]
				k++
				t0 := threadCPU()
				if err := Decode(full[:s.w[i]*s.h[i]*3], s.data[i], s.w[i], s.h[i], 3); err != nil {
					b.Fatal(err)
				}
				t1 := threadCPU()
				if _, err := decodeCrop(dst, data, box, CropScale(box, 224, 224), 3, v.t); err != nil {
					b.Fatal(err)
				}
				t2 := threadCPU()
				if _, err := decodeCrop(dst, data, s.center[i], CropScale(s.center[i], 224, 224), 3, v.t); err != nil {
					b.Fatal(err)
				}
				t3 := threadCPU()
				if _, err := decodeCrop(dst, data, image.Rect(0, 0, s.w[i], s.h[i]), 8, 3, v.t); err != nil {
					b.Fatal(err)
				}
				t4 := threadCPU()
				tFull, tRandom, tCenter, tWhole = tFull+(t1-t0), tRandom+(t2-t1), tCenter+(t3-t2), tWhole+(t4-t3)
			}
			b.ReportMetric(float64(k)/tFull.Seconds(), "full-img/s")
			b.ReportMetric(float64(k)/tRandom.Seconds(), "random-img/s")
			b.ReportMetric(tRandom.Seconds()/tFull.Seconds(), "random/full")
			b.ReportMetric(tCenter.Seconds()/tFull.Seconds(), "center/full")
			b.ReportMetric(tWhole.Seconds()/tFull.Seconds(), "whole/full")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkSkippedRow measures what a row passed over by
// jpeg_skip_scanlines costs against a decoded one, on 256x256 JPEGs: the
// thread's CPU time to decode only the last row (skipping all others) and the whole
// image, less the time to decode only the first, per row, as a fraction
// of the full decode's per-row time.
func BenchmarkSkippedRow(b *testing.B) {
	const n = 256
	var data [][]byte
	for i := range 8 {
		d, err := Encode(nil, natural(n, n, 3, uint64(100+i)), n, n, 3, 90)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	dst := make([]byte, n*n*3)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var tFirst, tLast, tAll time.Duration
	k := 0
	for b.Loop() {
		d := data[k%len(data)]
		k++
		t0 := threadCPU()
		if _, err := DecodeCrop(dst, d, image.Rect(0, 0, n, 1), 0, 0, 3); err != nil {
			b.Fatal(err)
		}
		t1 := threadCPU()
		if _, err := DecodeCrop(dst, d, image.Rect(0, n-1, n, n), 0, 0, 3); err != nil {
			b.Fatal(err)
		}
		t2 := threadCPU()
		if _, err := DecodeCrop(dst, d, image.Rect(0, 0, n, n), 0, 0, 3); err != nil {
			b.Fatal(err)
		}
		t3 := threadCPU()
		tFirst, tLast, tAll = tFirst+(t1-t0), tLast+(t2-t1), tAll+(t3-t2)
	}
	skip := (tLast - tFirst).Seconds() / (n - 1)
	row := (tAll - tFirst).Seconds() / (n - 1)
	b.ReportMetric(skip/row, "skipped/decoded-row")
	b.ReportMetric(tFirst.Seconds()/tAll.Seconds(), "first-row/full")
	b.ReportMetric(0, "ns/op")
}
