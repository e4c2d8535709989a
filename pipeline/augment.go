package pipeline

import (
	"fmt"
	"math"

	"github.com/gojit/gojit"
)

// Image augmentations (FFCV's Cutout, RandomTranslate and ImageMixup,
// torchvision's ColorJitter and RandomGrayscale).
//
// They take the images the decoders produce, u8 [h, w, c] with c = 1 or 3
// of variable size, and f32 images of the same layout, whose values are
// taken to lie in [0, 1] (apply them before Normalize). Each writes its
// own memory, keeps its input's dtype and each sample's shape, and leaves
// the memory past a sample's shape zero. All but ImageMixup have a plain
// Go Run and a Kernel whose Draw draws what Run draws, so the compiled
// stage and plain Go give the same batch. The kernels see each sample's
// pixels packed at the start of its slot (see Value.Data), so they work on
// flat positions and recover the coordinates from the sample's own shape;
// they assume every sample has the field's channel count, which Run
// checks.

// checkImage reports whether in is an image the augmentations take.
func checkImage(in State) error {
	switch {
	case in.GoValue || in.Stored != nil || len(in.Shape) != 3:
		return fmt.Errorf("want a decoded [h w c] image, got %s", in)
	case in.DType != gojit.Uint8 && in.DType != gojit.Float32:
		return fmt.Errorf("want u8 or f32 pixels, got %s", in)
	case in.Shape[2] != 1 && in.Shape[2] != 3:
		return fmt.Errorf("want 1 or 3 channels, got %s", in)
	}
	return nil
}

// sameImage declares an image op's output: the input's state in memory
// of its own.
func sameImage(in State, run func(s *Sample) error, k *Kernel) Decl {
	return Decl{Out: in, Memory: &Alloc{DType: in.DType, Shape: in.Shape}, Run: run, Kernel: k}
}

// sampleChannels checks a sample's channel count against its field's.
func sampleChannels(s *Sample, c int) error {
	if got := s.In.Shape[2]; got != c {
		return fmt.Errorf("sample has %d channels, its field %d", got, c)
	}
	return nil
}

// pixels is the element type of the images the augmentations take.
type pixels interface{ uint8 | float32 }

// toPixel converts a computed value to the image's element type: u8
// values are clamped to [0, 255] and rounded half to even, as the kernels'
// Round and saturating Cast do.
func toPixel[T pixels](v float32) T {
	var z T
	if _, ok := any(z).(uint8); ok {
		return T(uint8(math.RoundToEven(float64(min(max(v, 0), 255)))))
	}
	return T(v)
}

// fillValue is a fill colour's channel ch for an image of dtype dt: the
// byte itself for u8, byte/255 for f32.
func fillValue(fill [3]uint8, dt gojit.DType, ch int) float32 {
	if dt == gojit.Float32 {
		return float32(fill[ch]) / 255
	}
	return float32(fill[ch])
}

// flat holds, for every flat position e of a kernel's [batch, n] view of
// an image batch, the pixel coordinates within its sample's own [h, w, c]
// and whether e lies inside the sample.
type flat struct {
	b, n        int
	e, y, x, ch *gojit.Tensor // [b, n] Int32
	h, w, c     *gojit.Tensor // [b, 1] Int32
	valid       *gojit.Tensor // [b, n] Bool
}

func flatCoords(x, shapes *gojit.Tensor) flat {
	sh := x.Shape()
	f := flat{b: sh[0], n: sh[1] * sh[2] * sh[3]}
	f.h, f.w, f.c = column(shapes, 0), column(shapes, 1), column(shapes, 2)
	f.e = gojit.Iota(gojit.Int32, 1, f.b, f.n)
	wc := f.w.Mul(f.c)
	f.y = divFloor(f.e, wc, f.n)
	r := f.e.Sub(f.y.Mul(wc))
	f.x = divFloor(r, f.c, f.n)
	f.ch = r.Sub(f.x.Mul(f.c))
	f.valid = f.e.Less(f.h.Mul(wc))
	return f
}

// exactQuotient is the bound below which divFloor divides in float32:
// for 0 <= a < 2^23 and d >= 1, a+0.5 is exact and the true quotient
// (a+0.5)/d lies at least 0.5/d from an integer, while float32's rounded
// quotient is off by at most (a/d)*2^-24 < 0.5/d, so its floor is a/d.
const exactQuotient = 1 << 23

