package pipeline

import (
	"math"
	"sync"

	"github.com/gojit/gojit"
)

// A CropOption changes how RandomResizedCropJPEG and CenterCropJPEG
// resample their crop. Without options they sample it bilinearly.
type CropOption func(*cropDecoder)

// Antialias makes a crop decoder resample with the triangle filter of
// PIL's BILINEAR resize and torchvision's resize(..., antialias=True):
// each output pixel is a weighted mean of the source pixels within s
// pixels of its centre, s the shrink factor along that axis (at least 1),
// with weights falling linearly to zero at distance s. When enlarging (s
// = 1) this is bilinear interpolation; when shrinking it averages over the
// whole footprint of the output pixel instead of sampling two source
// pixels, so fine detail does not alias. Taps outside the image are
// dropped and the weights renormalised (PIL's and torch's edge rule);
// taps outside the crop box but inside the decoded image are used, as
// PIL's resize with a box does.
//
// It costs more than plain bilinear sampling when shrinking (up to
// 2*ceil(s)+1 taps per axis instead of 2, s bounded by the field's
// maximum image size over the output size); a JPEG crop at least twice
// the output is decoded at a reduced DCT scale first, which leaves s
// under 2. See docs/pipeline.md for the tolerance against torchvision.
func Antialias() CropOption {
	return func(d *cropDecoder) { d.antialias = true }
}

// aaTaps is the number of filter taps along an axis of at most n source
// pixels resampled to S: the filter's half-width is at most n/S (or 1),
// and a window of half-width s covers at most floor(2s)+1 pixels.
func aaTaps(n, S int) int {
	s := max(1, float64(n)/float64(S))
	return int(math.Floor(2*s)) + 1
}

// aaAxis computes the antialiasing filter of output pixel i of S along an
// axis of n source pixels whose crop is [lo, hi) (hi < lo for a mirrored
// output): the first tap and the normalised weights, appended to w. It is
// the plain Go twin of the compiled weights (aaAxisTrace), in the same
// float32 arithmetic and order.
func aaAxis(w []float32, lo, hi float32, i, S, n int) (int, []float32) {
	step := (hi - lo) / float32(S)
	fs := max(abs32(step), 1)
	center := lo + (float32(i)+0.5)*step
	xmin := max(floor32(center-fs+0.5), 0)
	xmax := min(floor32(center+fs+0.5), float32(n))
	w = w[:0]
	var sum float32
	for x := xmin; x < xmax; x++ {
		v := max(1-abs32((x-center+0.5)/fs), 0)
		w = append(w, v)
		sum += v
	}
	for k := range w {
		w[k] /= sum
	}
	return int(xmin), w
}

func abs32(v float32) float32   { return float32(math.Abs(float64(v))) }
func floor32(v float32) float32 { return float32(math.Floor(float64(v))) }

// aaScratch holds resampleAA's row-pass temporaries.
var aaScratch = sync.Pool{New: func() any { return new([]float32) }}

// resampleAA is resampleRef with Antialias's filter: box (x0, y0, x1, y1)
// of src (w by h pixels, c channels) resized to S by S into dst, rows
// first (each output row a weighted sum of source rows, in float32), then
// columns, rounded half up. It is the plain Go reference of the compiled
// resizeAntialias, in the same arithmetic.
func resampleAA(dst []byte, S int, src []byte, w, h, c int, box [4]float32) {
	tp := aaScratch.Get().(*[]float32)
	defer aaScratch.Put(tp)
	if cap(*tp) < S*w*c {
		*tp = make([]float32, S*w*c)
	}
	tmp := (*tp)[:S*w*c]
	clear(tmp)
	var wt []float32
	for i := range S {
		var y0 int
		y0, wt = aaAxis(wt, box[1], box[3], i, S, h)
		row := tmp[i*w*c : (i+1)*w*c]
		for t, f := range wt {
			s := src[(y0+t)*w*c : (y0+t+1)*w*c]
			for k, v := range s {
				row[k] += f * float32(v)
			}
		}
	}
	for j := range S {
		var x0 int
		x0, wt = aaAxis(wt, box[0], box[2], j, S, w)
		for i := range S {
			row := tmp[i*w*c : (i+1)*w*c]
			for k := range c {
				var v float32
				for t, f := range wt {
					v += f * row[(x0+t)*c+k]
				}
				dst[(i*S+j)*c+k] = uint8(min(max(floor32(v+0.5), 0), 255))
			}
		}
	}
}

