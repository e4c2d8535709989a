package dataset

import (
	"bytes"
	"image/jpeg"

	ijpeg "github.com/gojit/gojit/internal/jpeg"
	"testing"
)

// BenchmarkDecodeJPEG decodes a 64x64 RGB JPEG into a reused buffer.
func BenchmarkDecodeJPEG(b *testing.B) {
	pix, w, h, err := appendPixels(nil, smooth(64, 64, false), 3, 0)
	if err != nil {
		b.Fatal(err)
	}
	data, err := ijpeg.Encode(nil, pix, w, h, 3, 90)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, len(pix))
	b.SetBytes(int64(len(pix)))
	for b.Loop() {
		if err := ijpeg.Decode(dst, data, w, h, 3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJPEGStdlib is the same decode with Go's image/jpeg, the
// baseline for BenchmarkDecodeJPEG.
func BenchmarkDecodeJPEGStdlib(b *testing.B) {
	pix, w, h, err := appendPixels(nil, smooth(64, 64, false), 3, 0)
	if err != nil {
		b.Fatal(err)
	}
	data, err := ijpeg.Encode(nil, pix, w, h, 3, 90)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pix)))
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendPixelsRGB converts a 64x64 *image.RGBA to raw RGB, the
// writer's main work for raw image fields.
func BenchmarkAppendPixelsRGB(b *testing.B) {
	img := testImage("rgba", 64, 64, 1)
	buf := make([]byte, 0, 64*64*3)
	b.SetBytes(64 * 64 * 3)
	for b.Loop() {
		if _, _, _, err := appendPixels(buf[:0], img, 3, 0); err != nil {
			b.Fatal(err)
		}
	}
}
