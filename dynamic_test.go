package gojit_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// dense is one layer over a batch: relu(x·w + bias) per element and the row
// sums of x·w.
func dense(x, w, bias *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
	xw := x.Mul(w)
	return xw.Add(bias).Relu(), xw.Sum(1)
}

func denseRef(x, w, bias []float32, b, n int) ([]float32, []float32) {
	y, s := make([]float32, b*n), make([]float32, b)
	for i := range b {
		for j := range n {
			v := x[i*n+j] * w[j]
			y[i*n+j] = max(v+bias[j], 0)
			s[i] += v
		}
	}
	return y, s
}

func TestDynamicBatchCompilesOnce(t *testing.T) {
	const n = 48
	f, err := gojit.Compile(dense, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	w, bias := make([]float32, n), make([]float32, n)
	for j := range w {
		w[j], bias[j] = float32(j%7)-3, float32(j%5)*0.5-1
	}
	before := gojit.CacheStats()
	for _, b := range []int{3, 1, 100, 1000, 0, 64} {
		x := make([]float32, b*n)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)))
		}
		out, err := f.Call(gojit.FromFloat32(x, b, n), gojit.FromFloat32(w, n), gojit.FromFloat32(bias, n))
		if err != nil {
			t.Fatal(err)
		}
		y, s := denseRef(x, w, bias, b, n)
		if sh := out[0].Shape(); len(sh) != 2 || sh[0] != b || sh[1] != n {
			t.Fatalf("b=%d: result 0 has shape %v", b, sh)
		}
		if sh := out[1].Shape(); len(sh) != 1 || sh[0] != b {
			t.Fatalf("b=%d: result 1 has shape %v", b, sh)
		}
		for i, v := range out[0].Float32() {
			if v != y[i] {
				t.Fatalf("b=%d: y[%d] = %v, want %v", b, i, v, y[i])
			}
		}
		for i, v := range out[1].Float32() {
			if d := math.Abs(float64(v - s[i])); d > 1e-4*(1+math.Abs(float64(s[i]))) {
				t.Fatalf("b=%d: sum[%d] = %v, want %v", b, i, v, s[i])
			}
		}
		// CallInto with arrays of the size at b.
		outs := []*gojit.Array{gojit.New(gojit.Float32, b, n), gojit.New(gojit.Float32, b)}
		if err := f.CallInto(outs, gojit.FromFloat32(x, b, n), gojit.FromFloat32(w, n), gojit.FromFloat32(bias, n)); err != nil {
			t.Fatal(err)
		}
		wrong := []*gojit.Array{gojit.New(gojit.Float32, b+1, n), gojit.New(gojit.Float32, b)}
		if err := f.CallInto(wrong, gojit.FromFloat32(x, b, n), gojit.FromFloat32(w, n), gojit.FromFloat32(bias, n)); err == nil {
			t.Fatalf("b=%d: CallInto accepted a result array of the wrong batch size", b)
		}
	}
	s := f.Stats()
	if gojit.LLVMVersion() == "" {
		return // interpreted: every size is its own trace
	}
	if s.Traces != 1 || s.Signatures != 1 {
		t.Errorf("Func stats %+v; want one signature traced once", s)
	}
	c := gojit.CacheStats()
	if built := c.Compiles + c.DiskHits - before.Compiles - before.DiskHits; built != 1 {
		t.Errorf("%d kernels built for 6 batch sizes, want 1", built)
	}
	// A static dimension still recompiles, and says why.
	x := make([]float32, 2*(n+1))
	if _, err := f.Call(gojit.FromFloat32(x, 2, n+1), gojit.New(gojit.Float32, n+1), gojit.New(gojit.Float32, n+1)); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Stats().LastMiss, "arg 0 shape [?,48] → [?,49]; arg 1 shape [48] → [49]; arg 2 shape [48] → [49]"; got != want {
		t.Errorf("LastMiss = %q, want %q", got, want)
	}
}

func TestDynamicDimErrors(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	pair := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y) }
	f, _ := gojit.Compile(pair, gojit.WithDynamicDim(0, 0), gojit.WithDynamicDim(1, 0))
	if _, err := f.Call(gojit.New(gojit.Float32, 4, 2), gojit.New(gojit.Float32, 4, 2)); err != nil {
		t.Fatal(err)
	}
	_, err := f.Call(gojit.New(gojit.Float32, 4, 2), gojit.New(gojit.Float32, 5, 2))
	if err == nil || !strings.Contains(err.Error(), "dynamic axes differ: argument 0 axis 0 is 4, argument 1 axis 0 is 5") {
		t.Errorf("mismatched batch sizes: %v", err)
	}
	g, _ := gojit.Compile(pair, gojit.WithDynamicDim(0, 3))
	_, err = g.Call(gojit.New(gojit.Float32, 4, 2), gojit.New(gojit.Float32, 4, 2))
	if err == nil || !strings.Contains(err.Error(), "no axis 3 to make dynamic") {
		t.Errorf("axis out of range: %v", err)
	}
}

