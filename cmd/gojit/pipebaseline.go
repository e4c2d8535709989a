package main

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/jpeg"
)

// The op-by-op baseline of `gojit dataset bench`: the pipeline written the
// way one would in plain Go without a pipeline compiler, one whole-image
// step after another, each into a new buffer (torchvision's and OpenCV's
// shape of computation): decode the whole JPEG, crop, resize bilinearly,
// flip, normalize to float32, transpose to CHW.

// ImageNet's per-channel mean and standard deviation in 0-255 pixel
// units (torchvision's 0.485, 0.456, 0.406 and 0.229, 0.224, 0.225 ×255).
var (
	imagenetMean = [3]float32{123.675, 116.28, 103.53}
	imagenetStd  = [3]float32{58.395, 57.12, 57.375}
)

// baselineKind selects the baseline's geometry.
type baselineKind int

const (
	baseRRC    baselineKind = iota // random resized crop, then flip
	baseCenter                     // centre crop of a fraction of the short side, resized
	baseRaw                        // raw pixels: no decode; random resized crop, then flip
)

// baselineConfig is one baseline pipeline.
type baselineConfig struct {
	kind baselineKind
	// size is the output's side.
	size int
	// scale and ratio bound the random crop's area (as a fraction of the
	// image's) and aspect ratio (width/height), as torchvision's
	// RandomResizedCrop.
	scale, ratio [2]float64
	// cropRatio is the centre crop's side as a fraction of the short side.
	cropRatio float64
	// flip is the probability of a horizontal flip.
	flip float64
	// antialias resizes with the triangle filter widened by the scale
	// factor when shrinking (PIL's BILINEAR, torchvision's antialias=True)
	// instead of plain bilinear sampling.
	antialias bool
}

// The baseline's steps, in order, for its time split.
const (
	stDecode = iota
	stCrop
	stResize
	stFlip
	stNormalize
	stCHW
	numStages
)

var baselineStageNames = [numStages]string{"decode", "crop", "resize", "flip", "normalize", "chw"}

// stageTimes accumulates the time spent in each step.
type stageTimes [numStages]time.Duration

// baselineImage runs the baseline on one stored image (JPEG bytes, or raw
// pixels for baseRaw) of the shape meta gives, drawing its random choices
// from rng, and returns the 3×size×size float32 result (CHW), adding each
// step's time to st.
func (c baselineConfig) baselineImage(data []byte, meta dataset.FieldMeta, rng *rand.Rand, st *stageTimes) ([]float32, error) {
	if len(meta.Shape) != 3 || meta.Shape[2] != 3 {
		return nil, fmt.Errorf("image shape %v, want [h w 3]", meta.Shape)
	}
	h, w := meta.Shape[0], meta.Shape[1]
	t0 := time.Now()
	pix := make([]byte, w*h*3)
	if c.kind == baseRaw {
		if len(data) != len(pix) {
			return nil, fmt.Errorf("%d raw bytes for a %dx%dx3 image", len(data), h, w)
		}
		copy(pix, data)
	} else if err := jpeg.Decode(pix, data, w, h, 3); err != nil {
		return nil, err
	}
	t1 := time.Now()
	st[stDecode] += t1.Sub(t0)
	size := c.size
	switch c.kind {
	case baseRRC, baseCenter, baseRaw:
		box := centerBox(w, h, c.cropRatio)
		if c.kind != baseCenter {
			box = rrcBox(rng, w, h, c.scale, c.ratio)
		}
		crop := cropRGB(pix, w, box)
		t2 := time.Now()
		st[stCrop] += t2.Sub(t1)
		if c.antialias {
			pix = resizeAntialias(crop, box.Dx(), box.Dy(), size, size)
		} else {
			pix = resizeBilinear(crop, box.Dx(), box.Dy(), size, size)
		}
		t1 = time.Now()
		st[stResize] += t1.Sub(t2)
	}
	t2 := t1
	if c.flip > 0 {
		if rng.Float64() < c.flip {
			flipRGB(pix, size, size)
		}
		t2 = time.Now()
		st[stFlip] += t2.Sub(t1)
	}
	f := normalizeHWC(pix, imagenetMean, imagenetStd)
	t3 := time.Now()
	st[stNormalize] += t3.Sub(t2)
	out := toCHW(f, size, size)
	st[stCHW] += time.Since(t3)
	return out, nil
}

