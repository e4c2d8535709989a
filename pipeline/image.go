package pipeline

import (
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/jpeg"
)

// RandomResizedCropJPEG returns the decoder of a training pipeline's
// random resized crop (torchvision's RandomResizedCrop): for each image it
// draws a crop box of a random area (a fraction in [scale[0], scale[1]] of
// the image's) and aspect ratio (log-uniform in [ratio[0], ratio[1]]), as
// torchvision does (ten tries, then a central crop), and produces the box
// resized bilinearly to size by size pixels: a Uint8 [size, size, c] image,
// c the field's channels.
//
// The crop box is chosen first, then only the part of the image it needs is
// decoded: the rows and iMCU columns it touches, at the largest DCT scale
// factor (1/8, 1/4 or 1/2; see jpeg.CropScale for why not the other
// eighths) that leaves it at least size pixels on each side
// (libjpeg-turbo's crop, skip-scanline and scaled decoding). Decoding runs
// with the plain Go ops, straight into the batch's memory; the resampling
// is compiled and fused with the ops that follow (flip, normalize, layout).
// Raw image fields work too (nothing to decode). With Config.NoCompile the
// whole image is decoded and cropped and resized in Go: the reference.
//
// Options change the resampling: Antialias() selects the antialiased
// triangle filter of torchvision's and PIL's resize when shrinking.
func RandomResizedCropJPEG(size int, scale, ratio [2]float64, opts ...CropOption) Op {
	return cropDecoder{name: "RandomResizedCropJPEG", size: size, random: true, scale: scale, ratio: ratio}.with(opts)
}

// CenterCropJPEG returns the decoder of a validation pipeline's centre crop
// (FFCV's CenterCropRGBImageDecoder): the central square whose side is
// ratio times the image's shorter side (224/256 = 0.875 is ImageNet's),
// resized bilinearly to size by size pixels, decoding only what the square
// needs as RandomResizedCropJPEG does. Options are RandomResizedCropJPEG's.
func CenterCropJPEG(size int, ratio float64, opts ...CropOption) Op {
	return cropDecoder{name: "CenterCropJPEG", size: size, cratio: ratio}.with(opts)
}

type cropDecoder struct {
	name         string
	size         int
	random       bool
	scale, ratio [2]float64
	cratio       float64
	antialias    bool // Antialias: the triangle filter instead of bilinear sampling
}

// with returns d with opts applied.
func (d cropDecoder) with(opts []CropOption) cropDecoder {
	for _, o := range opts {
		if o != nil {
			o(&d)
		}
	}
	return d
}

func (d cropDecoder) Name() string { return d.name }

func (cropDecoder) Decoder() {}

func (d cropDecoder) Declare(in State, _ []State) (Decl, error) {
	switch {
	case in.Stored == nil || in.Stored.Kind != dataset.KindImage:
		return Decl{}, fmt.Errorf("decodes image fields, not %s", in)
	case d.size < 1:
		return Decl{}, fmt.Errorf("output size %d, want at least 1", d.size)
	case d.random && !(0 < d.scale[0] && d.scale[0] <= d.scale[1] && d.scale[1] <= 1):
		return Decl{}, fmt.Errorf("scale %v: want 0 < scale[0] <= scale[1] <= 1", d.scale)
	case d.random && !(0 < d.ratio[0] && d.ratio[0] <= d.ratio[1]):
		return Decl{}, fmt.Errorf("ratio %v: want 0 < ratio[0] <= ratio[1]", d.ratio)
	case !d.random && !(0 < d.cratio && d.cratio <= 1):
		return Decl{}, fmt.Errorf("ratio %v: want a fraction of the shorter side in (0, 1]", d.cratio)
	case len(in.Shape) != 3 || in.Shape[2] != 1 && in.Shape[2] != 3:
		return Decl{}, fmt.Errorf("decodes to 1 or 3 channels; the field holds %s", in)
	}
	c := in.Shape[2]
	S := d.size
	out := State{DType: gojit.Uint8, Shape: []int{S, S, c}, Compilable: true}
	mid := State{DType: gojit.Uint8, Shape: in.Shape, Variable: true, Compilable: true, Side: 4}
	kname, resize, filter := d.name+":resize", resizeBilinear, 0.0
	if d.antialias {
		kname, resize, filter = d.name+":resize-antialias", resizeAntialias, 1
	}
	return Decl{
		Out:    out,
		Memory: &Alloc{DType: gojit.Uint8, Shape: out.Shape},
		Run:    d.runReference,
		Split: &Split{
			Run:    d.runRegion,
			Mid:    mid,
			Memory: Alloc{DType: gojit.Uint8, Shape: in.Shape},
			Kernel: &Kernel{
				Name:      kname,
				Params:    []float64{float64(S), filter},
				PerSample: 4,
				Draw:      func(s *Sample, dst []float32) { copy(dst, s.In.Side[:4]) },
				Mirror:    func(box []float32) { box[0], box[2] = box[2], box[0] },
				Trace: func(x, shapes, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
					return resize(x, shapes, params, S)
				},
			},
		},
	}, nil
}

