package dataset

import (
	"fmt"
	"image"
	stddraw "image/draw"
	"slices"

	"golang.org/x/image/draw"
)

// sourceChannels is the channel count ImageOptions.Channels 0 keeps for
// img: 1 for gray images, 4 for images that are not opaque, 3 otherwise.
func sourceChannels(img image.Image) int {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return 1
	}
	if o, ok := img.(interface{ Opaque() bool }); ok && !o.Opaque() {
		return 4
	}
	return 3
}

// scaledSize is the size an image of w by h gets under maxRes: unchanged
// if its longer side fits, otherwise the longer side becomes maxRes and
// the shorter is scaled in proportion, rounded, at least 1.
func scaledSize(w, h, maxRes int) (int, int) {
	if maxRes <= 0 || max(w, h) <= maxRes {
		return w, h
	}
	if w >= h {
		return maxRes, max(1, (h*maxRes+w/2)/w)
	}
	return max(1, (w*maxRes+h/2)/h), maxRes
}

// appendPixels converts img to c interleaved 8-bit channels (1 gray, 3
// RGB, 4 non-premultiplied RGBA), downscaled under maxRes, and appends
// the pixels, rows top to bottom, to dst. A translucent image converted
// to 1 or 3 channels is composited over black.
func appendPixels(dst []byte, img image.Image, c, maxRes int) ([]byte, int, int, error) {
	if img == nil {
		return dst, 0, 0, fmt.Errorf("nil image")
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return dst, 0, 0, fmt.Errorf("empty image (%dx%d)", h, w)
	}
	if w > 1<<16 || h > 1<<16 {
		return dst, 0, 0, fmt.Errorf("image is %dx%d, at most 65536 on a side", h, w)
	}
	tw, th := scaledSize(w, h, maxRes)
	r := image.Rect(0, 0, tw, th)
	start := len(dst)
	// Every path below writes every byte of out, so it is not zeroed
	// first (that was a tenth of a raw write's CPU time).
	dst = slices.Grow(dst, tw*th*c)[:start+tw*th*c]
	out := dst[start:]
	scaled := tw != w || th != h
	switch c {
	case 1:
		g := &image.Gray{Pix: out, Stride: tw, Rect: r}
		if scaled {
			draw.BiLinear.Scale(g, r, img, b, draw.Src, nil)
		} else if src, ok := img.(*image.Gray); ok {
			for y := range h {
				copy(out[y*w:(y+1)*w], src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):])
			}
		} else {
			stddraw.Draw(g, r, img, b.Min, stddraw.Src)
		}
	case 3:
		var src *image.RGBA
		if s, ok := img.(*image.RGBA); ok && !scaled {
			src = s
		} else {
			src = image.NewRGBA(r)
			if scaled {
				draw.BiLinear.Scale(src, r, img, b, draw.Src, nil)
			} else {
				stddraw.Draw(src, r, img, b.Min, stddraw.Src)
			}
		}
		sb := src.Rect
		for y := range th {
			rgbaToRGB(out[y*tw*3:(y+1)*tw*3], src.Pix[src.PixOffset(sb.Min.X, sb.Min.Y+y):][:4*tw])
		}
	case 4:
		n := &image.NRGBA{Pix: out, Stride: 4 * tw, Rect: r}
		if scaled {
			draw.BiLinear.Scale(n, r, img, b, draw.Src, nil)
		} else if src, ok := img.(*image.NRGBA); ok {
			for y := range h {
				copy(out[y*4*w:(y+1)*4*w], src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):])
			}
		} else {
			stddraw.Draw(n, r, img, b.Min, stddraw.Src)
		}
	default:
		return dst[:start], 0, 0, fmt.Errorf("%d channels", c)
	}
	return dst, tw, th, nil
}

// pixelsImage wraps decoded pixels (h*w*c bytes) as an image: *image.Gray
// for 1 channel, *image.RGBA (opaque) for 3, *image.NRGBA for 4.
func pixelsImage(pix []byte, w, h, c int) image.Image {
	r := image.Rect(0, 0, w, h)
	switch c {
	case 1:
		return &image.Gray{Pix: pix, Stride: w, Rect: r}
	case 4:
		return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: r}
	}
	m := image.NewRGBA(r)
	for i, j := 0, 0; i < len(pix); i, j = i+3, j+4 {
		m.Pix[j], m.Pix[j+1], m.Pix[j+2], m.Pix[j+3] = pix[i], pix[i+1], pix[i+2], 255
	}
	return m
}

// rgbaToRGB drops every fourth byte of src into dst (len(dst) = 3/4
// len(src)): with SSSE3 where the CPU has it (rgbaToRGBFast), the rest
// eight pixels per step through 64-bit loads and stores where it can (the
// fixed-size array views spare the bounds checks).
func rgbaToRGB(dst, src []byte) {
	p := rgbaToRGBFast(dst, src) // SSSE3 where there is one
	i, j := 3*p, 4*p
	for ; j+32 <= len(src) && i+24 <= len(dst); i, j = i+24, j+32 {
		s := (*[32]byte)(src[j:])
		d := (*[24]byte)(dst[i:])
		// a holds pixels p0 p1 as R0 G0 B0 A0 R1 G1 B1 A1 (low byte
		// first), b p2 p3, c p4 p5, e p6 p7.
		a := le.Uint64(s[0:8])
		b := le.Uint64(s[8:16])
		c := le.Uint64(s[16:24])
		e := le.Uint64(s[24:32])
		le.PutUint64(d[0:8], a&0xffffff|(a>>8)&0xffffff000000|b<<48)
		le.PutUint64(d[8:16], (b>>16)&0xff|(b>>24)&0xffffff00|(c&0xffffff)<<32|(c<<24)&0xff00000000000000)
		le.PutUint64(d[16:24], (c>>40)&0xffff|(e&0xffffff)<<16|(e<<8)&0xffffff0000000000)
	}
	for ; j+4 <= len(src) && i+3 <= len(dst); i, j = i+3, j+4 {
		dst[i], dst[i+1], dst[i+2] = src[j], src[j+1], src[j+2]
	}
}
