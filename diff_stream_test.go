package gojit_test

// Differential tests of large elementwise loops, which write their output
// with non-temporal stores through an aligned tile (internal/codegen
// stream.go): every dtype, lengths that leave a ragged head and tail
// around the tiles, split across threads or not, and outputs whose start
// is not on a 64-byte boundary.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// streamLen is long enough that a two-input elementwise group moves more
// than the streaming threshold for every dtype (3 bytes per element for
// Uint8 and Bool), and not a multiple of any tile.
const streamLen = 1<<20 + 37

func TestDiffStreamingStores(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			a := randArray(dt, 11, 0.01, streamLen)
			b := randArray(dt, 12, 0.01, streamLen)
			cases := []dcase{{name: "NotEqual", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].NotEqual(in[1]) }}}
			if dt != gojit.Bool {
				cases = append(cases,
					dcase{name: "Maximum", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Maximum(in[1]) }},
					dcase{name: "MulSub", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(in[1]).Sub(in[0]) }})
			}
			checkDiff(t, cases, a, b)
		})
	}
}

// TestStreamingStoresMisaligned writes a large Float32 result into outputs
// starting 0 to 17 elements past an allocation, with one and two threads,
// and checks every element against the interpreter and the guard
// elements around the output against being touched.
func TestStreamingStoresMisaligned(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: large buffers")
	}
	const n = streamLen
	a := randArray(gojit.Float32, 21, 0, n)
	b := randArray(gojit.Float32, 22, 0, n)
	fn := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y).Mul(x) }
	ref, err := gojit.Compile(fn, gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Call(a, b)
	if err != nil {
		t.Fatal(err)
	}
	wantStreaming(t, fn, a, b)
	for _, threads := range []int{1, 2} {
		f, err := gojit.Compile(fn, gojit.WithThreads(threads))
		if err != nil {
			t.Fatal(err)
		}
		for _, skew := range []int{0, 1, 3, 15, 17} {
			t.Run(fmt.Sprintf("threads=%d/skew=%d", threads, skew), func(t *testing.T) {
				const guard = 32
				buf := make([]float32, n+skew+guard)
				for i := range buf {
					buf[i] = -7
				}
				out := gojit.FromFloat32(buf[skew:skew+n], n)
				if err := f.CallInto([]*gojit.Array{out}, a, b); err != nil {
					t.Fatal(err)
				}
				if d := diffArrays(out, want[0], 0); d != "" {
					t.Fatalf("compiled differs from interpreter: %s", d)
				}
				for i, v := range buf {
					if (i < skew || i >= skew+n) && v != -7 {
						t.Fatalf("buf[%d] = %v outside the output (skew %d) was written", i, v, skew)
					}
				}
			})
		}
	}
}

// TestDiffStreamingRowNests covers the rows of a nest (softmax, a row
// normalization) streamed to a large output: rows whose length is not a
// multiple of 16 elements start at every alignment. The inputs are small
// integers, so the plain sums are exact in any order; softmax divides by
// a reassociated sum of non-negative terms (sumChainULPs).
func TestDiffStreamingRowNests(t *testing.T) {
	cases := []dcase{
		{name: "softmax", ulps: sumChainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor { return softmax(in[0].Mul(gojit.Scalar(0.125))) }},
		// With the next case (CSE merges their d), an output of the nest
		// that a later group of it reads back: it is not streamed.
		{name: "centered", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Sub(in[0].Reduce(gojit.ReduceMax, true, -1))
		}},
		{name: "centered_times_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
			d := in[0].Sub(in[0].Reduce(gojit.ReduceMax, true, -1))
			return d.Mul(d.Reduce(gojit.ReduceSum, true, -1))
		}},
		{name: "row_normalize", f: func(in []*gojit.Tensor) *gojit.Tensor {
			x := in[0].Abs().Add(gojit.Scalar(1))
			return x.Div(x.Reduce(gojit.ReduceSum, true, -1))
		}},
	}
	for _, c := range []struct {
		dt    gojit.DType
		shape []int
	}{{gojit.Float32, []int{700, 1000}}, {gojit.Float64, []int{300, 1029}}} {
		t.Run(c.dt.String()+"_"+shapeName(c.shape), func(t *testing.T) {
			n := c.shape[0] * c.shape[1]
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = float64((i*7919)%64 - 32)
			}
			var x *gojit.Array
			if c.dt == gojit.Float32 {
				f := make([]float32, n)
				for i, v := range vals {
					f[i] = float32(v)
				}
				x = gojit.FromFloat32(f, c.shape...)
			} else {
				x = gojit.FromFloat64(vals, c.shape...)
			}
			checkDiff(t, cases, x)
			wantStreaming(t, softmax, x)
		})
	}
}

// wantStreaming fails t unless fn compiles, for args, to code with
// non-temporal stores: the tests above would pass without them.
func wantStreaming(t *testing.T, fn any, args ...any) {
	t.Helper()
	if gojit.LLVMVersion() == "" {
		return // interpreted: nothing is compiled
	}
	f, err := gojit.Compile(fn)
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.LLVM, "!nontemporal") {
		t.Errorf("no non-temporal stores in the generated code:\n%s", l.LLVM)
	}
}