// divFloor is a/d for Int32 a in [0, bound) and d >= 0 (a/0 is taken as
// a/1; callers mask those samples out). Below exactQuotient it divides in
// float32, which vectorizes, where integer division is done one lane at a
// time (measured about 10x faster on Cutout); above, in Int32.
func divFloor(a, d *gojit.Tensor, bound int) *gojit.Tensor {
	d = d.Maximum(gojit.Scalar(1))
	if bound > exactQuotient {
		return a.Div(d)
	}
	q := a.Cast(gojit.Float32).Add(gojit.Scalar(0.5)).Div(d.Cast(gojit.Float32))
	return q.Floor().Cast(gojit.Int32)
}

// column returns column k of a [b, m] tensor as [b, 1].
func column(t *gojit.Tensor, k int) *gojit.Tensor {
	return t.Slice([]int{0, k}, []int{t.Shape()[0], k + 1})
}

// between is lo <= v < hi, elementwise.
func between(v, lo, hi *gojit.Tensor) *gojit.Tensor {
	return v.GreaterEqual(lo).LogicalAnd(v.Less(hi))
}

// fillOf returns, for channel indices ch, the fill colour's value.
func fillOf(fill [3]uint8, dt gojit.DType, c int, ch *gojit.Tensor) *gojit.Tensor {
	v := func(k int) *gojit.Tensor { return gojit.Full(dt, float64(fillValue(fill, dt, k))) }
	if c == 1 {
		return v(0)
	}
	return gojit.Where(ch.Equal(gojit.Scalar(0)), v(0), gojit.Where(ch.Equal(gojit.Scalar(1)), v(1), v(2)))
}

// Cutout returns an op that sets a size x size square of each image to
// the fill colour (FFCV's Cutout): the square's centre (cy, cx) is drawn
// uniformly over the image's pixels, rows cy-size/2 .. cy-size/2+size-1
// and the same columns, clipped at the edges. fill is an RGB colour in
// bytes; a grey image takes fill[0], an f32 image fill/255.
func Cutout(size int, fill [3]uint8) Op { return cutout{size, fill} }

type cutout struct {
	size int
	fill [3]uint8
}

func (cutout) Name() string { return "Cutout" }

// draw draws the square's top-left corner for an h x w image.
func (o cutout) draw(r *Rand, h, w int) (y0, x0 int) {
	cy := r.Intn(h)
	cx := r.Intn(w)
	return cy - o.size/2, cx - o.size/2
}

func (o cutout) Declare(in State, _ []State) (Decl, error) {
	if o.size < 1 {
		return Decl{}, fmt.Errorf("square size %d, want at least 1", o.size)
	}
	if err := checkImage(in); err != nil {
		return Decl{}, err
	}
	c := in.Shape[2]
	run := func(s *Sample) error {
		if err := sampleChannels(s, c); err != nil {
			return err
		}
		h, w := s.In.Shape[0], s.In.Shape[1]
		y0, x0 := o.draw(s.Rand(), h, w)
		copy(s.Out.Shape, s.In.Shape)
		copy(s.Out.Data, s.In.Data)
		if in.DType == gojit.Uint8 {
			cutoutRun(s.Out.Uint8(), o, in.DType, h, w, c, y0, x0)
		} else {
			cutoutRun(s.Out.Float32(), o, in.DType, h, w, c, y0, x0)
		}
		return nil
	}
	k := &Kernel{
		Name: "Cutout", PerSample: 2,
		Params: []float64{float64(o.size), float64(o.fill[0]), float64(o.fill[1]), float64(o.fill[2])},
		Draw: func(s *Sample, dst []float32) {
			y0, x0 := o.draw(s.Rand(), s.In.Shape[0], s.In.Shape[1])
			dst[0], dst[1] = float32(y0), float32(x0)
		},
		Trace: func(x, shapes, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			f := flatCoords(x, shapes)
			p := params.Cast(gojit.Int32)
			y0, x0 := column(p, 0), column(p, 1)
			size := gojit.Scalar(float64(o.size))
			in := between(f.y, y0, y0.Add(size)).LogicalAnd(between(f.x, x0, x0.Add(size))).LogicalAnd(f.valid)
			xf := x.Reshape(f.b, f.n)
			return gojit.Where(in, fillOf(o.fill, x.DType(), c, f.ch), xf).Reshape(x.Shape()...)
		},
	}
	return sameImage(in, run, k), nil
}

