package gojit_test

import (
	"math"
	"testing"

	"github.com/gojit/gojit"
)

// TestThreadsAgree runs a loop large enough to be split across threads
// with every thread setting, and checks each against a Go loop.
func TestThreadsAgree(t *testing.T) {
	const n = 1 << 18
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.Sin(float64(i))) * 3
	}
	want := make([]float32, n)
	for i, v := range x {
		want[i] = v*v + 1
	}
	fn := func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(x).Add(gojit.Scalar(1)) }
	defer gojit.SetThreads(0)
	for _, c := range []struct{ opt, global int }{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {8, 0}} {
		gojit.SetThreads(c.global)
		f, _ := gojit.Compile(fn, gojit.WithThreads(c.opt))
		out := []*gojit.Array{gojit.New(gojit.Float32, n)}
		if err := f.CallInto(out, gojit.FromFloat32(x, n)); err != nil {
			t.Fatal(err)
		}
		for i, v := range out[0].Float32() {
			if v != want[i] {
				t.Fatalf("WithThreads(%d), SetThreads(%d): out[%d] = %v, want %v", c.opt, c.global, i, v, want[i])
			}
		}
	}
	if prev := gojit.SetThreads(3); prev != 0 {
		t.Errorf("SetThreads returned %d, want the default 0", prev)
	}
}

// TestParallelCallIntoAllocatesNothing: the worker pool reuses its job, so
// a cached call split across threads allocates nothing either.
func TestParallelCallIntoAllocatesNothing(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("interpreted (no LLVM in this build): the interpreter allocates its intermediates")
	}
	const n = 1 << 18
	g, _ := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Mul(y).Sub(x) })
	h, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Exp().Sum(1) })
	d, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(x).Sum(1) }, gojit.WithDynamicDim(0, 0))
	x, rows := gojit.New(gojit.Float32, n), gojit.New(gojit.Float32, 256, n/256)
	outG := []*gojit.Array{gojit.New(gojit.Float32, n)}
	outH := []*gojit.Array{gojit.New(gojit.Float32, 256)}
	calls := []func() error{
		func() error { return g.CallInto(outG, x, x) }, // one elementwise nest
		func() error { return h.CallInto(outH, rows) }, // a reduction over rows
		func() error { return d.CallInto(outH, rows) }, // the same, dynamic
	}
	for i, call := range calls {
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(50, func() {
			if err := call(); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("call %d: %v allocations per parallel CallInto", i, a)
		}
	}
}