// box returns the crop box (x, y, width, height) of an image of w by h
// pixels, drawing from r for a random crop as torchvision's
// RandomResizedCrop.get_params does.
func (d cropDecoder) box(r *Rand, w, h int) (int, int, int, int) {
	if !d.random {
		side := int(math.Round(d.cratio * float64(min(w, h))))
		side = max(1, min(side, w, h))
		return (w - side) / 2, (h - side) / 2, side, side
	}
	area := float64(w * h)
	lr0, lr1 := math.Log(d.ratio[0]), math.Log(d.ratio[1])
	for range 10 {
		target := area * (d.scale[0] + (d.scale[1]-d.scale[0])*float64(r.Float32()))
		aspect := math.Exp(lr0 + (lr1-lr0)*float64(r.Float32()))
		cw := int(math.Round(math.Sqrt(target * aspect)))
		ch := int(math.Round(math.Sqrt(target / aspect)))
		if 0 < cw && cw <= w && 0 < ch && ch <= h {
			y := r.Intn(h - ch + 1)
			x := r.Intn(w - cw + 1)
			return x, y, cw, ch
		}
	}
	// A central crop of the image's aspect ratio clamped to the range.
	cw, ch := w, h
	if in := float64(w) / float64(h); in < d.ratio[0] {
		ch = int(math.Round(float64(w) / d.ratio[0]))
	} else if in > d.ratio[1] {
		cw = int(math.Round(float64(h) * d.ratio[1]))
	}
	cw, ch = max(1, min(cw, w)), max(1, min(ch, h))
	return (w - cw) / 2, (h - ch) / 2, cw, ch
}

// imageSize returns a stored image's height and width from its metadata,
// checked against the field's maximum.
func imageSize(s *Sample, max []int) (int, int, error) {
	sh := s.Meta.Shape
	if len(sh) != 3 {
		return 0, 0, fmt.Errorf("image metadata shape %v, want [height width channels]", sh)
	}
	if sh[0] < 1 || sh[1] < 1 || sh[0] > max[0] || sh[1] > max[1] {
		return 0, 0, fmt.Errorf("image of %dx%d, outside the field's maximum %dx%d", sh[0], sh[1], max[0], max[1])
	}
	return sh[0], sh[1], nil
}

// decodeWhole decodes a stored image into dst (h*w*c bytes), to c
// channels.
func decodeWhole(dst []byte, s *Sample, h, w, c int) error {
	if s.Meta.Encoding == dataset.JPEG {
		return jpeg.Decode(dst, s.Raw, w, h, c)
	}
	return rawPixels(dst, s.Raw, h, w, s.Meta.Shape[2], c)
}

// rawPixels copies raw pixels of sc channels to dst as c channels: gray
// repeated, or RGB to luma (the weights of JPEG's, as package jpeg does).
func rawPixels(dst, raw []byte, h, w, sc, c int) error {
	if len(raw) != h*w*sc {
		return fmt.Errorf("%d raw bytes for a %dx%dx%d image", len(raw), h, w, sc)
	}
	switch {
	case sc == c:
		copy(dst, raw)
	case sc == 1 && c == 3:
		for i, v := range raw {
			dst[3*i], dst[3*i+1], dst[3*i+2] = v, v, v
		}
	case sc == 3 && c == 1:
		for i := range dst[:h*w] {
			r, g, b := float32(raw[3*i]), float32(raw[3*i+1]), float32(raw[3*i+2])
			dst[i] = uint8(0.299*r + 0.587*g + 0.114*b + 0.5)
		}
	default:
		return fmt.Errorf("cannot turn %d channels into %d", sc, c)
	}
	return nil
}

