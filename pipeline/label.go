package pipeline

import (
	"fmt"
	"math"

	"github.com/gojit/gojit"
)

// checkLabel reports whether in is an integer class label the label ops
// take: a scalar Int64 (IntDecoder's), Int32 or Uint8.
func checkLabel(in State, classes int) error {
	switch {
	case classes < 1:
		return fmt.Errorf("%d classes, want at least 1", classes)
	case in.GoValue || in.Stored != nil || len(in.Shape) != 0:
		return fmt.Errorf("want a decoded scalar integer label, got %s", in)
	case in.DType != gojit.Int64 && in.DType != gojit.Int32 && in.DType != gojit.Uint8:
		return fmt.Errorf("want an integer label (i64, i32 or u8), got %s", in)
	}
	return nil
}

// labelOf reads a sample's label and checks it against the classes.
func labelOf(v Value, classes int) (int, error) {
	var y int64
	switch v.DType {
	case gojit.Int64:
		y = v.Int64()[0]
	case gojit.Int32:
		y = int64(v.Int32()[0])
	default:
		y = int64(v.Uint8()[0])
	}
	if y < 0 || y >= int64(classes) {
		return 0, fmt.Errorf("label %d outside [0, %d)", y, classes)
	}
	return int(y), nil
}

// oneHot returns the [b, classes] Bool one-hot rows of the [b] labels.
// A label outside [0, classes) makes the kernel's call fail with an error
// wrapping gojit.ErrIndexOutOfRange, as Run fails on it.
func oneHot(labels *gojit.Tensor, classes int) *gojit.Tensor {
	eye := gojit.Iota(gojit.Int32, 0, classes, classes).Equal(gojit.Iota(gojit.Int32, 1, classes, classes))
	// Take counts negative indices from the end: send them past it.
	if labels.DType() == gojit.Uint8 {
		return eye.Take(labels, 0)
	}
	idx := gojit.Where(labels.Less(gojit.Scalar(0)), gojit.Full(labels.DType(), float64(classes)), labels)
	return eye.Take(idx, 0)
}

// LabelSmoothing returns an op that turns an integer class label into
// f32[classes] soft targets (1-eps)*onehot(label) + eps/classes: the
// label's class gets float32(1 - eps + eps/classes), the others
// float32(eps/classes). A label outside [0, classes) is an error.
func LabelSmoothing(classes int, eps float64) Op { return labelSmoothing{classes, eps} }

type labelSmoothing struct {
	classes int
	eps     float64
}

func (labelSmoothing) Name() string { return "LabelSmoothing" }

// values returns the label's class's target and the others'.
func (o labelSmoothing) values() (on, off float32) {
	e := o.eps / float64(o.classes)
	return float32(1 - o.eps + e), float32(e)
}

func (o labelSmoothing) Declare(in State, _ []State) (Decl, error) {
	if !(o.eps >= 0 && o.eps <= 1) {
		return Decl{}, fmt.Errorf("eps %v outside [0, 1]", o.eps)
	}
	if err := checkLabel(in, o.classes); err != nil {
		return Decl{}, err
	}
	on, off := o.values()
	out := State{DType: gojit.Float32, Shape: []int{o.classes}, Compilable: true}
	run := func(s *Sample) error {
		y, err := labelOf(s.In, o.classes)
		if err != nil {
			return err
		}
		dst := s.Out.Float32()
		for k := range dst {
			dst[k] = off
		}
		dst[y] = on
		s.Out.Shape[0] = o.classes
		return nil
	}
	k := &Kernel{
		Name: "LabelSmoothing", Params: []float64{float64(o.classes), o.eps},
		Trace: func(x, _, _ *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			return gojit.Where(oneHot(x, o.classes), gojit.Full(gojit.Float32, float64(on)), gojit.Full(gojit.Float32, float64(off)))
		},
	}
	return Decl{Out: out, Memory: &Alloc{DType: gojit.Float32, Shape: []int{o.classes}}, Run: run, Kernel: k}, nil
}

// LabelMixup returns the label half of ImageMixup: a kernel-only op that
// turns the integer label of position j of a batch of n samples into
// f32[classes] soft targets
//
//	lambda*onehot(label[j]) + (1-lambda)*onehot(label[n-1-j])
//
// with the partner and the lambda ImageMixup(alpha) uses for the image of
// the same position (it shares ImageMixup's random stream; give both the
// same alpha). A label outside [0, classes) makes the batch fail.
func LabelMixup(alpha float64, classes int) Op { return labelMixup{alpha, classes} }

type labelMixup struct {
	alpha   float64
	classes int
}

func (labelMixup) Name() string { return "LabelMixup" }

// RandStream shares the draws with ImageMixup.
func (labelMixup) RandStream() string { return mixupStream }

func (o labelMixup) Declare(in State, _ []State) (Decl, error) {
	if err := checkAlpha(o.alpha); err != nil {
		return Decl{}, err
	}
	if err := checkLabel(in, o.classes); err != nil {
		return Decl{}, err
	}
	out := State{DType: gojit.Float32, Shape: []int{o.classes}, Compilable: true}
	k := &Kernel{
		Name: "LabelMixup", PerSample: 1, Params: []float64{o.alpha, float64(o.classes)},
		Draw: func(s *Sample, dst []float32) { dst[0] = drawLambda(s.Rand(), o.alpha) },
		Trace: func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			b := x.Shape()[0]
			own := oneHot(x, o.classes).Cast(gojit.Float32)
			lam := pairLambda(params, b)
			return lam.Mul(own).Add(gojit.Scalar(1).Sub(lam).Mul(own.Flip(0)))
		},
	}
	return Decl{Out: out, Memory: &Alloc{DType: gojit.Float32, Shape: []int{o.classes}}, Kernel: k}, nil
}

func checkAlpha(alpha float64) error {
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return fmt.Errorf("alpha %v: want a finite value > 0", alpha)
	}
	return nil
}

// drawLambda draws a mixup weight ~ Beta(alpha, alpha).
func drawLambda(r *Rand, alpha float64) float32 { return float32(betaSample(r, alpha, alpha)) }

// uniform returns a float64 uniform in (0, 1), never 0 or 1.
func uniform(r *Rand) float64 { return (float64(r.Uint32()) + 0.5) / (1 << 32) }

// normal returns a standard normal draw (Box-Muller, one of the pair).
func normal(r *Rand) float64 {
	u, v := uniform(r), uniform(r)
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}

// logGamma returns the logarithm of a Gamma(a, 1) draw, a > 0: the
// Marsaglia-Tsang squeeze and rejection method for a >= 1, and for a < 1
// Gamma(a+1)*U^(1/a), kept in logarithms so that tiny draws do not
// underflow.
func logGamma(r *Rand, a float64) float64 {
	if a < 1 {
		return logGamma(r, a+1) + math.Log(uniform(r))/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := normal(r)
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := uniform(r)
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d * v)
		}
	}
}

// betaSample returns a Beta(a, b) draw, X/(X+Y) for X ~ Gamma(a) and
// Y ~ Gamma(b) (X drawn first), computed from their logarithms.
func betaSample(r *Rand, a, b float64) float64 {
	lx := logGamma(r, a)
	ly := logGamma(r, b)
	return 1 / (1 + math.Exp(ly-lx))
}
