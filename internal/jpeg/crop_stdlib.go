//go:build !cgo || noturbojpeg

package jpeg

import (
	"bytes"
	"fmt"
	"image"
	stdjpeg "image/jpeg"
)

// DecodeCrop decodes rectangle src of a JPEG (in the image's pixel
// coordinates) into dst at the largest DCT reduction that keeps it at
// least outW by outH (CropScale; outW or outH <= 0 means full scale), as
// c = 1 (gray or luma) or 3 (RGB) channels, for a resize done afterwards
// by the caller; Crop says where the pixels landed.
//
// This build has the semantics of the libjpeg-turbo one through
// image/jpeg, with these differences: it decodes the whole image (and
// allocates it); it mimics the DCT scale n/8 by averaging each scaled
// pixel's area [8i/n, 8(i+1)/n) of the full decode (a box filter, where
// libjpeg-turbo's scaled inverse DCT keeps the block's low frequencies:
// the two agree within a few levels on natural images, less well on hard
// edges); and its buffer is exactly the scaled rectangle's pixels, with
// no iMCU margin. CMYK and YCCK JPEGs are converted as image.CMYK does,
// which matches the other build. Corrupt or truncated data is an error
// wherever it is; dst too small is an error wrapping ErrDstTooSmall.
func DecodeCrop(dst, data []byte, src image.Rectangle, outW, outH, c int) (Crop, error) {
	return decodeCrop(dst, data, src, CropScale(src, outW, outH), c, defaultTuning)
}

// tuning stands for the libjpeg decoder settings of the other build; this
// build has none.
type tuning struct{}

var defaultTuning tuning

// decodeCrop is DecodeCrop at scale n/8.
func decodeCrop(dst, data []byte, src image.Rectangle, n, c int, _ tuning) (Crop, error) {
	if err := checkCropArgs(data, c); err != nil {
		return Crop{}, err
	}
	cfg, err := stdjpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Crop{}, fmt.Errorf("jpeg: %v", err)
	}
	iw, ih := cfg.Width, cfg.Height
	if src.Empty() || !src.In(image.Rect(0, 0, iw, ih)) {
		return Crop{}, outsideError(src, iw, ih)
	}
	x0, x1 := scaledSpan(src.Min.X, src.Max.X, n, (iw*n+7)/8)
	y0, y1 := scaledSpan(src.Min.Y, src.Max.Y, n, (ih*n+7)/8)
	cr := cropResult(src, n, x0, y0, x1-x0, y1-y0)
	if need := cr.W * cr.H * c; len(dst) < need {
		return Crop{}, tooSmallError(len(dst), need, cr)
	}
	img, err := stdjpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return Crop{}, fmt.Errorf("jpeg: decoding region %v: %v", src, err)
	}
	full := make([]byte, iw*ih*c)
	imagePixels(full, img, iw, ih, c)
	boxScale(dst, full, iw, ih, c, n, image.Rect(x0, y0, x1, y1))
	return cr, nil
}

// decodeScaled decodes the whole JPEG scaled by n/8 as c channels,
// returning the pixels and their size.
func decodeScaled(data []byte, n, c int) ([]byte, int, int, error) {
	iw, ih, _, err := Header(data)
	if err != nil {
		return nil, 0, 0, err
	}
	sw, sh := (iw*n+7)/8, (ih*n+7)/8
	pix := make([]byte, sw*sh*c)
	if _, err := decodeCrop(pix, data, image.Rect(0, 0, iw, ih), n, c, defaultTuning); err != nil {
		return nil, 0, 0, err
	}
	return pix, sw, sh, nil
}

// Inspect reads a JPEG's header: its size and component layout.
func Inspect(data []byte) (Info, error) {
	w, h, _, err := Header(data)
	if err != nil {
		return Info{}, err
	}
	return Info{Width: w, Height: h, Layout: scanLayout(data)}, nil
}

// EncodeWith is Encode with options; this build cannot write restart
// markers and ignores o.RestartsPerRow.
func EncodeWith(dst, pix []byte, w, h, c int, o EncodeOptions) ([]byte, error) {
	return Encode(dst, pix, w, h, c, o.Quality)
}
