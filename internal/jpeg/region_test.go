package jpeg

import (
	"image"
	"strings"
	"testing"
)

// boxResize is the test's reference: full-decode pixels (iw wide, c
// channels) of rectangle src averaged over the area each output pixel
// covers (an area filter, not the bilinear resampling DecodeRegion uses).
func boxResize(full []byte, iw, c int, src image.Rectangle, w, h int) []byte {
	out := make([]byte, w*h*c)
	fx, fy := float64(src.Dx())/float64(w), float64(src.Dy())/float64(h)
	for j := range h {
		for i := range w {
			x0, x1 := float64(src.Min.X)+float64(i)*fx, float64(src.Min.X)+float64(i+1)*fx
			y0, y1 := float64(src.Min.Y)+float64(j)*fy, float64(src.Min.Y)+float64(j+1)*fy
			for k := range c {
				var sum, area float64
				for y := int(y0); float64(y) < y1; y++ {
					wy := min(y1, float64(y+1)) - max(y0, float64(y))
					for x := int(x0); float64(x) < x1; x++ {
						wx := min(x1, float64(x+1)) - max(x0, float64(x))
						sum += wx * wy * float64(full[(y*iw+x)*c+k])
						area += wx * wy
					}
				}
				out[(j*w+i)*c+k] = uint8(sum/area + 0.5)
			}
		}
	}
	return out
}

// TestDecodeRegion decodes crops of several sizes, with and without DCT
// scaling (in the libjpeg-turbo build), gray and RGB, and compares each
// with an area average of the same rectangle of a full decode.
func TestDecodeRegion(t *testing.T) {
	const iw, ih = 203, 157 // not multiples of the 16-pixel iMCU
	for _, c := range []int{1, 3} {
		data, err := Encode(nil, smooth(iw, ih, c), iw, ih, c, 95)
		if err != nil {
			t.Fatal(err)
		}
		full := make([]byte, iw*ih*c)
		if err := Decode(full, data, iw, ih, c); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			src  image.Rectangle
			w, h int
		}{
			{image.Rect(0, 0, iw, ih), iw, ih},       // everything, no scaling
			{image.Rect(0, 0, iw, ih), 50, 39},       // whole image, scaled 2/8
			{image.Rect(37, 21, 181, 140), 36, 30},   // crop, scaled down
			{image.Rect(37, 21, 181, 140), 100, 90},  // crop, almost full size
			{image.Rect(7, 5, 61, 44), 13, 9},        // small crop near the corner
			{image.Rect(150, 100, 203, 157), 20, 20}, // at the far edges
			{image.Rect(90, 60, 110, 75), 40, 30},    // enlarged
			{image.Rect(0, 140, 203, 157), 101, 8},   // a strip at the bottom
		} {
			got := make([]byte, tc.w*tc.h*c)
			if err := DecodeRegion(got, data, tc.src, tc.w, tc.h, c); err != nil {
				t.Fatalf("c=%d %v -> %dx%d: %v", c, tc.src, tc.h, tc.w, err)
			}
			want := boxResize(full, iw, c, tc.src, tc.w, tc.h)
			if d := meanAbsDiff(got, want); d > 2 {
				t.Errorf("c=%d %v -> %dx%d: differs from an area average of the full decode by %.2f per channel", c, tc.src, tc.h, tc.w, d)
			}
		}
	}
}

// TestDecodeRegionErrors: a region outside the image, a bad destination
// and a damaged stream are errors.
func TestDecodeRegionErrors(t *testing.T) {
	const iw, ih = 64, 48
	data, err := Encode(nil, smooth(iw, ih, 3), iw, ih, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"outside", DecodeRegion(make([]byte, 8*8*3), data, image.Rect(60, 0, 70, 10), 8, 8, 3), "outside the 48x64 image"},
		{"empty region", DecodeRegion(make([]byte, 8*8*3), data, image.Rect(5, 5, 5, 10), 8, 8, 3), "empty"},
		{"short dst", DecodeRegion(make([]byte, 10), data, image.Rect(0, 0, 10, 10), 8, 8, 3), "destination"},
		{"truncated", DecodeRegion(make([]byte, 8*8*3), data[:len(data)/2], image.Rect(0, 0, 64, 48), 8, 8, 3), "jpeg"},
		{"garbage", DecodeRegion(make([]byte, 8*8*3), []byte("not a jpeg"), image.Rect(0, 0, 8, 8), 8, 8, 3), "jpeg"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, c.err, c.want)
		}
	}
}

// BenchmarkDecodeRegion decodes a 256x256 crop of a 512x384 RGB JPEG to
// 64x64, against BenchmarkDecodeFull, the full decode it replaces (the
// ratio is the figure: run both in one go test invocation).
func BenchmarkDecodeRegion(b *testing.B) {
	const iw, ih = 512, 384
	data, err := Encode(nil, smooth(iw, ih, 3), iw, ih, 3, 90)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 64*64*3)
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeRegion(dst, data, image.Rect(100, 60, 356, 316), 64, 64, 3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFull is the baseline for BenchmarkDecodeRegion.
func BenchmarkDecodeFull(b *testing.B) {
	const iw, ih = 512, 384
	data, err := Encode(nil, smooth(iw, ih, 3), iw, ih, 3, 90)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, iw*ih*3)
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(dst, data, iw, ih, 3); err != nil {
			b.Fatal(err)
		}
	}
}
