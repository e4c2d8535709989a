//go:build !cgo || noturbojpeg

package jpeg

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	stdjpeg "image/jpeg"
)

// Backend names the JPEG codec in this build: "libjpeg-turbo" or
// "image/jpeg".
const Backend = "image/jpeg"

// Encode compresses interleaved 8-bit pixels (c = 1 gray or 3 RGB,
// rows top to bottom) at quality 1..100 and appends the JPEG to dst.
// RGB is subsampled 4:2:0, gray is stored as one component: the same
// semantics as the libjpeg-turbo build, through Go's image/jpeg.
func Encode(dst, pix []byte, w, h, c, quality int) ([]byte, error) {
	if len(pix) != w*h*c || w <= 0 || h <= 0 {
		return dst, fmt.Errorf("jpeg: %d bytes for %dx%dx%d pixels", len(pix), h, w, c)
	}
	var img image.Image
	if c == 1 {
		img = &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
	} else {
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		for i, j := 0, 0; i < len(pix); i, j = i+3, j+4 {
			rgba.Pix[j], rgba.Pix[j+1], rgba.Pix[j+2], rgba.Pix[j+3] = pix[i], pix[i+1], pix[i+2], 255
		}
		img = rgba
	}
	buf := bytes.NewBuffer(dst)
	if err := stdjpeg.Encode(buf, img, &stdjpeg.Options{Quality: quality}); err != nil {
		return dst, fmt.Errorf("jpeg: encoding: %v", err)
	}
	return buf.Bytes(), nil
}

// Header returns a JPEG's width and height and whether it is grayscale.
func Header(data []byte) (w, h int, gray bool, err error) {
	if len(data) == 0 {
		return 0, 0, false, errors.New("jpeg: empty data")
	}
	cfg, err := stdjpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false, fmt.Errorf("jpeg: %v", err)
	}
	return cfg.Width, cfg.Height, cfg.ColorModel == color.GrayModel, nil
}

// Decode decompresses data into dst, which holds exactly w*h*c bytes
// (c = 1 or 3); the JPEG must be w by h.
func Decode(dst, data []byte, w, h, c int) error {
	if len(dst) != w*h*c || (c != 1 && c != 3) {
		return fmt.Errorf("jpeg: destination of %d bytes for %dx%dx%d pixels", len(dst), h, w, c)
	}
	img, err := stdjpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("jpeg: decoding: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		return fmt.Errorf("jpeg: image is %dx%d, metadata says %dx%d", b.Dy(), b.Dx(), h, w)
	}
	imagePixels(dst, img, w, h, c)
	return nil
}