func cutoutRun[T pixels](px []T, o cutout, dt gojit.DType, h, w, c, y0, x0 int) {
	for y := max(y0, 0); y < min(y0+o.size, h); y++ {
		for x := max(x0, 0); x < min(x0+o.size, w); x++ {
			for ch := range c {
				px[(y*w+x)*c+ch] = toPixel[T](fillValue(o.fill, dt, ch))
			}
		}
	}
}

// RandomTranslate returns an op that shifts each image by (dy, dx), each
// drawn uniformly from [-padding, padding] (dy first), filling the pixels
// it uncovers with the fill colour (FFCV's RandomTranslate, which pads by
// padding and crops the original size back at a random offset): the
// output pixel (y, x) is the input's (y-dy, x-dx) when that lies inside
// the image. fill is taken as in Cutout.
func RandomTranslate(padding int, fill [3]uint8) Op { return translate{padding, fill} }

type translate struct {
	pad  int
	fill [3]uint8
}

func (translate) Name() string { return "RandomTranslate" }

func (o translate) draw(r *Rand) (dy, dx int) {
	dy = r.Intn(2*o.pad+1) - o.pad
	dx = r.Intn(2*o.pad+1) - o.pad
	return dy, dx
}

func (o translate) Declare(in State, _ []State) (Decl, error) {
	if o.pad < 0 {
		return Decl{}, fmt.Errorf("padding %d, want at least 0", o.pad)
	}
	if err := checkImage(in); err != nil {
		return Decl{}, err
	}
	c := in.Shape[2]
	run := func(s *Sample) error {
		if err := sampleChannels(s, c); err != nil {
			return err
		}
		dy, dx := o.draw(s.Rand())
		copy(s.Out.Shape, s.In.Shape)
		h, w := s.In.Shape[0], s.In.Shape[1]
		if in.DType == gojit.Uint8 {
			translateRun(s.Out.Uint8(), s.In.Uint8(), o.fill, in.DType, h, w, c, dy, dx)
		} else {
			translateRun(s.Out.Float32(), s.In.Float32(), o.fill, in.DType, h, w, c, dy, dx)
		}
		return nil
	}
	k := &Kernel{
		Name: "RandomTranslate", PerSample: 2,
		Params: []float64{float64(o.pad), float64(o.fill[0]), float64(o.fill[1]), float64(o.fill[2])},
		Draw: func(s *Sample, dst []float32) {
			dy, dx := o.draw(s.Rand())
			dst[0], dst[1] = float32(dy), float32(dx)
		},
		Trace: func(x, shapes, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			f := flatCoords(x, shapes)
			p := params.Cast(gojit.Int32)
			sy, sx := f.y.Sub(column(p, 0)), f.x.Sub(column(p, 1))
			zero := gojit.Scalar(0)
			inside := between(sy, zero, f.h).LogicalAnd(between(sx, zero, f.w)).LogicalAnd(f.valid)
			src := gojit.Where(inside, sy.Mul(f.w).Add(sx).Mul(f.c).Add(f.ch), gojit.Full(gojit.Int32, 0))
			xf := x.Reshape(f.b, f.n)
			out := gojit.Where(inside, xf.TakeAlongAxis(src, 1), fillOf(o.fill, x.DType(), c, f.ch))
			return gojit.Where(f.valid, out, gojit.Full(x.DType(), 0)).Reshape(x.Shape()...)
		},
	}
	return sameImage(in, run, k), nil
}

func translateRun[T pixels](dst, src []T, fill [3]uint8, dt gojit.DType, h, w, c, dy, dx int) {
	for y := range h {
		for x := range w {
			sy, sx := y-dy, x-dx
			inside := sy >= 0 && sy < h && sx >= 0 && sx < w
			for ch := range c {
				if inside {
					dst[(y*w+x)*c+ch] = src[(sy*w+sx)*c+ch]
				} else {
					dst[(y*w+x)*c+ch] = toPixel[T](fillValue(fill, dt, ch))
				}
			}
		}
	}
}