// aaAxisTrace records Antialias's filter along one axis for the whole
// batch: lo, hi and n are [B, 1] Float32 (the crop's edges and the
// sample's size along the axis), K the static number of taps. It returns
// the [B, S, K] Int32 source index of each tap (clamped into the image)
// and its [B, S, K] Float32 weight (zero past the filter's window).
func aaAxisTrace(lo, hi, n *gojit.Tensor, B, S, K int) (*gojit.Tensor, *gojit.Tensor) {
	half := gojit.Scalar(0.5)
	step := hi.Sub(lo).Div(gojit.Scalar(float64(S)))    // [B, 1]
	fs := step.Abs().Maximum(gojit.Scalar(1))           // [B, 1]
	pos := gojit.Iota(gojit.Float32, 1, 1, S).Add(half) // [1, S]
	center := lo.Add(pos.Mul(step))                     // [B, S]
	xmin := center.Sub(fs).Add(half).Floor().Maximum(gojit.Scalar(0))
	xmax := center.Add(fs).Add(half).Floor().Minimum(n)
	tap := gojit.Iota(gojit.Float32, 2, 1, 1, K) // [1, 1, K]
	x := xmin.Reshape(B, S, 1).Add(tap)          // [B, S, K]
	c3 := center.Reshape(B, S, 1)
	d := x.Sub(c3).Add(half).Div(fs.Reshape(B, 1, 1)).Abs()
	wt := gojit.Scalar(1).Sub(d).Maximum(gojit.Scalar(0))
	wt = gojit.Where(x.Less(xmax.Reshape(B, S, 1)), wt, gojit.Scalar(0))
	wt = wt.Div(wt.Sum(2).Reshape(B, S, 1))
	idx := x.Minimum(n.Sub(gojit.Scalar(1)).Reshape(B, 1, 1)).Cast(gojit.Int32)
	return idx, wt
}

// directTaps is the most taps per output value (rows times columns) that
// resizeAntialias gathers directly rather than through a temporary: 3 by
// 3 (a 256-pixel field resized to 224) measured about as fast either way
// (1.07x to 1.2x slower directly), and the temporary would take 44 MB for a batch
// of 64 (176 MB for 256); with more taps the separable passes win.
const directTaps = 16

// resizeAntialias records the compiled Antialias resize, with
// resizeBilinear's arguments and result, rounded half up to Uint8 as
// resampleAA computes it: with at most directTaps taps directly
// (resizeAntialiasDirect), otherwise in two passes
// (resizeAntialiasSeparable).
func resizeAntialias(x, shapes, box *gojit.Tensor, S int) *gojit.Tensor {
	xs := x.Shape()
	if aaTaps(xs[1], S)*aaTaps(xs[2], S) <= directTaps {
		return resizeAntialiasDirect(x, shapes, box, S)
	}
	return resizeAntialiasSeparable(x, shapes, box, S)
}