// scratch holds whole decoded images for the plain Go reference.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// runReference is the op in plain Go: decode the whole image, crop,
// resize.
func (d cropDecoder) runReference(s *Sample) error {
	max := s.Out.Shape // [S, S, c], set by the loader
	S, c := d.size, max[2]
	h, w, err := imageSize(s, []int{math.MaxInt, math.MaxInt})
	if err != nil {
		return err
	}
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	if cap(*bp) < h*w*c {
		*bp = make([]byte, h*w*c)
	}
	img := (*bp)[:h*w*c]
	if err := decodeWhole(img, s, h, w, c); err != nil {
		return err
	}
	x, y, cw, ch := d.box(s.Rand(), w, h)
	box := [4]float32{float32(x), float32(y), float32(x + cw), float32(y + ch)}
	if d.antialias {
		resampleAA(s.Out.Data[:S*S*c], S, img, w, h, c, box)
		return nil
	}
	resampleRef(s.Out.Data[:S*S*c], S, img, w, h, c, box, false)
	return nil
}

// runRegion is the op's plain Go part when compiled: decode the region the
// crop box needs into the batch's memory, its box (in the decoded pixels)
// in the side values.
func (d cropDecoder) runRegion(s *Sample) error {
	max := s.Out.Shape // the field's maximum, set by the loader
	c := max[2]
	h, w, err := imageSize(s, max)
	if err != nil {
		return err
	}
	x, y, cw, ch := d.box(s.Rand(), w, h)
	if s.Meta.Encoding != dataset.JPEG {
		if err := decodeWhole(s.Out.Data[:h*w*c], s, h, w, c); err != nil {
			return err
		}
		s.Out.Shape[0], s.Out.Shape[1], s.Out.Shape[2] = h, w, c
		s.Out.Side[0], s.Out.Side[1], s.Out.Side[2], s.Out.Side[3] = float32(x), float32(y), float32(x+cw), float32(y+ch)
		return nil
	}
	// Only the rows and iMCU columns of the box, at the largest DCT
	// reduction that keeps it at least size by size.
	cr, err := jpeg.DecodeCrop(s.Out.Data, s.Raw, image.Rect(x, y, x+cw, y+ch), d.size, d.size, c)
	if err != nil {
		return err
	}
	s.Out.Shape[0], s.Out.Shape[1], s.Out.Shape[2] = cr.H, cr.W, c
	s.Out.Side[0], s.Out.Side[1], s.Out.Side[2], s.Out.Side[3] = float32(cr.X0), float32(cr.Y0), float32(cr.X1), float32(cr.Y1)
	return nil
}

// resampleRef fills dst (S by S pixels, c channels) with box (x0, y0, x1,
// y1, in src's pixel coordinates) of src (w by h pixels) resized
// bilinearly: output pixel (i, j) samples src at x0 + (i+0.5)*(x1-x0)/S -
// 0.5 (likewise in y), clamped to the image, and is rounded half up; flip
// mirrors the output. It is the plain Go reference of the compiled resize
// (resizeBilinear), in the same float32 arithmetic.
func resampleRef(dst []byte, S int, src []byte, w, h, c int, box [4]float32, flip bool) {
	for i := range S {
		y0, y1, ty := sampleAt(box[1], box[3], i, S, h)
		for j := range S {
			jj := j
			if flip {
				jj = S - 1 - j
			}
			x0, x1, tx := sampleAt(box[0], box[2], jj, S, w)
			for k := range c {
				a := float32(src[(y0*w+x0)*c+k])
				b := float32(src[(y0*w+x1)*c+k])
				cc := float32(src[(y1*w+x0)*c+k])
				dd := float32(src[(y1*w+x1)*c+k])
				top := a + (b-a)*tx
				bot := cc + (dd-cc)*tx
				v := top + (bot-top)*ty
				dst[(i*S+j)*c+k] = uint8(float32(math.Floor(float64(v + 0.5))))
			}
		}
	}
}