// Luma weights (ITU-R BT.601), as torchvision's rgb_to_grayscale.
const lumaR, lumaG, lumaB = 0.299, 0.587, 0.114

// luma is the grey of an RGB pixel in float32, each product rounded
// before the sum (as the kernels compute it: no fused multiply-add).
func luma(r, g, b float32) float32 {
	return float32(float32(lumaR)*r) + float32(float32(lumaG)*g) + float32(float32(lumaB)*b)
}

// lumaT is luma over the [b, p, 3] channel axis: [b, p, 1].
func lumaT(v *gojit.Tensor) *gojit.Tensor {
	sh := v.Shape()
	ch := func(k int) *gojit.Tensor { return v.Slice([]int{0, 0, k}, []int{sh[0], sh[1], k + 1}) }
	return ch(0).Mul(gojit.Scalar(lumaR)).Add(ch(1).Mul(gojit.Scalar(lumaG))).Add(ch(2).Mul(gojit.Scalar(lumaB)))
}

// ColorJitter returns an op that changes each image's brightness,
// contrast and saturation by random factors, drawn uniformly (in that
// order, one uniform each) from [max(0, 1-brightness), 1+brightness] and
// likewise for contrast and saturation, and applied in that fixed order,
// as torchvision's ColorJitter with its three first adjustments:
//
//	brightness: v = f*v
//	contrast:   v = f*v + (1-f)*mean grey of the image (after brightness)
//	saturation: v = f*v + (1-f)*grey of the pixel      (RGB images only)
//
// with grey = 0.299R + 0.587G + 0.114B. Each step clamps to [0, bound],
// bound 255 for u8 images and 1 for f32 ones (whose values are taken to be
// in [0, 1]); the computation is in float32 and a u8 result is rounded
// half to even once, at the end. A zero parameter leaves its adjustment
// out (its factor is 1) but still draws.
func ColorJitter(brightness, contrast, saturation float64) Op {
	return colorJitter{[3]float64{brightness, contrast, saturation}}
}

type colorJitter struct{ amount [3]float64 }

func (colorJitter) Name() string { return "ColorJitter" }

// draw fills f with the brightness, contrast and saturation factors.
func (o colorJitter) draw(r *Rand, f []float32) {
	for k, a := range o.amount {
		lo, hi := max(0, 1-a), 1+a
		f[k] = float32(lo + (hi-lo)*float64(r.Float32()))
	}
}

func (o colorJitter) Declare(in State, _ []State) (Decl, error) {
	for _, a := range o.amount {
		if !(a >= 0) || math.IsInf(a, 0) {
			return Decl{}, fmt.Errorf("brightness, contrast and saturation %v: want finite values >= 0", o.amount)
		}
	}
	if err := checkImage(in); err != nil {
		return Decl{}, err
	}
	c := in.Shape[2]
	bound := float32(255)
	if in.DType == gojit.Float32 {
		bound = 1
	}
	run := func(s *Sample) error {
		if err := sampleChannels(s, c); err != nil {
			return err
		}
		var f [3]float32
		o.draw(s.Rand(), f[:])
		copy(s.Out.Shape, s.In.Shape)
		if in.DType == gojit.Uint8 {
			jitterRun(s.Out.Uint8(), s.In.Uint8(), c, f, bound)
		} else {
			jitterRun(s.Out.Float32(), s.In.Float32(), c, f, bound)
		}
		return nil
	}
	k := &Kernel{
		Name: "ColorJitter", PerSample: 3, Params: o.amount[:],
		Draw: func(s *Sample, dst []float32) { o.draw(s.Rand(), dst) },
		Trace: func(x, shapes, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			sh := x.Shape()
			b, p := sh[0], sh[1]*sh[2]
			clamp := func(v *gojit.Tensor) *gojit.Tensor {
				return v.Maximum(gojit.Scalar(0)).Minimum(gojit.Scalar(float64(bound)))
			}
			blend := func(f, v, g *gojit.Tensor) *gojit.Tensor {
				return clamp(f.Mul(v).Add(gojit.Scalar(1).Sub(f).Mul(g)))
			}
			factor := func(k int) *gojit.Tensor { return column(params, k).Reshape(b, 1, 1) }
			hw := column(shapes, 0).Mul(column(shapes, 1)).Reshape(b, 1, 1)
			valid := gojit.Iota(gojit.Int32, 1, b, p, 1).Less(hw)
			v := clamp(x.Cast(gojit.Float32).Reshape(b, p, c).Mul(factor(0)))
			grey := v
			if c == 3 {
				grey = lumaT(v)
			}
			// The mean grey: a float64 sum over the sample's pixels (the
			// padding is zero here), so its order hardly matters.
			mean := grey.Cast(gojit.Float64).Sum(1, 2).Reshape(b, 1, 1).Div(hw.Cast(gojit.Float64)).Cast(gojit.Float32)
			v = blend(factor(1), v, mean)
			if c == 3 {
				v = blend(factor(2), v, lumaT(v))
			}
			v = gojit.Where(valid, v, gojit.Full(gojit.Float32, 0))
			if x.DType() == gojit.Uint8 {
				v = v.Round().Cast(gojit.Uint8)
			}
			return v.Reshape(sh...)
		},
	}
	return sameImage(in, run, k), nil
}