// rrcBox draws a random resized crop's box in a w by h image as
// torchvision's RandomResizedCrop.get_params does: up to ten tries of an
// area fraction uniform in scale and an aspect ratio log-uniform in
// ratio, then a centre crop of the whole image clamped to ratio.
func rrcBox(rng *rand.Rand, w, h int, scale, ratio [2]float64) image.Rectangle {
	area := float64(w * h)
	lr0, lr1 := math.Log(ratio[0]), math.Log(ratio[1])
	for range 10 {
		target := area * (scale[0] + (scale[1]-scale[0])*rng.Float64())
		ar := math.Exp(lr0 + (lr1-lr0)*rng.Float64())
		cw := int(math.Round(math.Sqrt(target * ar)))
		ch := int(math.Round(math.Sqrt(target / ar)))
		if cw > 0 && ch > 0 && cw <= w && ch <= h {
			y := rng.IntN(h - ch + 1)
			x := rng.IntN(w - cw + 1)
			return image.Rect(x, y, x+cw, y+ch)
		}
	}
	cw, ch := w, h
	if in := float64(w) / float64(h); in < ratio[0] {
		ch = int(math.Round(float64(w) / ratio[0]))
	} else if in > ratio[1] {
		cw = int(math.Round(float64(h) * ratio[1]))
	}
	x, y := (w-cw)/2, (h-ch)/2
	return image.Rect(x, y, x+cw, y+ch)
}

// centerBox is the centre square whose side is ratio times the short side
// (FFCV's centre crop), at least one pixel.
func centerBox(w, h int, ratio float64) image.Rectangle {
	s := max(1, int(ratio*float64(min(w, h))))
	x, y := (w-s)/2, (h-s)/2
	return image.Rect(x, y, x+s, y+s)
}

// cropRGB copies box of an RGB image w pixels wide into a new buffer.
func cropRGB(pix []byte, w int, box image.Rectangle) []byte {
	cw := box.Dx()
	out := make([]byte, cw*box.Dy()*3)
	for y := range box.Dy() {
		copy(out[y*cw*3:(y+1)*cw*3], pix[((box.Min.Y+y)*w+box.Min.X)*3:])
	}
	return out
}

// resizeBilinear resizes an RGB image of sw by sh to dw by dh into a new
// buffer: output pixel (x, y) samples the source at ((x+0.5)·sw/dw − 0.5,
// (y+0.5)·sh/dh − 0.5), clamped to the image, interpolating linearly
// between the four nearest pixels and rounding (OpenCV's INTER_LINEAR
// geometry, without antialiasing).
func resizeBilinear(src []byte, sw, sh, dw, dh int) []byte {
	out := make([]byte, dw*dh*3)
	x0s := make([]int, dw)
	x1s := make([]int, dw)
	fxs := make([]float32, dw)
	for x := range dw {
		x0s[x], x1s[x], fxs[x] = bilinearTap(x, sw, dw)
	}
	for y := range dh {
		y0, y1, fy := bilinearTap(y, sh, dh)
		r0, r1 := src[y0*sw*3:(y0+1)*sw*3], src[y1*sw*3:(y1+1)*sw*3]
		o := out[y*dw*3 : (y+1)*dw*3]
		for x := range dw {
			a, b, fx := 3*x0s[x], 3*x1s[x], fxs[x]
			for k := range 3 {
				top := float32(r0[a+k]) + fx*(float32(r0[b+k])-float32(r0[a+k]))
				bot := float32(r1[a+k]) + fx*(float32(r1[b+k])-float32(r1[a+k]))
				o[3*x+k] = uint8(top + fy*(bot-top) + 0.5)
			}
		}
	}
	return out
}