// TestDynamicDimMessages checks what Call says about functions one kernel
// cannot serve at every batch size: the user's line and call, what
// depends on the size, in the user's terms (no IR, no placeholder sizes).
func TestDynamicDimMessages(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	cases := []struct {
		name string
		fn   func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"slice", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0}, []int{x.Shape()[0], 4}) },
			"Slice: slices the dynamic axis (axis 0 of its result [B-1,4]); one kernel cannot serve every batch size: slice the other axes, or drop WithDynamicDim"},
		{"outer", func(x *gojit.Tensor) *gojit.Tensor { return x.MatMul(x.Transpose()) },
			"MatMul: its result [B,B] has the dynamic size in more than one axis"},
		{"branch", func(x *gojit.Tensor) *gojit.Tensor {
			if x.Shape()[0] > 64 {
				return x.Exp()
			}
			return x.Neg()
		}, "records different operations at different batch sizes (does it branch on Tensor.Shape?"},
		{"inverse", func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(gojit.Scalar(1 / float64(x.Shape()[0]))) },
			"Mul: uses the batch size in a value that is not a multiple of it"},
		{"split", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(2, -1).Sum(0) },
			"Reshape: puts the dynamic axis at axis 1 of its result [2,2B]"},
		{"shapes", func(x *gojit.Tensor) *gojit.Tensor { return x.Add(gojit.Full(gojit.Float32, 1, 3)) },
			"Add: shapes [6,4] and [3] do not broadcast"},
		{"fixed_batch", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(6, 2, 2) },
			"the function traces at this batch size but not at every batch size"},
	}
	for _, c := range cases {
		f, err := gojit.Compile(c.fn, gojit.WithDynamicDim(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Call(gojit.New(gojit.Float32, 6, 4))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "dynamic_test.go:") {
			t.Errorf("%s: %s\nwant the user's line and %q", c.name, msg, c.want)
		}
		for _, leak := range []string{"61", "67", "244", "%", "axes=", "f32[", "reduce_", "matmul"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: %s\nshows %q", c.name, msg, leak)
			}
		}
	}
}

func TestDynamicDimInterpreted(t *testing.T) {
	f, _ := gojit.Compile(dense, gojit.WithDynamicDim(0, 0), gojit.WithInterpreter())
	for _, b := range []int{2, 5} {
		x := make([]float32, b*4)
		for i := range x {
			x[i] = float32(i) - 3
		}
		w, bias := []float32{1, -1, 2, 0.5}, []float32{0, 1, -1, 0}
		out, err := f.Call(gojit.FromFloat32(x, b, 4), gojit.FromFloat32(w, 4), gojit.FromFloat32(bias, 4))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := denseRef(x, w, bias, b, 4)
		for i, v := range out[0].Float32() {
			if v != y[i] {
				t.Fatalf("b=%d: y[%d] = %v, want %v", b, i, v, y[i])
			}
		}
	}
}

