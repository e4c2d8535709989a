package gojit_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/llvm"
)

// checkBoth runs fn compiled and interpreted on args, requires both to
// succeed with bit-identical results, and returns the compiled results.
func checkBoth(t *testing.T, fn any, args ...any) []*gojit.Array {
	t.Helper()
	comp, ref, cerr, rerr := runBoth(t, fn, args)
	if cerr != nil || rerr != nil {
		t.Fatalf("compiled: %v\ninterpreted: %v", cerr, rerr)
	}
	if len(comp) != len(ref) {
		t.Fatalf("%d compiled results, %d interpreted", len(comp), len(ref))
	}
	for i := range comp {
		if d := diffArrays(comp[i], ref[i], 0); d != "" {
			t.Errorf("result %d: compiled differs from interpreter: %s", i, d)
		}
	}
	return comp
}

// TestWhileStateOfManyTypes carries f64[2,3], u8[4], bool[3] and an i64
// counter, with a Cond nested in the body that picks how the f64 state
// changes by the counter's parity, and a capture.
func TestWhileStateOfManyTypes(t *testing.T) {
	fn := func(a, u, b, c *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{a, u, b, gojit.Full(gojit.Int64, 0)},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[3].Less(gojit.Scalar(5)) },
			func(s []*gojit.Tensor) []*gojit.Tensor {
				even := s[3].Sub(s[3].Div(gojit.Scalar(2)).Mul(gojit.Scalar(2))).Equal(gojit.Scalar(0))
				na := gojit.Cond(even,
					func() []*gojit.Tensor { return []*gojit.Tensor{s[0].Add(c)} },
					func() []*gojit.Tensor { return []*gojit.Tensor{s[0].Mul(gojit.Scalar(2))} })[0]
				return []*gojit.Tensor{na, s[1].Add(gojit.Scalar(100)), s[2].Equal(gojit.Scalar(0)), s[3].Add(gojit.Scalar(1))}
			})
	}
	a := []float64{1, 2, 3, -4, 0.5, 6}
	u := []uint8{0, 1, 200, 255}
	bv := []bool{true, false, true}
	c := []float64{10, 20, 30}
	out := checkBoth(t, fn, gojit.FromFloat64(a, 2, 3), gojit.FromUint8(u), gojit.FromBool(bv), gojit.FromFloat64(c))
	// The same in Go.
	for k := range 5 {
		for i := range a {
			if k%2 == 0 {
				a[i] += c[i%3]
			} else {
				a[i] *= 2
			}
		}
		for i := range u {
			u[i] += 100
		}
		for i := range bv {
			bv[i] = !bv[i]
		}
	}
	if got := out[0].Data().([]float64); !slicesEqual(got, a) {
		t.Errorf("f64 state = %v, want %v", got, a)
	}
	if got := out[1].Data().([]uint8); !slicesEqual(got, u) {
		t.Errorf("u8 state = %v, want %v", got, u)
	}
	if got := out[2].Data().([]bool); !slicesEqual(got, bv) {
		t.Errorf("bool state = %v, want %v", got, bv)
	}
	if got := out[3].Data().([]int64)[0]; got != 5 {
		t.Errorf("counter = %d, want 5", got)
	}
	if !slicesEqual(out[0].Shape(), []int{2, 3}) {
		t.Errorf("f64 state shape %v", out[0].Shape())
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWhileZeroTrip: a loop whose condition is false at once returns its
// initial state, including a state value that is an input returned as is.
func TestWhileZeroTrip(t *testing.T) {
	fn := func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x, x.Sum()},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[1].Less(gojit.Scalar(0)) },
			func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Exp(), s[1].Sub(gojit.Scalar(1))} })
	}
	out := checkBoth(t, fn, gojit.FromFloat32([]float32{1, 2, 3}))
	if got := out[0].Data().([]float32); !slicesEqual(got, []float32{1, 2, 3}) {
		t.Errorf("state 0 = %v, want the input", got)
	}
	if got := out[1].Data().([]float32)[0]; got != 6 {
		t.Errorf("state 1 = %v, want 6", got)
	}
}

