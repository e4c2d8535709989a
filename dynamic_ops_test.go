package gojit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/runtime"
)

// dynamicSizes are the batch sizes every dynamic case runs at: empty, one
// row, fewer rows than a matmul tile, the trace sizes' neighbourhood, and
// large enough for the runtime to split loops across threads.
var dynamicSizes = []int{0, 1, 2, 7, 23, 61, 100, 1000}

// aroundStream returns batch sizes around the one from which x.Add(b), x
// of shape [B, 4000] and b of [4000] float32, moves the host's streaming
// threshold: its output and x (32,000 bytes per row) plus b (16,000
// bytes); and twice that size.
func aroundStream() []int {
	least := int((runtime.StreamThreshold() - 16000 + 31999) / 32000)
	return []int{0, 1, least - 1, least, least + 1, 2 * least}
}

// dynArg describes one argument of a dynamic case: its dtype and shape,
// with -1 standing for the batch size.
type dynArg struct {
	dt    gojit.DType
	shape []int
}

func (a dynArg) at(b int, r *rand.Rand) *gojit.Array {
	shape := make([]int, len(a.shape))
	n := 1
	for k, d := range a.shape {
		if d < 0 {
			d = b
		}
		shape[k] = d
		n *= d
	}
	switch a.dt {
	case gojit.Float64:
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		return gojit.FromFloat64(x, shape...)
	case gojit.Int32:
		x := make([]int32, n)
		for i := range x {
			x[i] = r.Int32N(2001) - 1000
		}
		return gojit.FromInt32(x, shape...)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return gojit.FromFloat32(x, shape...)
}

func f32(shape ...int) dynArg { return dynArg{gojit.Float32, shape} }

const B = -1 // the batch axis in a dynArg's shape

// dynamicCases are functions that one kernel must serve at every batch
// size. Each runs with the dynamic axes given and is compared, bit for
// bit, with the same function compiled for each size's static shapes.
var dynamicCases = []struct {
	name  string
	fn    any
	args  []dynArg
	dyn   [][2]int // WithDynamicDim(arg, axis)
	sizes []int    // instead of dynamicSizes
	// reassoc marks float sums along the dynamic axis: vectorized for an
	// unknown trip count, they may round differently from the static
	// kernel's, within the tolerance of float sums. So may a matmul whose
	// K or N follows B: at some sizes the static kernel computes the
	// columns right of its last whole vector as dot products along k
	// (codegen mmCtx.dotTail), which the dynamic one does only for
	// constant K and N.
	reassoc bool
}{
	{"matmul", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(B, 300), f32(300, 50)}, [][2]int{{0, 0}}, nil, false},
	{"matmul_f64", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{{gojit.Float64, []int{B, 37}}, {gojit.Float64, []int{37, 70}}}, [][2]int{{0, 0}}, nil, false},
	{"matmul_i32", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{{gojit.Int32, []int{B, 20}}, {gojit.Int32, []int{20, 40}}}, [][2]int{{0, 0}}, nil, false},
	{"matmul_narrow", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(B, 5), f32(5, 4)}, [][2]int{{0, 0}}, nil, false},
	// Narrow tails as dot products (dotTail) whose K ends in a partial
	// vector read with a masked load: one column right of two panels'
	// worth of vectors, and right of one float64 vector with K below two.
	{"matmul_dot_tail", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(B, 17), f32(17, 33)}, [][2]int{{0, 0}}, nil, false},
	{"matmul_dot_tail_f64", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{{gojit.Float64, []int{B, 15}}, {gojit.Float64, []int{15, 9}}}, [][2]int{{0, 0}}, nil, false},
	{"dense_relu", func(x, w, b *gojit.Tensor) *gojit.Tensor { return x.MatMul(w).Add(b).Relu() },
		[]dynArg{f32(B, 64), f32(64, 40), f32(40)}, [][2]int{{0, 0}}, nil, false},
	{"mlp", func(x, w1, b1, w2, b2 *gojit.Tensor) *gojit.Tensor {
		h := x.MatMul(w1).Add(b1).Relu()
		return h.MatMul(w2).Add(b2).Relu()
	}, []dynArg{f32(B, 64), f32(64, 96), f32(96), f32(96, 10), f32(10)}, [][2]int{{0, 0}}, nil, false},
	{"bmm_batch", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(B, 3, 20), f32(B, 20, 33)}, [][2]int{{0, 0}, {1, 0}}, nil, false},
	{"bmm_rows", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(3, B, 20), f32(3, 20, 33)}, [][2]int{{0, 1}}, nil, false},
	{"bmm_broadcast", func(x, w *gojit.Tensor) *gojit.Tensor { return x.MatMul(w) },
		[]dynArg{f32(B, 5, 16), f32(16, 24)}, [][2]int{{0, 0}}, nil, false},
	{"matmul_cols", func(w, xt *gojit.Tensor) *gojit.Tensor { return w.MatMul(xt) },
		[]dynArg{f32(30, 40), f32(40, B)}, [][2]int{{1, 1}}, nil, true},
	{"matmul_cols_epilogue", func(w, xt, b *gojit.Tensor) *gojit.Tensor {
		return w.MatMul(xt).Add(b.ExpandDims(1)).Relu()
	}, []dynArg{f32(30, 40), f32(40, B), f32(30)}, [][2]int{{1, 1}}, nil, true},
	{"matmul_transposed", func(w, x *gojit.Tensor) *gojit.Tensor { return w.MatMul(x.Transpose()).Tanh() },
		[]dynArg{f32(30, 40), f32(B, 40)}, [][2]int{{1, 0}}, nil, true},
	{"matmul_over_batch", func(x, d *gojit.Tensor) *gojit.Tensor { return x.Transpose().MatMul(d) },
		[]dynArg{f32(B, 40), f32(B, 33)}, [][2]int{{0, 0}, {1, 0}}, nil, true},
	{"gram_epilogue", func(x, b *gojit.Tensor) *gojit.Tensor { return x.Transpose().MatMul(x).Add(b).Relu() },
		[]dynArg{{gojit.Float64, []int{B, 20}}, {gojit.Float64, []int{20}}}, [][2]int{{0, 0}}, nil, true},
	{"row_sum", func(x *gojit.Tensor) *gojit.Tensor { return x.Sum(1) },
		[]dynArg{f32(B, 100)}, [][2]int{{0, 0}}, nil, true},
	{"row_max_min_mean", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
		return x.Max(1), x.Min(-1), x.Mean(1)
	}, []dynArg{f32(B, 33)}, [][2]int{{0, 0}}, nil, true},
	{"softmax", func(x *gojit.Tensor) *gojit.Tensor {
		e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
		return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
	}, []dynArg{f32(B, 100)}, [][2]int{{0, 0}}, nil, true},
	{"layer_norm", func(x, g, b *gojit.Tensor) *gojit.Tensor {
		mu := x.Reduce(gojit.ReduceMean, true, -1)
		d := x.Sub(mu)
		v := d.Mul(d).Reduce(gojit.ReduceMean, true, -1)
		return d.Mul(v.Add(gojit.Scalar(1e-5)).Rsqrt()).Mul(g).Add(b)
	}, []dynArg{f32(B, 64), f32(64), f32(64)}, [][2]int{{0, 0}}, nil, true},
	{"bias", func(x, b *gojit.Tensor) *gojit.Tensor { return x.Add(b).Mul(gojit.Scalar(2)) },
		[]dynArg{f32(B, 48), f32(48)}, [][2]int{{0, 0}}, nil, false},
	{"transpose_reshape", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		return x.Transpose(0, 2, 1).Exp(), x.Reshape(-1, 12).Add(gojit.Scalar(1))
	}, []dynArg{f32(B, 3, 4)}, [][2]int{{0, 0}}, nil, false},
	{"expand_squeeze", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(1).Squeeze(1).Neg() },
		[]dynArg{f32(B, 9)}, [][2]int{{0, 0}}, nil, false},
	{"concat", func(x, y *gojit.Tensor) *gojit.Tensor { return gojit.Concat(1, x, y.Exp(), x) },
		[]dynArg{f32(B, 5), f32(B, 3)}, [][2]int{{0, 0}, {1, 0}}, nil, false},
	{"argmax", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.ArgMax(1), x.ArgMin(-1) },
		[]dynArg{f32(B, 17)}, [][2]int{{0, 0}}, nil, false},
	{"slice", func(x *gojit.Tensor) *gojit.Tensor {
		return x.Slice([]int{0, 1}, []int{x.Shape()[0], 7}, 1, 2).Abs()
	}, []dynArg{f32(B, 10)}, [][2]int{{0, 0}}, nil, false},
	// The batch axis moved inward, reduced, merged or concatenated.
	{"transposed", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		t := x.Transpose()
		return t.Exp(), t.Sum(1)
	}, []dynArg{f32(B, 6)}, [][2]int{{0, 0}}, nil, true},
	{"batch_sum_mean", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
		return x.Sum(0), x.Mean(0), x.Max(0), x.Sum()
	}, []dynArg{f32(B, 70)}, [][2]int{{0, 0}}, nil, true},
	{"batch_norm", func(x *gojit.Tensor) *gojit.Tensor {
		mu := x.Reduce(gojit.ReduceMean, true, 0)
		d := x.Sub(mu)
		return d.Div(d.Mul(d).Reduce(gojit.ReduceMean, true, 0).Add(gojit.Scalar(1e-5)).Sqrt())
	}, []dynArg{f32(B, 24)}, [][2]int{{0, 0}}, nil, false},
	{"flatten", func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
		f := x.Reshape(-1)
		return f.Exp(), f.Sum()
	}, []dynArg{f32(B, 5)}, [][2]int{{0, 0}}, nil, true},
	{"concat_batch", func(x, y *gojit.Tensor) *gojit.Tensor { return gojit.Concat(0, x, y.Neg(), x) },
		[]dynArg{f32(B, 7), f32(B, 7)}, [][2]int{{0, 0}, {1, 0}}, nil, false},
	{"concat_pad", func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.Concat(0, gojit.Full(gojit.Float32, 0, 2, 3), x.Exp(), x)
	},
		[]dynArg{f32(B, 3)}, [][2]int{{0, 0}}, nil, false},
	{"batch_size_value", func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(float64(x.Shape()[0])))
	}, []dynArg{f32(B, 3)}, [][2]int{{0, 0}}, nil, false},
	// Around the size from which the output is written with streaming
	// stores (which depends on the host's cache): both kinds of loop are
	// in the kernel.
	{"stream_threshold", func(x, b *gojit.Tensor) *gojit.Tensor { return x.Add(b) },
		[]dynArg{f32(B, 4000), f32(4000)}, [][2]int{{0, 0}}, aroundStream(), false},
	{"softmax_stream", func(x *gojit.Tensor) *gojit.Tensor {
		e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
		return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
	}, []dynArg{f32(B, 4000)}, [][2]int{{0, 0}}, aroundStream()[1:], true},
}

