package jpeg

import (
	"image"
	"image/draw"
)

// boxScale writes pixels r of the w by h image full (c channels) scaled
// by n/8 into dst (r.Dx()*r.Dy()*c bytes): scaled pixel (i, j) is the
// area average of full's pixels [8i/n, 8(i+1)/n) x [8j/n, 8(j+1)/n),
// clipped to the image. It is how the image/jpeg build mimics
// libjpeg-turbo's scaled inverse DCT.
func boxScale(dst, full []byte, w, h, c, n int, r image.Rectangle) {
	xs := spanWeights(r.Min.X, r.Max.X, n, w)
	ys := spanWeights(r.Min.Y, r.Max.Y, n, h)
	acc := make([]float64, r.Dx()*c)
	out := dst
	for _, sy := range ys {
		clear(acc)
		for _, ty := range sy {
			row := full[ty.at*w*c:]
			for i, sx := range xs {
				for _, tx := range sx {
					wt := ty.w * tx.w
					for k := range c {
						acc[i*c+k] += wt * float64(row[tx.at*c+k])
					}
				}
			}
		}
		for i, v := range acc {
			out[i] = uint8(v + 0.5)
		}
		out = out[len(acc):]
	}
}

// tap is one source pixel of a scaled pixel and its weight.
type tap struct {
	at int
	w  float64
}

// spanWeights returns, for each scaled pixel in [s0, s1), the source
// pixels of [0, size) it covers at scale n/8 and their weights (summing
// to 1).
func spanWeights(s0, s1, n, size int) [][]tap {
	out := make([][]tap, 0, s1-s0)
	for i := s0; i < s1; i++ {
		a, b := float64(8*i)/float64(n), min(float64(8*(i+1))/float64(n), float64(size))
		var taps []tap
		for p := int(a); float64(p) < b; p++ {
			taps = append(taps, tap{p, min(b, float64(p+1)) - max(a, float64(p))})
		}
		for t := range taps {
			taps[t].w /= b - a
		}
		out = append(out, taps)
	}
	return out
}

// scanLayout reads a JPEG's markers up to the first scan and returns its
// component layout, with the rules libjpeg applies: one component is
// gray; three are RGB when an Adobe marker says transform 0 or the
// component ids are 'R', 'G', 'B', else YCbCr; four are YCCK when an
// Adobe marker says transform 2, else CMYK. It returns LayoutUnknown for
// data it cannot read.
func scanLayout(data []byte) Layout {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return LayoutUnknown
	}
	adobe, transform, jfif := false, 0, false
	ncomp, rgbIDs := 0, false
	for p := 2; p+4 <= len(data); {
		if data[p] != 0xFF {
			return LayoutUnknown
		}
		m := data[p+1]
		if m == 0xFF { // fill byte
			p++
			continue
		}
		seg := int(data[p+2])<<8 | int(data[p+3])
		if seg < 2 || p+2+seg > len(data) {
			return LayoutUnknown
		}
		body := data[p+4 : p+2+seg]
		switch {
		case m == 0xE0 && len(body) >= 5 && string(body[:5]) == "JFIF\x00":
			jfif = true
		case m == 0xEE && len(body) >= 12 && string(body[:5]) == "Adobe":
			adobe, transform = true, int(body[11])
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			if len(body) < 6 {
				return LayoutUnknown
			}
			ncomp = int(body[5])
			rgbIDs = ncomp == 3 && len(body) >= 6+9 && body[6] == 'R' && body[9] == 'G' && body[12] == 'B'
		}
		if m == 0xDA {
			break
		}
		p += 2 + seg
	}
	switch ncomp {
	case 1:
		return LayoutGray
	case 3:
		if (!jfif && adobe && transform == 0) || (!jfif && !adobe && rgbIDs) {
			return LayoutRGB
		}
		return LayoutYCbCr
	case 4:
		if adobe && transform == 2 {
			return LayoutYCCK
		}
		return LayoutCMYK
	}
	return LayoutUnknown
}

// imagePixels converts a decoded w by h image to c = 1 or 3 channels in
// dst (w*h*c bytes): RGB by the image's colour model (image.CMYK's for
// CMYK and YCCK JPEGs), gray by color.GrayModel.
func imagePixels(dst []byte, img image.Image, w, h, c int) {
	if c == 1 {
		g := &image.Gray{Pix: dst, Stride: w, Rect: image.Rect(0, 0, w, h)}
		draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
		return
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	for i, j := 0, 0; i < len(dst); i, j = i+3, j+4 {
		dst[i], dst[i+1], dst[i+2] = rgba.Pix[j], rgba.Pix[j+1], rgba.Pix[j+2]
	}
}