// TestWhileSwapAndIdentity: a body that swaps two state values and keeps
// a third as is (the body's outputs are its own parameters), run an odd
// and an even number of times, checks the double-buffered state.
func TestWhileSwapAndIdentity(t *testing.T) {
	fn := func(a, b, n *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), n, []*gojit.Tensor{a, b, a},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[1], s[0], s[2]}
			})
	}
	a, b := []int32{1, 2}, []int32{3, 4}
	for _, n := range []int32{0, 1, 2, 7} {
		out := checkBoth(t, fn, gojit.FromInt32(a), gojit.FromInt32(b), gojit.FromInt32([]int32{n}, []int{}...))
		w0, w1 := a, b
		if n%2 == 1 {
			w0, w1 = b, a
		}
		if g0, g1, g2 := out[0].Data().([]int32), out[1].Data().([]int32), out[2].Data().([]int32); !slicesEqual(g0, w0) || !slicesEqual(g1, w1) || !slicesEqual(g2, a) {
			t.Errorf("n=%d: got %v %v %v, want %v %v %v", n, g0, g1, g2, w0, w1, a)
		}
	}
}

// TestLoopLargeStateThreads: a body over 2x100000 values, large enough for
// the runtime to split its nests across threads, with an invariant
// expression of a capture (hoisted) and the result returned twice.
func TestLoopLargeStateThreads(t *testing.T) {
	const rows, cols = 2, 100_000
	fn := func(x, w *gojit.Tensor) []*gojit.Tensor {
		out := gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(4), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				scale := w.Mul(w).Add(gojit.Scalar(1)) // invariant
				return []*gojit.Tensor{s[0].Mul(scale).Add(i.Cast(gojit.Float32))}
			})
		return []*gojit.Tensor{out[0], out[0].Sum(1)}
	}
	xs := make([]float32, rows*cols)
	ws := make([]float32, cols)
	for i := range xs {
		xs[i] = float32(i%7) - 3
	}
	for i := range ws {
		ws[i] = float32(i%3) * 0.5
	}
	comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.FromFloat32(xs, rows, cols), gojit.FromFloat32(ws)})
	if cerr != nil || rerr != nil {
		t.Fatalf("compiled: %v\ninterpreted: %v", cerr, rerr)
	}
	if d := diffArrays(comp[0], ref[0], 0); d != "" {
		t.Errorf("compiled differs from interpreter: %s", d)
	}
	want := append([]float32(nil), xs...)
	for k := range 4 {
		for i := range want {
			s := ws[i%cols]
			want[i] = want[i]*(s*s+1) + float32(k)
		}
	}
	if got := comp[0].Data().([]float32); !slicesEqual(got, want) {
		t.Errorf("compiled result differs from the Go loop")
	}
	if d := diffBounded(comp[1], ref[1], boundsFor(t, comp[0])); d != "" {
		t.Errorf("row sums: %s", d)
	}
}

// boundsFor is the tolerance of a float32 sum along axis 1 of x, from
// sumBound, computed by the interpreter.
func boundsFor(t *testing.T, x *gojit.Array) *gojit.Array {
	t.Helper()
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return sumBound(x, gojit.ReduceSum, false, 1) }, gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// TestCondReturnsCaptures: branches that return captured tensors as they
// are, or a Scalar that takes the other branch's type.
func TestCondReturnsCaptures(t *testing.T) {
	fn := func(p, x, y *gojit.Tensor) []*gojit.Tensor {
		return gojit.Cond(p.Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{x, gojit.Scalar(7)} },
			func() []*gojit.Tensor { return []*gojit.Tensor{y, y.Sum()} })
	}
	x, y := gojit.FromInt64([]int64{1, 2}), gojit.FromInt64([]int64{30, 40})
	for _, p := range []int64{1, 0} {
		out := checkBoth(t, fn, gojit.FromInt64([]int64{p}, []int{}...), x, y)
		w0, w1 := []int64{1, 2}, int64(7)
		if p == 0 {
			w0, w1 = []int64{30, 40}, 70
		}
		if g := out[0].Data().([]int64); !slicesEqual(g, w0) || out[1].Data().([]int64)[0] != w1 {
			t.Errorf("p=%d: got %v %v, want %v %v", p, g, out[1].Data(), w0, w1)
		}
	}
}

