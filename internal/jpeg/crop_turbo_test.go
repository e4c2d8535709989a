//go:build cgo && !noturbojpeg

package jpeg

import (
	"image"
	"math/rand/v2"
	"testing"
)

// The tolerance of DecodeCrop against a whole-image decode at the same
// scale (TestDecodeCropVsScaled).
const cropTolMean, cropTolMax = 0.0, 0

// TestDecodeCropAllocs: in the steady state DecodeCrop allocates nothing
// in Go (the decompressor comes from a pool, the pixels go to dst).
func TestDecodeCropAllocs(t *testing.T) {
	data, err := Encode(nil, natural(256, 240, 3, 4), 256, 240, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	src := image.Rect(31, 17, 231, 200)
	dst := make([]byte, MaxCropLen(src, 100, 90, 3))
	if a := testing.AllocsPerRun(50, func() {
		if _, err := DecodeCrop(dst, data, src, 100, 90, 3); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("DecodeCrop allocates %.1f times a call", a)
	}
}

// cropVariants are the decoder tunings BenchmarkDecodeCrop compares.
// Plain (merged) upsampling is left out: with jpeg_crop_scanline and
// jpeg_skip_scanlines, random crops of restart-coded images failed now and
// then with wrong restart markers while the interval tables lived in
// libjpeg's image pool, and never since they moved out of it, so
// libjpeg-turbo 2.1.5 is suspected of writing out of bounds in that mode
// and DecodeCrop never uses it.
var cropVariants = []cropVariant{
	{"islow", tuning{dct: 0, fancy: true, restart: true}, false},
	{"ifast", tuning{dct: 1, fancy: true, restart: true}, false},
	{"float", tuning{dct: 2, fancy: true, restart: true}, false},
	{"restart-islow", tuning{dct: 0, fancy: true, restart: true}, true},
	{"restart-ifast", tuning{dct: 1, fancy: true, restart: true}, true},
	{"restart-unused", tuning{dct: 0, fancy: true, restart: false}, true},
}

// TestTuningAccuracy measures how far the faster decoder tunings land
// from the default (JDCT_ISLOW with fancy upsampling) on the benchmark's
// images, and bounds it: DecodeCrop's doc comment and doc.go quote these
// figures (go test -run TuningAccuracy -v).
func TestTuningAccuracy(t *testing.T) {
	s := newBenchSet(t)
	for _, v := range []cropVariant{
		{"ifast", tuning{dct: 1, fancy: true}, false},
		{"float", tuning{dct: 2, fancy: true}, false},
		{"islow-plain", tuning{dct: 0, fancy: false}, false}, // whole images only: see cropVariants
	} {
		var sum float64
		worst, px := 0, 0
		for i, data := range s.data {
			src := image.Rect(0, 0, s.w[i], s.h[i])
			want := make([]byte, s.w[i]*s.h[i]*3)
			got := make([]byte, len(want))
			if _, err := decodeCrop(want, data, src, 8, 3, defaultTuning); err != nil {
				t.Fatal(err)
			}
			if _, err := decodeCrop(got, data, src, 8, 3, v.t); err != nil {
				t.Fatal(err)
			}
			for k := range want {
				d := int(got[k]) - int(want[k])
				d = max(d, -d)
				sum += float64(d)
				worst = max(worst, d)
			}
			px += len(want)
		}
		t.Logf("%s: %.3f levels on average from islow with fancy upsampling, %d at most", v.name, sum/float64(px), worst)
		if sum/float64(px) > 1.5 {
			t.Errorf("%s: %.3f levels on average from islow with fancy upsampling", v.name, sum/float64(px))
		}
	}
}

// TestDecodeAllocs: Decode and Header allocate nothing in Go either.
func TestDecodeAllocs(t *testing.T) {
	data, err := Encode(nil, natural(64, 48, 3, 4), 64, 48, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 64*48*3)
	if a := testing.AllocsPerRun(50, func() {
		if err := Decode(dst, data, 64, 48, 3); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := Header(data); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Decode and Header allocate %.1f times a call", a)
	}
}

// TestRestartSkip decodes random crops, at random scales, of JPEGs with
// restart markers of several spacings, with and without skipping to the
// restart intervals the crop needs: the pixels must be identical.
func TestRestartSkip(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, perRow := range []int{1, 2, 3, 8, 64} {
		for _, c := range []int{1, 3} {
			w, h := 150+r.IntN(200), 150+r.IntN(200)
			data, err := EncodeWith(nil, natural(w, h, c, uint64(w)), w, h, c, EncodeOptions{Quality: 90, RestartsPerRow: perRow})
			if err != nil {
				t.Fatal(err)
			}
			for _, fancy := range []bool{true} {
				for range 60 {
					x0, y0 := r.IntN(w-1), r.IntN(h-1)
					src := image.Rect(x0, y0, x0+1+r.IntN(w-x0), y0+1+r.IntN(h-y0))
					n := 1 + r.IntN(8)
					on, off := tuning{fancy: fancy, restart: true}, tuning{fancy: fancy}
					got, want := make([]byte, roomFor(src, c)), make([]byte, roomFor(src, c))
					cg, err := decodeCrop(got, data, src, n, c, on)
					if err != nil {
						t.Fatalf("per row %d, c=%d, %v at %d/8: %v", perRow, c, src, n, err)
					}
					cw, err := decodeCrop(want, data, src, n, c, off)
					if err != nil {
						t.Fatal(err)
					}
					gx, gy := bufferOrigin(cg, src)
					wx, wy := bufferOrigin(cw, src)
					mean, worst := diffStats(got, cg, gx-wx, gy-wy, want[:cw.W*cw.H*c], cw.W, c)
					if gy != wy || cg.H != cw.H || worst > 0 {
						t.Fatalf("per row %d, c=%d, fancy %v, %v at %d/8: skipping to restart intervals gives %+v, differing by %.3f (%d at most) from %+v", perRow, c, fancy, src, n, cg, mean, worst, cw)
					}
				}
			}
		}
	}
}