// resizeAntialiasSeparable records the compiled Antialias resize in two
// passes: a vertical pass (each output row a weighted sum of Ky source
// rows, read whole and contiguous, over the field's maximum width) into a
// Float32 [B, S, W, C] temporary, then a horizontal pass (Kx taps gathered
// from it per output pixel).
func resizeAntialiasSeparable(x, shapes, box *gojit.Tensor, S int) *gojit.Tensor {
	B, H, W, C, hf, wi, wf := regionsOf(x, shapes)
	Ky, Kx := aaTaps(H, S), aaTaps(W, S)
	iy, wy := aaAxisTrace(column(box, 1), column(box, 3), hf, B, S, Ky)
	ix, wx := aaAxisTrace(column(box, 0), column(box, 2), wf, B, S, Kx)

	// Vertical: tmp[b, i, x, c] = sum over t of wy[b, i, t] * the pixel
	// (iy[b, i, t], x, c) of sample b, x over the field's maximum width
	// (the sample's row stride is its own width: columns past it read the
	// next row, finite and never used). tmp keeps the 4-D shape it is
	// computed in: reshaping it before the gather below makes its loop
	// nest a flat one that divides the index back into coordinates per
	// element (measured 4x slower).
	vfull := []int{B, S, W, C}
	flat := x.Reshape(B * H * W * C)
	base := gojit.Iota(gojit.Int32, 0, B, 1, 1, 1).Mul(gojit.Scalar(float64(H * W * C)))
	q := gojit.Iota(gojit.Int32, 2, 1, 1, W, 1).Mul(gojit.Scalar(float64(C))).BroadcastTo(vfull...).
		Add(gojit.Iota(gojit.Int32, 3, 1, 1, 1, C).BroadcastTo(vfull...))
	rowStride := wi.Mul(gojit.Scalar(float64(C))).Reshape(B, 1, 1, 1)
	var tmp *gojit.Tensor
	for t := range Ky {
		r := iy.Slice([]int{0, 0, t}, []int{B, S, t + 1}).Reshape(B, S, 1, 1)
		start := r.Mul(rowStride).Add(base).BroadcastTo(vfull...)
		f := wy.Slice([]int{0, 0, t}, []int{B, S, t + 1}).Reshape(B, S, 1, 1).BroadcastTo(vfull...)
		v := flat.Take(start.Add(q), 0).Cast(gojit.Float32).Mul(f)
		if tmp == nil {
			tmp = v
		} else {
			tmp = tmp.Add(v)
		}
	}

	// Horizontal: out[b, i, j, c] = sum over u of wx[b, j, u] * tmp[b, i,
	// ix[b, j, u], c].
	var out *gojit.Tensor
	for u := range Kx {
		cx := ix.Slice([]int{0, 0, u}, []int{B, S, u + 1}).Reshape(B, 1, S, 1)
		f := wx.Slice([]int{0, 0, u}, []int{B, S, u + 1}).Reshape(B, 1, S, 1)
		v := tmp.TakeAlongAxis(cx, 2).Mul(f)
		if out == nil {
			out = v
		} else {
			out = out.Add(v)
		}
	}
	return out.Add(gojit.Scalar(0.5)).Floor().Maximum(gojit.Scalar(0)).Minimum(gojit.Scalar(255)).Cast(gojit.Uint8)
}

// resizeAntialiasDirect is resizeAntialias for few taps, without a
// temporary: each output value sums Ky*Kx gathered source pixels, the
// rows of each column tap first (weighted by the row weights), then the
// columns, the order of resampleAA's sums.
func resizeAntialiasDirect(x, shapes, box *gojit.Tensor, S int) *gojit.Tensor {
	B, H, W, C, hf, wi, wf := regionsOf(x, shapes)
	Ky, Kx := aaTaps(H, S), aaTaps(W, S)
	iy, wy := aaAxisTrace(column(box, 1), column(box, 3), hf, B, S, Ky)
	ix, wx := aaAxisTrace(column(box, 0), column(box, 2), wf, B, S, Kx)
	full := []int{B, S, S, C}
	flat := x.Reshape(B * H * W * C)
	base := gojit.Iota(gojit.Int32, 0, B, 1, 1, 1).Mul(gojit.Scalar(float64(H * W * C)))
	ch := gojit.Iota(gojit.Int32, 3, 1, 1, 1, C).BroadcastTo(full...)
	tapOf := func(t *gojit.Tensor, k int) *gojit.Tensor { return t.Slice([]int{0, 0, k}, []int{B, S, k + 1}) }
	var rows []*gojit.Tensor
	for t := range Ky {
		rows = append(rows, tapOf(iy, t).Reshape(B, S, 1, 1).Mul(wi.Reshape(B, 1, 1, 1)).Mul(gojit.Scalar(float64(C))).Add(base).BroadcastTo(full...))
	}
	var sum *gojit.Tensor
	for u := range Kx {
		cx := tapOf(ix, u).Mul(gojit.Scalar(float64(C))).Reshape(B, 1, S, 1).BroadcastTo(full...)
		var v *gojit.Tensor
		for t := range Ky {
			p := flat.Take(rows[t].Add(cx).Add(ch), 0).Cast(gojit.Float32).Mul(tapOf(wy, t).Reshape(B, S, 1, 1).BroadcastTo(full...))
			if v == nil {
				v = p
			} else {
				v = v.Add(p)
			}
		}
		v = v.Mul(tapOf(wx, u).Reshape(B, 1, S, 1).BroadcastTo(full...))
		if sum == nil {
			sum = v
		} else {
			sum = sum.Add(v)
		}
	}
	return sum.Add(gojit.Scalar(0.5)).Floor().Maximum(gojit.Scalar(0)).Minimum(gojit.Scalar(255)).Cast(gojit.Uint8)
}