// sampleAt maps output pixel i of S onto [lo, hi) of an axis of n pixels:
// the two neighbours to interpolate and the weight of the second.
func sampleAt(lo, hi float32, i, S, n int) (int, int, float32) {
	p := lo + (float32(i)+0.5)*((hi-lo)/float32(S)) - 0.5
	p = min(max(p, 0), float32(n-1))
	f := float32(math.Floor(float64(p)))
	p0 := int(f)
	return p0, min(p0+1, n-1), p - f
}

// regionsOf returns what a compiled resize reads of its input batch x
// (Uint8 [B, H, W, C], each sample's region packed first in its slot) and
// of shapes ([B, 3]): the batch's dimensions, and each sample's height
// (Float32 [B, 1]) and width (Int32 and Float32 [B, 1]).
func regionsOf(x, shapes *gojit.Tensor) (B, H, W, C int, hf, wi, wf *gojit.Tensor) {
	xs := x.Shape()
	wi = column(shapes, 1)
	return xs[0], xs[1], xs[2], xs[3], column(shapes, 0).Cast(gojit.Float32), wi, wi.Cast(gojit.Float32)
}

// bilinearCoords maps the centres of S output pixels onto [lo, hi) of an
// axis of n pixels (lo, hi, n: Float32 [B, 1]) as sampleAt does: the two
// neighbours to interpolate (Int32 [B, S]) and the weight of the second.
func bilinearCoords(lo, hi, n *gojit.Tensor, S int) (i0, i1, t *gojit.Tensor) {
	pos := gojit.Iota(gojit.Float32, 1, 1, S).Add(gojit.Scalar(0.5)) // [1, S]: pixel centres
	s := lo.Add(pos.Mul(hi.Sub(lo).Div(gojit.Scalar(float64(S))))).Sub(gojit.Scalar(0.5))
	last := n.Sub(gojit.Scalar(1))
	s = s.Maximum(gojit.Scalar(0)).Minimum(last)
	f := s.Floor()
	return f.Cast(gojit.Int32), f.Add(gojit.Scalar(1)).Minimum(last).Cast(gojit.Int32), s.Sub(f)
}

// resizeBilinear records the compiled resize: x is the batch of decoded
// regions (Uint8 [B, H, W, c], sample b's h by w pixels packed first in its
// row), shapes their [B, 3] sizes, box their [B, 4] crop boxes; the result
// is Uint8 [B, S, S, c], as resampleRef computes it.
func resizeBilinear(x, shapes, box *gojit.Tensor, S int) *gojit.Tensor {
	B, H, W, C, hf, wi, wf := regionsOf(x, shapes)
	y0, y1, ty := bilinearCoords(column(box, 1), column(box, 3), hf, S)
	x0, x1, tx := bilinearCoords(column(box, 0), column(box, 2), wf, S)
	// The index of a pixel's channel is the sum of a row term [B, S, 1, 1],
	// a column term [B, 1, S, 1] and the channel [1, 1, 1, C], each
	// stretched to the output's shape on its own and added there (measured
	// a little faster than adding the terms first and stretching the sums).
	full := []int{B, S, S, C}
	base := gojit.Iota(gojit.Int32, 0, B, 1, 1, 1).Mul(gojit.Scalar(float64(H * W * C)))
	ch := gojit.Iota(gojit.Int32, 3, 1, 1, 1, C).BroadcastTo(full...)
	rowOf := func(y *gojit.Tensor) *gojit.Tensor { // start of row y
		return y.Mul(wi).Mul(gojit.Scalar(float64(C))).Reshape(B, S, 1, 1).Add(base).BroadcastTo(full...)
	}
	colOf := func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(float64(C))).Reshape(B, 1, S, 1).BroadcastTo(full...)
	}
	flat := x.Reshape(B * H * W * C)
	at := func(row, col *gojit.Tensor) *gojit.Tensor {
		return flat.Take(row.Add(col).Add(ch), 0).Cast(gojit.Float32)
	}
	r0, r1, c0, c1 := rowOf(y0), rowOf(y1), colOf(x0), colOf(x1)
	a, b, c, d := at(r0, c0), at(r0, c1), at(r1, c0), at(r1, c1)
	txb, tyb := tx.Reshape(B, 1, S, 1).BroadcastTo(full...), ty.Reshape(B, S, 1, 1).BroadcastTo(full...)
	top := a.Add(b.Sub(a).Mul(txb))
	bot := c.Add(d.Sub(c).Mul(txb))
	v := top.Add(bot.Sub(top).Mul(tyb))
	return v.Add(gojit.Scalar(0.5)).Floor().Cast(gojit.Uint8)
}

