package gojit_test

// Differential tests of large elementwise loops, which write their output
// with non-temporal stores through an aligned tile (internal/codegen
// stream.go): every dtype, lengths that leave a ragged head and tail
// around the tiles, split across threads or not, and outputs whose start
// is not on a 64-byte boundary.

import (
	"fmt"
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