// blend is torchvision's _blend in float32: f*v + (1-f)*g clamped to
// [0, bound].
func blend(f, v, g, bound float32) float32 {
	return min(max(float32(f*v)+float32((1-f)*g), 0), bound)
}

func jitterRun[T pixels](dst, src []T, c int, f [3]float32, bound float32) {
	bright := func(v T) float32 { return min(max(float32(f[0]*float32(v)), 0), bound) }
	var sum float64
	n := len(src) / c
	for i := range n {
		if c == 3 {
			sum += float64(luma(bright(src[3*i]), bright(src[3*i+1]), bright(src[3*i+2])))
		} else {
			sum += float64(bright(src[i]))
		}
	}
	mean := float32(sum / float64(n))
	for i := range n {
		if c == 1 {
			dst[i] = toPixel[T](blend(f[1], bright(src[i]), mean, bound))
			continue
		}
		r := blend(f[1], bright(src[3*i]), mean, bound)
		g := blend(f[1], bright(src[3*i+1]), mean, bound)
		b := blend(f[1], bright(src[3*i+2]), mean, bound)
		y := luma(r, g, b)
		dst[3*i] = toPixel[T](blend(f[2], r, y, bound))
		dst[3*i+1] = toPixel[T](blend(f[2], g, y, bound))
		dst[3*i+2] = toPixel[T](blend(f[2], b, y, bound))
	}
}

// RandomGrayscale returns an op that, with probability p (one uniform
// drawn per sample), replaces each pixel of an RGB image by its grey
// 0.299R + 0.587G + 0.114B in all three channels (rounded half to even
// for u8). A grey image is copied unchanged (the draw is still made).
func RandomGrayscale(p float64) Op { return grayscale{p} }

type grayscale struct{ p float64 }

func (grayscale) Name() string { return "RandomGrayscale" }

func (o grayscale) draw(r *Rand) bool { return float64(r.Float32()) < o.p }

func (o grayscale) Declare(in State, _ []State) (Decl, error) {
	if !(o.p >= 0 && o.p <= 1) {
		return Decl{}, fmt.Errorf("probability %v outside [0, 1]", o.p)
	}
	if err := checkImage(in); err != nil {
		return Decl{}, err
	}
	c := in.Shape[2]
	run := func(s *Sample) error {
		if err := sampleChannels(s, c); err != nil {
			return err
		}
		grey := o.draw(s.Rand())
		copy(s.Out.Shape, s.In.Shape)
		copy(s.Out.Data, s.In.Data)
		if !grey || c == 1 {
			return nil
		}
		if in.DType == gojit.Uint8 {
			greyRun(s.Out.Uint8()[:len(s.In.Data)])
		} else {
			greyRun(s.Out.Float32()[:len(s.In.Data)/4])
		}
		return nil
	}
	k := &Kernel{
		Name: "RandomGrayscale", PerSample: 1, Params: []float64{o.p},
		Draw: func(s *Sample, dst []float32) {
			dst[0] = 0
			if o.draw(s.Rand()) {
				dst[0] = 1
			}
		},
		Trace: func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			if c == 1 {
				return x.Add(gojit.Scalar(0)) // a copy
			}
			sh := x.Shape()
			b, p := sh[0], sh[1]*sh[2]
			y := lumaT(x.Cast(gojit.Float32).Reshape(b, p, 3))
			if x.DType() == gojit.Uint8 {
				y = y.Minimum(gojit.Scalar(255)).Round().Cast(gojit.Uint8)
			}
			on := params.Reshape(b, 1, 1).Greater(gojit.Scalar(0.5))
			return gojit.Where(on, y, x.Reshape(b, p, 3)).Reshape(sh...)
		},
	}
	return sameImage(in, run, k), nil
}

