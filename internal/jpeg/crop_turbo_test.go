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