func TestDynamicOps(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	for _, c := range dynamicCases {
		t.Run(c.name, func(t *testing.T) {
			var opts []gojit.Option
			for _, d := range c.dyn {
				opts = append(opts, gojit.WithDynamicDim(d[0], d[1]))
			}
			dyn, err := gojit.Compile(c.fn, opts...)
			if err != nil {
				t.Fatal(err)
			}
			static, err := gojit.Compile(c.fn, gojit.WithRecompileLimit(len(dynamicSizes)+2))
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			sizes := dynamicSizes
			if c.sizes != nil {
				sizes = c.sizes
			}
			if testing.Short() {
				sizes = sizes[:3]
			}
			for _, b := range sizes {
				args := make([]any, len(c.args))
				for i, a := range c.args {
					args[i] = a.at(b, r)
				}
				got, err := dyn.Call(args...)
				want, serr := static.Call(args...)
				if serr != nil {
					// An error at this size (Max over an empty batch)
					// must be the dynamic kernel's too.
					line := serr.Error()[strings.LastIndexByte(serr.Error(), '\n')+1:]
					if err == nil || !strings.HasSuffix(err.Error(), line) {
						t.Fatalf("b=%d: static: %v\ndynamic: %v, want the same error", b, serr, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("b=%d: %v", b, err)
				}
				for j := range want {
					compare := sameBits
					if c.reassoc {
						compare = closeTo
					}
					if msg := compare(got[j], want[j]); msg != "" {
						t.Fatalf("b=%d: result %d: %s", b, j, msg)
					}
				}
			}
			if s := dyn.Stats(); s.Traces != 1 {
				t.Errorf("%d traces for %d batch sizes, want 1", s.Traces, len(sizes))
			}
		})
	}
}

// sameBits compares two arrays element by element, bit for bit.
func sameBits(got, want *gojit.Array) string {
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	bits := func(a *gojit.Array, i int) uint64 {
		switch a.DType() {
		case gojit.Float32:
			return uint64(math.Float32bits(a.Float32()[i]))
		case gojit.Float64:
			return math.Float64bits(a.Float64()[i])
		case gojit.Int32:
			return uint64(a.Int32()[i])
		case gojit.Int64:
			return uint64(a.Int64()[i])
		}
		panic("sameBits: dtype " + a.DType().String())
	}
	for i := range got.Size() {
		if g, w := bits(got, i), bits(want, i); g != w && !bothNaN(got, want, i) {
			return fmt.Sprintf("element %d is %v, the static kernel's %v", i, sliceAt(got, i), sliceAt(want, i))
		}
	}
	return ""
}

func sliceAt(a *gojit.Array, i int) any {
	return reflect.ValueOf(a.Data()).Index(i).Interface()
}

// bothNaN reports whether element i of a and b are NaNs, whose payloads
// may differ (0/0 is computed by the hardware in one and folded by Go in
// the other).
func bothNaN(a, b *gojit.Array, i int) bool {
	switch a.DType() {
	case gojit.Float32:
		return a.Float32()[i] != a.Float32()[i] && b.Float32()[i] != b.Float32()[i]
	case gojit.Float64:
		return math.IsNaN(a.Float64()[i]) && math.IsNaN(b.Float64()[i])
	}
	return false
}

// closeTo is sameBits for float sums, which may differ by rounding.
func closeTo(got, want *gojit.Array) string {
	if got.DType() != gojit.Float32 && got.DType() != gojit.Float64 {
		return sameBits(got, want)
	}
	if !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got shape %v, want %v", got.Shape(), want.Shape())
	}
	if got.DType() == gojit.Float64 {
		for i, w := range want.Float64() {
			g := got.Float64()[i]
			if d := math.Abs(g - w); d > 1e-12*(1+math.Abs(w)) || g != g != (w != w) {
				return fmt.Sprintf("element %d is %v, the static kernel's %v", i, g, w)
			}
		}
		return ""
	}
	for i, w := range want.Float32() {
		g := got.Float32()[i]
		if d := math.Abs(float64(g - w)); d > 1e-4*(1+math.Abs(float64(w))) || g != g != (w != w) {
			return fmt.Sprintf("element %d is %v, the static kernel's %v", i, g, w)
		}
	}
	return ""
}

// TestDynamicConcurrentSizes calls one dynamic kernel from several
// goroutines at once, each with its own batch size: the size travels with
// the call.
func TestDynamicConcurrentSizes(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	mlp := func(x, w1, b1, w2, b2 *gojit.Tensor) *gojit.Tensor {
		return x.MatMul(w1).Add(b1).Relu().MatMul(w2).Add(b2)
	}
	dyn, err := gojit.Compile(mlp, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	static, err := gojit.Compile(mlp)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 3))
	weights := []any{f32(32, 48).at(0, r), f32(48).at(0, r), f32(48, 8).at(0, r), f32(8).at(0, r)}
	sizes := []int{1, 13, 100, 700}
	inputs := make([][]any, len(sizes))
	wants := make([]*gojit.Array, len(sizes))
	for i, b := range sizes {
		inputs[i] = append([]any{f32(B, 32).at(b, r)}, weights...)
		out, err := static.Call(inputs[i]...)
		if err != nil {
			t.Fatal(err)
		}
		wants[i] = out[0]
	}
	errs := make(chan string, len(sizes))
	for i := range sizes {
		go func() {
			msg := ""
			for range 20 {
				out, err := dyn.Call(inputs[i]...)
				if err != nil {
					msg = err.Error()
					break
				}
				if msg = sameBits(out[0], wants[i]); msg != "" {
					msg = fmt.Sprintf("b=%d: %s", sizes[i], msg)
					break
				}
			}
			errs <- msg
		}()
	}
	for range sizes {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
	if s := dyn.Stats(); s.Traces != 1 {
		t.Errorf("%d traces, want 1", s.Traces)
	}
}