// resizeAntialias resizes an RGB image as resizeBilinear does, with the
// triangle filter PIL's BILINEAR resize uses: output pixel x of dw covers
// source [x·sw/dw, (x+1)·sw/dw) and weighs the source pixels around its
// centre by a triangle whose half-width is max(sw/dw, 1), normalized; rows
// first, then columns, each rounded once at the end.
func resizeAntialias(src []byte, sw, sh, dw, dh int) []byte {
	xs := triangleTaps(sw, dw)
	ys := triangleTaps(sh, dh)
	tmp := make([]float32, sh*dw*3) // rows resampled horizontally
	for y := range sh {
		row := src[y*sw*3 : (y+1)*sw*3]
		for x, t := range xs {
			for k := range 3 {
				var acc float32
				for i, wt := range t.w {
					acc += wt * float32(row[(t.lo+i)*3+k])
				}
				tmp[(y*dw+x)*3+k] = acc
			}
		}
	}
	out := make([]byte, dw*dh*3)
	for y, t := range ys {
		for x := range dw * 3 {
			var acc float32
			for i, wt := range t.w {
				acc += wt * tmp[(t.lo+i)*dw*3+x]
			}
			out[y*dw*3+x] = uint8(min(max(acc+0.5, 0), 255))
		}
	}
	return out
}

// taps is one output pixel's filter: weights of source pixels lo, lo+1...
type taps struct {
	lo int
	w  []float32
}

// triangleTaps returns the triangle filter's taps for each of n outputs
// resampled from m inputs (see resizeAntialias).
func triangleTaps(m, n int) []taps {
	scale := float64(m) / float64(n)
	support := max(scale, 1)
	out := make([]taps, n)
	for i := range out {
		centre := (float64(i) + 0.5) * scale
		lo := max(int(math.Floor(centre-support+0.5)), 0)
		hi := min(int(math.Floor(centre+support+0.5)), m)
		var sum float64
		w := make([]float64, 0, hi-lo)
		for j := lo; j < hi; j++ {
			v := max(1-math.Abs((float64(j)+0.5-centre)/support), 0)
			w = append(w, v)
			sum += v
		}
		t := taps{lo: lo, w: make([]float32, len(w))}
		for j, v := range w {
			t.w[j] = float32(v / sum)
		}
		out[i] = t
	}
	return out
}

// bilinearTap returns the two source indices and the weight of the second
// for output index i of n resampled from m.
func bilinearTap(i, m, n int) (int, int, float32) {
	s := (float64(i)+0.5)*float64(m)/float64(n) - 0.5
	s = min(max(s, 0), float64(m-1))
	i0 := int(s)
	return i0, min(i0+1, m-1), float32(s - float64(i0))
}

// flipRGB mirrors an RGB image horizontally in place.
func flipRGB(pix []byte, w, h int) {
	for y := range h {
		row := pix[y*w*3 : (y+1)*w*3]
		for a, b := 0, 3*(w-1); a < b; a, b = a+3, b-3 {
			row[a], row[a+1], row[a+2], row[b], row[b+1], row[b+2] = row[b], row[b+1], row[b+2], row[a], row[a+1], row[a+2]
		}
	}
}

// normalizeHWC converts RGB bytes to float32 (v − mean[c]) / std[c] in a
// new buffer.
func normalizeHWC(pix []byte, mean, std [3]float32) []float32 {
	out := make([]float32, len(pix))
	inv := [3]float32{1 / std[0], 1 / std[1], 1 / std[2]}
	for i := 0; i+3 <= len(pix); i += 3 {
		for k := range 3 {
			out[i+k] = (float32(pix[i+k]) - mean[k]) * inv[k]
		}
	}
	return out
}

// toCHW transposes an h×w×3 float32 image to 3×h×w in a new buffer.
func toCHW(f []float32, w, h int) []float32 {
	out := make([]float32, len(f))
	plane := w * h
	for p := range plane {
		out[p] = f[3*p]
		out[plane+p] = f[3*p+1]
		out[2*plane+p] = f[3*p+2]
	}
	return out
}

// normRange returns the smallest and largest values normalizing 8-bit
// pixels can give, over all channels.
func normRange() (lo, hi float32) {
	lo, hi = float32(math.Inf(1)), float32(math.Inf(-1))
	for k := range 3 {
		lo = min(lo, (0-imagenetMean[k])/imagenetStd[k])
		hi = max(hi, (255-imagenetMean[k])/imagenetStd[k])
	}
	return lo, hi
}