// TestControlDynamicDim: compiled, a dynamic dimension with control flow
// is refused with an error naming the user's call; interpreted, it works.
func TestControlDynamicDim(t *testing.T) {
	line := hereAt(2)
	fn := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(gojit.Scalar(1))}
			})[0]
	}
	x := gojit.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	f, err := gojit.Compile(fn, gojit.WithDynamicDim(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Call(x)
	switch {
	case !llvm.Available():
		if err != nil { // interpreted: nothing to refuse
			t.Fatal(err)
		}
	case err == nil || !strings.Contains(err.Error(), "control flow does not support a dynamic dimension") || !strings.Contains(err.Error(), line):
		t.Fatalf("err = %v, want the dynamic-dimension refusal at %s", err, line)
	}
	fi, err := gojit.Compile(fn, gojit.WithDynamicDim(0, 0), gojit.WithInterpreter())
	if err != nil {
		t.Fatal(err)
	}
	out, err := fi.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Data().([]float32); !slicesEqual(got, []float32{4, 5, 6, 7}) {
		t.Errorf("interpreted = %v", got)
	}
}

// TestLowerShowsRegions: Lower shows the modules of every step and region
// of a function with control flow.
func TestLowerShowsRegions(t *testing.T) {
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Less(gojit.Scalar(100)) },
			func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Mul(gojit.Scalar(2))} })[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Lower(gojit.FromFloat32([]float32{1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.Traced, "= while") || !strings.Contains(l.Fused, "= while") {
		t.Errorf("no while in the graphs:\n%s\n%s", l.Traced, l.Fused)
	}
	if !llvm.Available() {
		return
	}
	for _, want := range []string{"; ==== step 0: while, cond", "; ==== step 0: while, body", "fmul"} {
		if !strings.Contains(l.LLVM, want) {
			t.Errorf("LLVM text lacks %q:\n%s", want, l.LLVM)
		}
	}
	if !strings.Contains(l.Assembly, "; ==== step 0: while, body") {
		t.Errorf("assembly lacks the body's header")
	}
}

// TestNestedLoopsAndCaptureChain: a ForLoop inside a While, and a Cond in
// the inner body whose branch reads a tensor of the top-level function
// that nothing else in the loops reads (captured through three regions).
func TestNestedLoopsAndCaptureChain(t *testing.T) {
	fn := func(x, y *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x, gojit.Full(gojit.Int32, 0)},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[1].Less(gojit.Scalar(3)) },
			func(s []*gojit.Tensor) []*gojit.Tensor {
				inner := gojit.ForLoop(gojit.Scalar(0), s[1].Add(gojit.Scalar(1)), []*gojit.Tensor{s[0]},
					func(i *gojit.Tensor, t []*gojit.Tensor) []*gojit.Tensor {
						return gojit.Cond(i.Equal(gojit.Scalar(1)),
							func() []*gojit.Tensor { return []*gojit.Tensor{t[0].Add(y)} },
							func() []*gojit.Tensor { return []*gojit.Tensor{t[0].Mul(gojit.Scalar(2))} })
					})
				return []*gojit.Tensor{inner[0], s[1].Add(gojit.Scalar(1))}
			})
	}
	xs, ys := []float64{1, -2, 0.5}, []float64{10, 20, 30}
	out := checkBoth(t, fn, gojit.FromFloat64(xs), gojit.FromFloat64(ys))
	want := append([]float64(nil), xs...)
	for k := int32(0); k < 3; k++ {
		for i := int32(0); i < k+1; i++ {
			for j := range want {
				if i == 1 {
					want[j] += ys[j]
				} else {
					want[j] *= 2
				}
			}
		}
	}
	if got := out[0].Data().([]float64); !slicesEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := out[1].Data().([]int32)[0]; got != 3 {
		t.Errorf("counter %d, want 3", got)
	}
}

// TestCondLarge: a Cond over 300000 values, whose branches split across
// threads (so the branch is taken from Go), against a Go loop.
func TestCondLarge(t *testing.T) {
	const n = 300_000
	fn := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Mul(x).Add(gojit.Scalar(1))} },
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Sub(gojit.Scalar(1))} })[0]
	}
	for _, sign := range []float32{1, -1} {
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = sign * float32(i%10)
		}
		out := checkBoth(t, fn, gojit.FromFloat32(xs))
		got := out[0].Data().([]float32)
		for i, v := range xs {
			want := v - 1
			if sign > 0 {
				want = v*v + 1
			}
			if got[i] != want {
				t.Fatalf("sign %g: element %d = %g, want %g", sign, i, got[i], want)
			}
		}
	}
}

