package pipeline

import (
	"fmt"

	"github.com/gojit/gojit"
)

// Normalize returns an op that converts an array whose last dimension is
// len(mean) channels (an image's [h, w, c]) to Float32, computing
// (x*scale - mean[c]) / std[c] for each element of channel c (scale 1/255
// maps 8-bit pixels to [0, 1] first). It is a plain Go op with a Kernel
// description for the stage compiler.
func Normalize(scale float32, mean, std []float32) Op {
	return normalize{scale: scale, mean: append([]float32{}, mean...), std: append([]float32{}, std...)}
}

type normalize struct {
	scale     float32
	mean, std []float32
}

func (normalize) Name() string { return "Normalize" }

func (n normalize) Declare(in State, _ []State) (Decl, error) {
	c := len(n.mean)
	switch {
	case c == 0 || len(n.std) != c:
		return Decl{}, fmt.Errorf("mean has %d channels and std %d; want the same number, at least 1", c, len(n.std))
	case in.GoValue || in.Stored != nil:
		return Decl{}, fmt.Errorf("want a decoded array, got %s", in)
	case len(in.Shape) == 0 || in.Shape[len(in.Shape)-1] < c || !in.Variable && in.Shape[len(in.Shape)-1] != c:
		return Decl{}, fmt.Errorf("want an array whose last dimension holds %d channels, got %s", c, in)
	}
	for _, s := range n.std {
		if s == 0 {
			return Decl{}, fmt.Errorf("std %v has a zero", n.std)
		}
	}
	out := in
	out.DType = gojit.Float32
	run := func(s *Sample) error {
		if k := s.In.Shape[len(s.In.Shape)-1]; k != c {
			return fmt.Errorf("sample has %d channels, Normalize has %d", k, c)
		}
		dst := s.Out.Float32()
		switch in.DType {
		case gojit.Uint8:
			for i, v := range s.In.Uint8() {
				dst[i] = (float32(v)*n.scale - n.mean[i%c]) / n.std[i%c]
			}
		case gojit.Float32:
			for i, v := range s.In.Float32() {
				dst[i] = (v*n.scale - n.mean[i%c]) / n.std[i%c]
			}
		default:
			return fmt.Errorf("Normalize takes u8 or f32, not %s", in.DType)
		}
		copy(s.Out.Shape, s.In.Shape)
		return nil
	}
	if in.DType != gojit.Uint8 && in.DType != gojit.Float32 {
		return Decl{}, fmt.Errorf("want u8 or f32 elements, got %s", in)
	}
	params := append([]float64{float64(n.scale)}, f64s(n.mean)...)
	params = append(params, f64s(n.std)...)
	return Decl{
		Out:    out,
		Memory: &Alloc{DType: gojit.Float32, Shape: in.Shape},
		Run:    run,
		Kernel: &Kernel{Name: "Normalize", Params: params, Trace: func(x, _, _ *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			return x.Cast(gojit.Float32).Mul(gojit.Scalar(float64(n.scale))).Sub(channels(n.mean)).Div(channels(n.std))
		}},
	}, nil
}

// channels returns a [len(v)] Float32 tensor of v's values, which
// broadcasts along the last dimension.
func channels(v []float32) *gojit.Tensor {
	parts := make([]*gojit.Tensor, len(v))
	for i, x := range v {
		parts[i] = gojit.Full(gojit.Float32, float64(x), 1)
	}
	return gojit.Concat(0, parts...)
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// RandomFlip returns an op that mirrors an image ([h, w, c]) horizontally,
// in place, with probability p, drawn from the sample's Rand.
func RandomFlip(p float32) Op { return randomFlip{p} }

type randomFlip struct{ p float32 }

func (randomFlip) Name() string { return "RandomFlip" }

func (f randomFlip) Declare(in State, _ []State) (Decl, error) {
	if in.GoValue || in.Stored != nil || len(in.Shape) != 3 {
		return Decl{}, fmt.Errorf("want a decoded [h w c] image, got %s", in)
	}
	if f.p < 0 || f.p > 1 {
		return Decl{}, fmt.Errorf("probability %v outside [0, 1]", f.p)
	}
	size := in.DType.Size()
	return Decl{Out: in, Run: func(s *Sample) error {
		if s.Rand().Float32() >= f.p {
			return nil
		}
		h, w, c := s.In.Shape[0], s.In.Shape[1], s.In.Shape[2]
		px, k := s.Out.Data, c*size
		for y := range h {
			row := px[y*w*k : (y+1)*w*k]
			for x := range w / 2 {
				a, b := row[x*k:(x+1)*k], row[(w-1-x)*k:(w-x)*k]
				for i := range k {
					a[i], b[i] = b[i], a[i]
				}
			}
		}
		return nil
	}}, nil
}
