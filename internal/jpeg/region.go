package jpeg

import (
	"fmt"
	"image"
	"math"
	"sync"
)

// DecodeRegion decodes the pixels of rectangle src of a JPEG (in the
// image's pixel coordinates, inside its bounds), resized to w by h, into
// dst, which holds exactly w*h*c bytes (c = 1 or 3, as for Decode): the
// random-resized-crop decode of a training pipeline.
//
// It is DecodeCrop followed by a bilinear resampling in Go (output pixel
// centres mapped linearly onto the crop, edges clamped), the same in both
// builds: the libjpeg-turbo build decodes only the rows and the iMCU
// columns that src covers, scaled down in the inverse DCT by the largest
// factor n/8 (n = 1, 2 or 4, see CropScale) that keeps the region at least w by h, so a small crop of a
// large image costs a fraction of a full decode; the image/jpeg build
// decodes the whole image and averages areas for the scale. The results
// agree to within a few levels on natural images (TestDecodeRegion
// compares both with an area average of a full decode).
func DecodeRegion(dst, data []byte, src image.Rectangle, w, h, c int) error {
	if w <= 0 || h <= 0 || len(dst) != w*h*c || (c != 1 && c != 3) {
		return fmt.Errorf("jpeg: destination of %d bytes for %dx%dx%d pixels", len(dst), h, w, c)
	}
	if len(data) == 0 {
		return fmt.Errorf("jpeg: empty data")
	}
	iw, ih, _, err := Header(data)
	if err != nil {
		return err
	}
	if src.Empty() || !src.In(image.Rect(0, 0, iw, ih)) {
		return fmt.Errorf("jpeg: region %v is empty or outside the %dx%d image", src, ih, iw)
	}
	buf := regionBufs.Get().(*[]byte)
	defer regionBufs.Put(buf)
	if n := MaxCropLen(src, w, h, c); cap(*buf) < n {
		*buf = make([]byte, n)
	}
	cr, err := DecodeCrop((*buf)[:cap(*buf)], data, src, w, h, c)
	if err != nil {
		return err
	}
	resample(dst, w, h, *buf, cr.W, cr.H, c, rect{cr.X0, cr.Y0, cr.X1, cr.Y1})
	return nil
}

// regionBufs holds DecodeRegion's buffers for DecodeCrop.
var regionBufs = sync.Pool{New: func() any { return new([]byte) }}

// rect is a rectangle in (fractional) pixel coordinates of a buffer.
type rect struct{ x0, y0, x1, y1 float64 }

// resample fills dst (w by h, c channels) from the region r of buf (bw
// by bh pixels, c channels) by bilinear interpolation: output pixel
// (i, j) samples at r.x0 + (i+0.5)*(r.x1-r.x0)/w - 0.5 (likewise in y),
// clamped to the buffer.
func resample(dst []byte, w, h int, buf []byte, bw, bh, c int, r rect) {
	xs := make([]int, 2*w)
	xt := make([]float64, w)
	for i := range w {
		sx := r.x0 + (float64(i)+0.5)*(r.x1-r.x0)/float64(w) - 0.5
		sx = min(max(sx, 0), float64(bw-1))
		x0 := int(sx)
		xs[2*i], xs[2*i+1], xt[i] = x0, min(x0+1, bw-1), sx-float64(x0)
	}
	for j := range h {
		sy := r.y0 + (float64(j)+0.5)*(r.y1-r.y0)/float64(h) - 0.5
		sy = min(max(sy, 0), float64(bh-1))
		y0 := int(sy)
		y1, ty := min(y0+1, bh-1), sy-float64(y0)
		row0, row1 := buf[y0*bw*c:], buf[y1*bw*c:]
		out := dst[j*w*c:]
		for i := range w {
			a, b, tx := xs[2*i]*c, xs[2*i+1]*c, xt[i]
			for k := range c {
				top := float64(row0[a+k]) + tx*(float64(row0[b+k])-float64(row0[a+k]))
				bot := float64(row1[a+k]) + tx*(float64(row1[b+k])-float64(row1[a+k]))
				out[i*c+k] = uint8(math.Round(top + ty*(bot-top)))
			}
		}
	}
}