// RandomHorizontalFlip returns an op that mirrors an image ([h, w, c])
// left to right with probability p, drawn from the sample's Rand. It is
// compiled on a fixed-size image (after a resized crop, fused with it),
// and runs in place in plain Go on a variable-size one.
func RandomHorizontalFlip(p float64) Op { return hflip{p} }

type hflip struct{ p float64 }

func (hflip) Name() string { return "RandomHorizontalFlip" }

func (f hflip) Declare(in State, _ []State) (Decl, error) {
	if in.GoValue || in.Stored != nil || len(in.Shape) != 3 {
		return Decl{}, fmt.Errorf("want a decoded [h w c] image, got %s", in)
	}
	if !(f.p >= 0 && f.p <= 1) {
		return Decl{}, fmt.Errorf("probability %v outside [0, 1]", f.p)
	}
	p := float32(f.p)
	flips := func(s *Sample) bool { return s.Rand().Float32() < p }
	size := in.DType.Size()
	d := Decl{Out: in, Run: func(s *Sample) error {
		if flips(s) {
			mirror(s.Out.Data, s.In.Shape[0], s.In.Shape[1], s.In.Shape[2]*size)
		}
		return nil
	}}
	if !in.Variable {
		d.Kernel = &Kernel{Name: "RandomHorizontalFlip", Params: []float64{f.p}, PerSample: 1, hflip: true,
			Draw: func(s *Sample, dst []float32) {
				dst[0] = 0
				if flips(s) {
					dst[0] = 1
				}
			},
			Trace: func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
				flag := params.Reshape(x.Shape()[0], 1, 1, 1).Greater(gojit.Scalar(0.5))
				return gojit.Where(flag, x.Flip(2), x)
			}}
	}
	return d, nil
}

// mirror reverses the order of the k-byte pixels of each of the h rows of
// w pixels in px.
func mirror(px []byte, h, w, k int) {
	for y := range h {
		row := px[y*w*k : (y+1)*w*k]
		for x := range w / 2 {
			a, b := row[x*k:(x+1)*k], row[(w-1-x)*k:(w-x)*k]
			for i := range k {
				a[i], b[i] = b[i], a[i]
			}
		}
	}
}

// ToCHW returns an op that turns an image's [h, w, c] layout (channels
// last, as decoded) into [c, h, w] (channels first, as PyTorch models
// take). It is compiled on a fixed-size image, fused into the stage before
// it; a variable-size image is transposed in plain Go.
func ToCHW() Op { return toCHW{} }

type toCHW struct{}

func (toCHW) Name() string { return "ToCHW" }

func (toCHW) Declare(in State, _ []State) (Decl, error) {
	if in.GoValue || in.Stored != nil || len(in.Shape) != 3 {
		return Decl{}, fmt.Errorf("want a decoded [h w c] image, got %s", in)
	}
	out := in
	out.Shape = []int{in.Shape[2], in.Shape[0], in.Shape[1]}
	out.Side = 0
	size := in.DType.Size()
	d := Decl{Out: out, Memory: &Alloc{DType: in.DType, Shape: out.Shape}, Run: func(s *Sample) error {
		h, w, c := s.In.Shape[0], s.In.Shape[1], s.In.Shape[2]
		src, dst := s.In.Data, s.Out.Data
		for y := range h {
			for x := range w {
				for k := range c {
					copy(dst[((k*h+y)*w+x)*size:][:size], src[((y*w+x)*c+k)*size:][:size])
				}
			}
		}
		s.Out.Shape[0], s.Out.Shape[1], s.Out.Shape[2] = c, h, w
		return nil
	}}
	if !in.Variable {
		d.Kernel = &Kernel{Name: "ToCHW", Trace: func(x, _, _ *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			return x.Transpose(0, 3, 1, 2)
		}}
	}
	return d, nil
}