func greyRun[T pixels](px []T) {
	for i := 0; i+2 < len(px); i += 3 {
		y := toPixel[T](luma(float32(px[i]), float32(px[i+1]), float32(px[i+2])))
		px[i], px[i+1], px[i+2] = y, y, y
	}
}

// mixupStream is the random stream ImageMixup and LabelMixup share.
const mixupStream = "mixup"

// ImageMixup returns a kernel-only op that mixes each image of a batch
// with a partner (FFCV's ImageMixup): position j of a batch of n samples
// is paired with position n-1-j (a middle sample pairs with itself and is
// unchanged), and both take the weight lambda ~ Beta(alpha, alpha) that
// the pair's first position j <= n-1-j drew from its Rand:
//
//	out[j] = lambda*image[j] + (1-lambda)*image[n-1-j]
//
// computed in float32 (a u8 result rounded half to even). The partner is
// read at the same (y, x, channel) coordinates, zero where it is smaller
// than the sample, and each sample keeps its shape. The op shares its
// random stream with LabelMixup (see RandSharer): given the same alpha,
// LabelMixup draws the same lambdas and pairs the same positions, whatever
// the number of workers. Being cross-sample it has no plain Go Run and
// ends a field's pipeline (until the stage compiler).
func ImageMixup(alpha float64) Op { return imageMixup{alpha} }

type imageMixup struct{ alpha float64 }

func (imageMixup) Name() string { return "ImageMixup" }

// RandStream shares the draws with LabelMixup.
func (imageMixup) RandStream() string { return mixupStream }

func (o imageMixup) Declare(in State, _ []State) (Decl, error) {
	if err := checkAlpha(o.alpha); err != nil {
		return Decl{}, err
	}
	if err := checkImage(in); err != nil {
		return Decl{}, err
	}
	k := &Kernel{
		Name: "ImageMixup", PerSample: 1, Params: []float64{o.alpha},
		Draw: func(s *Sample, dst []float32) { dst[0] = drawLambda(s.Rand(), o.alpha) },
		Trace: func(x, shapes, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			f := flatCoords(x, shapes)
			// The partner's shape and pixels: the batch reversed.
			ps := shapes.Flip(0)
			ph, pw, pc := column(ps, 0), column(ps, 1), column(ps, 2)
			inside := f.y.Less(ph).LogicalAnd(f.x.Less(pw)).LogicalAnd(f.ch.Less(pc)).LogicalAnd(f.valid)
			src := gojit.Where(inside, f.y.Mul(pw).Add(f.x).Mul(pc).Add(f.ch), gojit.Full(gojit.Int32, 0))
			xf := x.Reshape(f.b, f.n).Cast(gojit.Float32)
			partner := gojit.Where(inside, xf.Flip(0).TakeAlongAxis(src, 1), gojit.Full(gojit.Float32, 0))
			lam := pairLambda(params, f.b)
			v := lam.Mul(xf).Add(gojit.Scalar(1).Sub(lam).Mul(partner))
			v = gojit.Where(f.valid, v, gojit.Full(gojit.Float32, 0))
			if x.DType() == gojit.Uint8 {
				v = v.Maximum(gojit.Scalar(0)).Minimum(gojit.Scalar(255)).Round().Cast(gojit.Uint8)
			}
			return v.Reshape(x.Shape()...)
		},
	}
	return Decl{Out: in, Memory: &Alloc{DType: in.DType, Shape: in.Shape}, Kernel: k}, nil
}

// pairLambda returns, from the [b, 1] lambdas each position drew, the
// [b, 1] lambda of each position's pair: that of its first position.
func pairLambda(params *gojit.Tensor, b int) *gojit.Tensor {
	j := gojit.Iota(gojit.Int32, 0, b, 1)
	first := j.Mul(gojit.Scalar(2)).LessEqual(gojit.Scalar(float64(b - 1)))
	return gojit.Where(first, params, params.Flip(0))
}
