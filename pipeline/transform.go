package pipeline

import (
	"fmt"
	"math"

	"github.com/gojit/gojit"
)

// Normalize returns an op that computes (x - mean[c]) * (1/std[c]) for each
// element of channel c of an image whose last dimension is len(mean)
// channels ([h, w, c], as decoded), with mean and std in pixel units (0 to
// 255 for 8-bit pixels: ImageNet's mean is 123.675, 116.28, 103.53), and
// converts the result to dt: Float32, Float16 or Float64, or Uint8
// (rounded half to even and clamped to [0, 255]). It is compiled, fused
// with the ops around it; its plain Go Run is the reference.
func Normalize(mean, std []float32, dt gojit.DType) Op {
	return normalize{mean: append([]float32{}, mean...), std: append([]float32{}, std...), dt: dt}
}

type normalize struct {
	mean, std []float32
	dt        gojit.DType
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
	case in.DType != gojit.Uint8 && in.DType != gojit.Float32:
		return Decl{}, fmt.Errorf("want u8 or f32 elements, got %s", in)
	case n.dt != gojit.Float32 && n.dt != gojit.Float16 && n.dt != gojit.Float64 && n.dt != gojit.Uint8:
		return Decl{}, fmt.Errorf("converts to Float32, Float16, Float64 or Uint8, not %s", n.dt)
	}
	for _, s := range n.std {
		if s == 0 {
			return Decl{}, fmt.Errorf("std %v has a zero", n.std)
		}
	}
	out := in
	out.DType, out.Side = n.dt, 0
	// Multiplying by 1/std (in float32) rather than dividing: the same in
	// plain Go and compiled, and a division per element costs several
	// multiplications' time.
	inv := make([]float32, c)
	for k, s := range n.std {
		inv[k] = 1 / s
	}
	run := func(s *Sample) error {
		if k := s.In.Shape[len(s.In.Shape)-1]; k != c {
			return fmt.Errorf("sample has %d channels, Normalize has %d", k, c)
		}
		put := n.store(s.Out)
		switch in.DType {
		case gojit.Uint8:
			for i, v := range s.In.Uint8() {
				put(i, (float32(v)-n.mean[i%c])*inv[i%c])
			}
		case gojit.Float32:
			for i, v := range s.In.Float32() {
				put(i, (v-n.mean[i%c])*inv[i%c])
			}
		}
		copy(s.Out.Shape, s.In.Shape)
		return nil
	}
	params := append(f64s(n.mean), f64s(n.std)...)
	return Decl{
		Out:    out,
		Memory: &Alloc{DType: n.dt, Shape: in.Shape},
		Run:    run,
		Kernel: &Kernel{Name: "Normalize", Params: append(params, float64(n.dt)), Trace: func(x, _, _ *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			y := x.Cast(gojit.Float32).Sub(channels(n.mean)).Mul(channels(inv))
			if n.dt == gojit.Uint8 {
				y = y.Round().Clip(gojit.Scalar(0), gojit.Scalar(255))
			}
			return y.Cast(n.dt)
		}},
	}, nil
}

// store returns a function that stores element i of v as v's dtype.
func (n normalize) store(v Value) func(i int, x float32) {
	switch n.dt {
	case gojit.Float16:
		d := view[gojit.F16](v.Data)
		return func(i int, x float32) { d[i] = gojit.F16Of(x) }
	case gojit.Float64:
		d := v.Float64()
		return func(i int, x float32) { d[i] = float64(x) }
	case gojit.Uint8:
		d := v.Uint8()
		return func(i int, x float32) {
			d[i] = uint8(min(max(math.RoundToEven(float64(x)), 0), 255))
		}
	}
	d := v.Float32()
	return func(i int, x float32) { d[i] = x }
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