// Max, Min, ArgMax and ArgMin over an axis that a dynamic batch size
// empties fail at that size, as tracing at that size does, instead of
// returning -Inf or 0; other sizes run.
func TestDynamicEmptyReduction(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	var pos string
	fns := map[string]any{
		"Max":    func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Max(0) },
		"ArgMax": func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.ArgMax() },
		"Reduce": func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Reduce(gojit.ReduceMin, true, 0, 1) },
	}
	for name, fn := range fns {
		t.Run(name, func(t *testing.T) {
			f, err := gojit.Compile(fn, gojit.WithDynamicDim(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Call(gojit.New(gojit.Float32, 3, 2)); err != nil {
				t.Fatalf("b=3: %v", err)
			}
			empty := gojit.New(gojit.Float32, 0, 2)
			_, err = f.Call(empty)
			if err == nil || !strings.Contains(err.Error(), pos+": "+name+": axis 0 of shape [0") || !strings.Contains(err.Error(), "is empty") {
				t.Errorf("b=0: error %v, want one naming %s at %s", err, name, pos)
			}
			outs := []*gojit.Array{gojit.New(gojit.Float32, 2)}
			if name == "ArgMax" {
				outs[0] = gojit.New(gojit.Int64)
			} else if name == "Reduce" {
				outs[0] = gojit.New(gojit.Float32, 1, 1)
			}
			if err := f.CallInto(outs, empty); err == nil || !strings.Contains(err.Error(), "is empty") {
				t.Errorf("CallInto at b=0: error %v, want the empty-axis error", err)
			}
			if s := f.Stats(); s.Traces != 1 {
				t.Errorf("%d traces, want 1", s.Traces)
			}
		})
	}
}

// Found in review. Two dynamic functions whose kernels are the same code
// but whose results come from different inputs (x.Exp(), y and x.Exp(), x)
// shared one cache entry, so the second returned the first one's wiring.
func TestDynamicSignatureSeesWiring(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	opts := []gojit.Option{gojit.WithDynamicDim(0, 0), gojit.WithDynamicDim(1, 0)}
	fy, _ := gojit.Compile(func(x, y *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.Exp(), y }, opts...)
	fx, _ := gojit.Compile(func(x, y *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.Exp(), x }, opts...)
	x, y := gojit.FromFloat32([]float32{1, 2, 3, 4}), gojit.FromFloat32([]float32{5, 6, 7, 8})
	a, err := fy.Call(x, y)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fx.Call(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(a[1], b[1]); got != fmt.Sprint(y, x) {
		t.Errorf("second results %s, want %s", got, fmt.Sprint(y, x))
	}
}

// Found in review. A slice with fixed bounds along the dynamic axis has
// the same shape at both trace sizes (its bounds are clamped), so it used
// to compile, then read past its operand at smaller batches (or crash at
// a batch of 0). Squeeze() without axes would drop the dynamic axis at a
// batch of 1. Both are errors now; whole-axis slices and named squeezes
// still work.
func TestDynamicSizeDependentCalls(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	var pos string
	bad := map[string]struct {
		fn   any
		want string
	}{
		"slice_first_16":  {func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Slice([]int{0}, []int{16}) }, "Slice: slices the dynamic axis (axis 0 of its operand [B,4]) to a fixed size, 16"},
		"slice_first_row": {func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Slice([]int{0}, []int{1}) }, "Slice: slices the dynamic axis"},
		"slice_step_2":    {func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Slice([]int{0}, []int{1 << 30}, 2) }, "Slice: slices the dynamic axis"},
		"squeeze_all":     {func(x *gojit.Tensor) *gojit.Tensor { pos = hereAt(0); return x.Reshape(-1, 1, 4).Squeeze() }, "Squeeze(): squeezes every axis of size 1 of [B,1,4]"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			f, err := gojit.Compile(c.fn, gojit.WithDynamicDim(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []int{3, 0, 1} {
				_, err := f.Call(gojit.New(gojit.Float32, b, 4))
				if err == nil || !strings.Contains(err.Error(), pos+": "+c.want) {
					t.Errorf("b=%d: error %v, want %q at %s", b, err, c.want, pos)
				}
			}
		})
	}
	good := map[string]any{
		"slice_whole_batch": func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 1}, []int{1 << 30, 3}) },
		"squeeze_named":     func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(-1, 1, 4).Squeeze(1) },
	}
	for name, fn := range good {
		t.Run(name, func(t *testing.T) {
			dyn, _ := gojit.Compile(fn, gojit.WithDynamicDim(0, 0))
			static, _ := gojit.Compile(fn)
			for _, b := range []int{3, 0, 1, 100} {
				x := gojit.New(gojit.Float32, b, 4)
				for i := range x.Float32() {
					x.Float32()[i] = float32(i)
				}
				got, err := dyn.Call(x)
				if err != nil {
					t.Fatalf("b=%d: %v", b, err)
				}
				want, _ := static.Call(x)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("b=%d: got %v, want %v", b, got, want)
				}
			}
		})
	}
}

// Found in review: a dynamic kernel's intermediates grow with the batch,
// and the memory check counted them at the trace size, so a call whose
// intermediates could never fit died with Go's out-of-memory error (or a
// makeslice panic that left the kernel held). They are counted at the
// call's size now.
func TestDynamicIntermediatesMemoryChecked(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: dynamic dimensions only apply to compiled code")
	}
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("the machine's memory is only known on Linux")
	}
	const H = 1 << 34 // a hidden layer of 2^36 bytes per row
	fn := func(x *gojit.Tensor) *gojit.Tensor {
		h := x.Mul(gojit.Full(gojit.Float32, 1, 1, H))
		return h.MatMul(gojit.Full(gojit.Float32, 1, H, 1))
	}
	f, err := gojit.Compile(fn, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// Even a batch of 0 needs the second operand, packed: 2^36 bytes.
	for _, b := range []int{1, 3, 0, 2} {
		_, err := f.Call(gojit.New(gojit.Float32, b, 1))
		if err == nil || !strings.Contains(err.Error(), "of intermediate values), more than this machine's") {
			t.Errorf("b=%d: error %v, want the memory error", b, err)
		}
	}
}