// TestCacheKeysSeeRegions: two functions that differ only inside a loop
// body get their own kernels (the signature hashes the regions).
func TestCacheKeysSeeRegions(t *testing.T) {
	loop := func(c float64) func(x *gojit.Tensor) *gojit.Tensor {
		return func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(2), []*gojit.Tensor{x},
				func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
					return []*gojit.Tensor{s[0].Mul(gojit.Scalar(c))}
				})[0]
		}
	}
	x := gojit.FromFloat32([]float32{1, 2})
	for _, c := range []float64{2, 3} {
		f, err := gojit.Compile(loop(c))
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out[0].Data().([]float32), []float32{float32(c * c), float32(2 * c * c)}; !slicesEqual(got, want) {
			t.Errorf("c=%g: got %v, want %v", c, got, want)
		}
	}
}

// TestHoistOutOfNestedLoops: exp(y) in an inner loop body, y an argument,
// is computed once, in the top-level graph (hoisted out of both loops).
func TestHoistOutOfNestedLoops(t *testing.T) {
	fn := func(x, y *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(2), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), s,
					func(j *gojit.Tensor, u []*gojit.Tensor) []*gojit.Tensor {
						return []*gojit.Tensor{u[0].Add(y.Exp())}
					})
			})[0]
	}
	xs, ys := []float32{1, 2}, []float32{0, 1}
	args := []any{gojit.FromFloat32(xs), gojit.FromFloat32(ys)}
	out, ref, cerr, rerr := runBoth(t, fn, args)
	if cerr != nil || rerr != nil {
		t.Fatalf("compiled: %v\ninterpreted: %v", cerr, rerr)
	}
	// exp may differ in the last place between libm and Go's math.
	if d := diffArrays(out[0], ref[0], 8); d != "" {
		t.Errorf("compiled differs from interpreter: %s", d)
	}
	got := out[0].Data().([]float32)
	f, err := gojit.Compile(fn)
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	// The exp's line is at the top level: indented by two spaces.
	var expLines []string
	for _, line := range strings.Split(l.Fused, "\n") {
		if strings.Contains(line, "= exp ") {
			expLines = append(expLines, line)
		}
	}
	if len(expLines) != 1 || !strings.HasPrefix(expLines[0], "  %") {
		t.Errorf("exp not hoisted to the top level:\n%s", l.Fused)
	}
	// Against Go: 6 additions of exp(y), in float32. The compiled exp may
	// differ from Go's in the last place, so compare within a few ulps.
	for k := range xs {
		w := xs[k]
		e := float32(math.Exp(float64(ys[k])))
		for range 6 {
			w += e
		}
		if math.Abs(float64(got[k]-w)) > 4e-6*math.Abs(float64(w)) {
			t.Errorf("element %d = %g, want %g", k, got[k], w)
		}
	}
}

// TestLoopEmptyState: a loop carrying an empty tensor beside a counter,
// and a Cond returning an empty tensor.
func TestLoopEmptyState(t *testing.T) {
	fn := func(e, x *gojit.Tensor) []*gojit.Tensor {
		out := gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{e, x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(gojit.Scalar(1)), s[1].Mul(gojit.Scalar(2))}
			})
		c := gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{e.Neg()} },
			func() []*gojit.Tensor { return []*gojit.Tensor{e} })
		return append(out, c[0])
	}
	out := checkBoth(t, fn, gojit.FromFloat32(nil, 0, 4), gojit.FromFloat32([]float32{1, -3}))
	if !slicesEqual(out[0].Shape(), []int{0, 4}) || !slicesEqual(out[2].Shape(), []int{0, 4}) {
		t.Errorf("shapes %v %v, want [0 4]", out[0].Shape(), out[2].Shape())
	}
	if got := out[1].Data().([]float32); !slicesEqual(got, []float32{8, -24}) {
		t.Errorf("x = %v, want [8 -24]", got)
	}
}
