package jpeg

import (
	"errors"
	"fmt"
	"image"
)

// Crop describes what DecodeCrop wrote: a W by H buffer of packed rows
// (W*H*c bytes at the start of dst) holding the image scaled by Scale/8,
// and the requested rectangle in that buffer's pixel coordinates. A
// resampler maps output pixel centres onto [X0, X1) x [Y0, Y1): output
// pixel i of outW samples at X0 + (i+0.5)*(X1-X0)/outW - 0.5, clamped to
// [0, W-1]. The buffer may hold a few columns on either side of the
// rectangle (libjpeg-turbo decodes whole iMCU columns, and at least two
// columns more on each side where the image has them); they are image
// pixels for a filter reaching past the rectangle's edge, though the
// outermost ones may differ a little from a whole-image decode (chroma
// upsampling takes the buffer's edge for the image's).
type Crop struct {
	W, H           int     // decoded buffer size in pixels
	X0, Y0, X1, Y1 float64 // the requested rectangle, scaled, in buffer pixels
	Scale          int     // n of the DCT scale n/8 (1..8)
}

// Layout is the colour layout of a JPEG's components.
type Layout int

// The layouts Inspect reports. CMYK and YCCK are four-component (Adobe)
// JPEGs, which DecodeCrop converts to RGB or gray.
const (
	LayoutUnknown Layout = iota
	LayoutGray           // one component
	LayoutYCbCr          // three components, YCbCr (JFIF)
	LayoutRGB            // three components stored as RGB (Adobe transform 0)
	LayoutCMYK           // four components, CMYK
	LayoutYCCK           // four components, YCbCr + K (Adobe transform 2)
)

var layoutNames = [...]string{"unknown", "gray", "ycbcr", "rgb", "cmyk", "ycck"}

// String returns the layout's lower-case name, such as "ycck".
func (l Layout) String() string {
	if l < 0 || int(l) >= len(layoutNames) {
		return fmt.Sprintf("Layout(%d)", int(l))
	}
	return layoutNames[l]
}

// Info is what Inspect reads from a JPEG's header.
type Info struct {
	Width, Height int
	Layout        Layout
}

// ErrDstTooSmall is wrapped by DecodeCrop's error when dst cannot hold the
// decoded region; the message says how many bytes it needs.
var ErrDstTooSmall = errors.New("jpeg: destination too small")

// CropScale returns the n of the DCT scale n/8 that DecodeCrop uses for
// rectangle src resized to outW by outH: the smallest n of 1, 2 and 4 that
// keeps the scaled rectangle at least outW by outH, so the resize after the
// decode never enlarges because of the reduction, else 8 (full scale, as
// for outW or outH <= 0). libjpeg-turbo decodes the other scales (3/8,
// 5/8, 6/8, 7/8) with plain C inverse DCTs that cost more than a full-scale
// decode (7/8 about twice as much on a 600-pixel image, 4/8 the same, 2/8
// 0.87x, 1/8 0.69x), so they are never chosen.
func CropScale(src image.Rectangle, outW, outH int) int {
	if outW <= 0 || outH <= 0 {
		return 8
	}
	for _, n := range []int{1, 2, 4} {
		if src.Dx()*n >= 8*outW && src.Dy()*n >= 8*outH {
			return n
		}
	}
	return 8
}

// MaxCropLen is an upper bound on the bytes DecodeCrop writes for
// rectangle src resized to outW by outH with c channels, for any JPEG
// holding src, in either build: the scaled rectangle widened by two pixels and an iMCU
// (at most 4 blocks of n pixels) on each side. Size batch slots with it.
func MaxCropLen(src image.Rectangle, outW, outH, c int) int {
	n := CropScale(src, outW, outH)
	x0, x1 := scaledSpan(src.Min.X, src.Max.X, n, 1<<30)
	y0, y1 := scaledSpan(src.Min.Y, src.Max.Y, n, 1<<30)
	return (x1 - x0 + 2*(4*n-1) + 4) * (y1 - y0) * c
}

// scaledSpan returns the pixels [s0, s1) of an image scaled by n/8 (and
// size pixels long) that cover pixels [a, b) of the unscaled image:
// scaled pixel i covers [8i/n, 8(i+1)/n).
func scaledSpan(a, b, n, size int) (s0, s1 int) {
	return a * n / 8, min(size, (b*n+7)/8)
}

// checkCropArgs validates DecodeCrop's arguments that need no header.
func checkCropArgs(data []byte, c int) error {
	if c != 1 && c != 3 {
		return fmt.Errorf("jpeg: %d channels, want 1 or 3", c)
	}
	if len(data) == 0 {
		return errors.New("jpeg: empty data")
	}
	return nil
}

// cropResult fills a Crop from the decoded buffer's placement: columns
// from bx and rows from by of the image scaled by n/8, bw by bh pixels.
func cropResult(src image.Rectangle, n, bx, by, bw, bh int) Crop {
	s := float64(n) / 8
	return Crop{
		W: bw, H: bh, Scale: n,
		X0: float64(src.Min.X)*s - float64(bx), Y0: float64(src.Min.Y)*s - float64(by),
		X1: float64(src.Max.X)*s - float64(bx), Y1: float64(src.Max.Y)*s - float64(by),
	}
}

// outsideError is the error for a rectangle not inside a w by h image.
func outsideError(src image.Rectangle, w, h int) error {
	return fmt.Errorf("jpeg: region %v is empty or outside the %dx%d image", src, h, w)
}

// tooSmallError is the error for a destination of have bytes where need
// are required.
func tooSmallError(have, need int, c Crop) error {
	return fmt.Errorf("%w: %d bytes, the %dx%d region at scale %d/8 needs %d", ErrDstTooSmall, have, c.H, c.W, c.Scale, need)
}

// EncodeOptions are EncodeWith's settings.
type EncodeOptions struct {
	Quality int // 1..100
	// RestartsPerRow > 0 asks for restart markers, about that many per MCU
	// row (16 pixels high for RGB, 8 for gray): the interval is the divisor
	// of the row's MCU count nearest its share, so intervals never straddle
	// rows. Each costs about 2.5 bytes. The image/jpeg build cannot write
	// them and ignores the setting.
	RestartsPerRow int
}
