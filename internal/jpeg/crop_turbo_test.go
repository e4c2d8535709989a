//go:build cgo && !noturbojpeg

package jpeg

import (
	"image"
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
var cropVariants = []cropVariant{
	{"islow-fancy", tuning{dct: 0, fancy: true}},
	{"ifast-fancy", tuning{dct: 1, fancy: true}},
	{"float-fancy", tuning{dct: 2, fancy: true}},
	{"islow-plain", tuning{dct: 0, fancy: false}},
	{"ifast-plain", tuning{dct: 1, fancy: false}},
}

// TestTuningAccuracy measures how far the faster decoder tunings land
// from the default (JDCT_ISLOW with fancy upsampling) on the benchmark's
// images, and bounds it: DecodeCrop's doc comment and doc.go quote these
// figures (go test -run TuningAccuracy -v).
func TestTuningAccuracy(t *testing.T) {
	s := newBenchSet(t)
	for _, v := range cropVariants[1:] {
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
		t.Logf("%s: %.3f levels on average from %s, %d at most", v.name, sum/float64(px), cropVariants[0].name, worst)
		if sum/float64(px) > 1.5 {
			t.Errorf("%s: %.3f levels on average from %s", v.name, sum/float64(px), cropVariants[0].name)
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
