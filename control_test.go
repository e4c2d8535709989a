package gojit_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// cbrtNewton is the per-element Newton iteration for the cube root of x
// (x > 0), written with While over a Bool "some element has not
// converged" state: y <- y - (y^3 - x) / (3 y^2), each element frozen
// once a step moves it by at most tol relative to its new value. The
// convergence test reads the new and old values (their difference is the
// step where an element moved, 0 where it is frozen), so the reduction
// does not recompute the division.
func cbrtNewton(x *gojit.Tensor) *gojit.Tensor {
	const tol = 1e-6
	init := []*gojit.Tensor{x, gojit.Full(gojit.Bool, 1)}
	out := gojit.While(init,
		func(s []*gojit.Tensor) *gojit.Tensor { return s[1] },
		func(s []*gojit.Tensor) []*gojit.Tensor {
			y := s[0]
			y2 := y.Mul(y)
			next := y.Sub(y2.Mul(y).Sub(x).Div(y2.Mul(gojit.Scalar(3))))
			moving := next.Sub(y).Abs().Greater(next.Abs().Mul(gojit.Scalar(tol)))
			ny := gojit.Where(moving, next, y)
			more := ny.Sub(y).Abs().Greater(ny.Abs().Mul(gojit.Scalar(tol))).Cast(gojit.Int32).Max().Greater(gojit.Scalar(0))
			return []*gojit.Tensor{ny, more}
		})
	return out[0]
}

// cbrtGo is the same iteration, per element, in plain Go.
func cbrtGo(dst, x []float32) {
	const tol = 1e-6
	for i, xi := range x {
		y := xi
		for {
			y2 := y * y
			next := y - (y2*y-xi)/(y2*3)
			if !(abs32(next-y) > abs32(next)*tol) {
				break
			}
			y = next
		}
		dst[i] = y
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

func TestWhileNewtonCbrt(t *testing.T) {
	n := 5000
	data := make([]float32, n)
	for i := range data {
		data[i] = 0.5 + float32(i)*3.7
	}
	x := gojit.FromFloat32(data, n)
	comp, ref, cerr, rerr := runBoth(t, func(x *gojit.Tensor) *gojit.Tensor { return cbrtNewton(x) }, []any{x})
	if cerr != nil || rerr != nil {
		t.Fatalf("compiled: %v; interpreted: %v", cerr, rerr)
	}
	if d := diffArrays(comp[0], ref[0], 0); d != "" {
		t.Errorf("compiled differs from interpreter: %s", d)
	}
	want := make([]float32, n)
	cbrtGo(want, data)
	got := comp[0].Data().([]float32)
	for i := range want {
		// The tensor loop runs every element until the slowest converges;
		// a converged element is frozen, so it equals the Go loop's.
		if got[i] != want[i] {
			t.Fatalf("element %d: cbrt(%g) = %g, Go loop gives %g", i, data[i], got[i], want[i])
		}
		if r := math.Cbrt(float64(data[i])); math.Abs(float64(got[i])-r) > 1e-5*r {
			t.Fatalf("element %d: cbrt(%g) = %g, math.Cbrt gives %g", i, data[i], got[i], r)
		}
	}
}

func TestForLoopSum(t *testing.T) {
	fn := func(x *gojit.Tensor, hi *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(2), hi, []*gojit.Tensor{x, gojit.Full(gojit.Int64, 0)},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(i.Cast(gojit.Float32)), s[1].Add(i.Cast(gojit.Int64))}
			})
	}
	for _, hi := range []int32{10, 2, -3} {
		x := gojit.FromFloat32([]float32{1, 2, 3}, 3)
		comp, ref, cerr, rerr := runBoth(t, fn, []any{x, gojit.FromInt32([]int32{hi}, []int{}...)})
		if cerr != nil || rerr != nil {
			t.Fatalf("hi=%d: compiled: %v; interpreted: %v", hi, cerr, rerr)
		}
		var sum int64
		for i := int64(2); i < int64(hi); i++ {
			sum += i
		}
		wantX := []float32{1 + float32(sum), 2 + float32(sum), 3 + float32(sum)}
		for k, res := range [][]*gojit.Array{comp, ref} {
			if got := res[0].Data().([]float32); !equalF32(got, wantX) {
				t.Errorf("hi=%d (%s): x = %v, want %v", hi, [2]string{"compiled", "interpreted"}[k], got, wantX)
			}
			if got := res[1].Data().([]int64)[0]; got != sum {
				t.Errorf("hi=%d (%s): sum = %d, want %d", hi, [2]string{"compiled", "interpreted"}[k], got, sum)
			}
		}
	}
}

func equalF32(a, b []float32) bool {
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

func TestCondCaptures(t *testing.T) {
	fn := func(p, x, y *gojit.Tensor) []*gojit.Tensor {
		e := x.Exp()
		return gojit.Cond(p.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{e.Add(y), y.Sum()} },
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Mul(y), gojit.Scalar(-1)} })
	}
	x := gojit.FromFloat32([]float32{0, 1, 2, 3}, 4)
	y := gojit.FromFloat32([]float32{1, 1, 2, 2}, 4)
	for _, p := range []float32{1, -1} {
		comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.FromFloat32([]float32{p}, []int{}...), x, y})
		if cerr != nil || rerr != nil {
			t.Fatalf("p=%g: compiled: %v; interpreted: %v", p, cerr, rerr)
		}
		var w0 []float32
		var w1 float32
		if p > 0 {
			for i, v := range []float32{0, 1, 2, 3} {
				w0 = append(w0, float32(math.Exp(float64(v)))+[]float32{1, 1, 2, 2}[i])
			}
			w1 = 6
		} else {
			w0, w1 = []float32{0, 1, 4, 6}, -1
		}
		for k, res := range [][]*gojit.Array{comp, ref} {
			got := res[0].Data().([]float32)
			for i := range w0 {
				if math.Abs(float64(got[i]-w0[i])) > 1e-5*math.Abs(float64(w0[i])) {
					t.Errorf("p=%g (%d): result 0 = %v, want %v", p, k, got, w0)
					break
				}
			}
			if g := res[1].Data().([]float32)[0]; g != w1 {
				t.Errorf("p=%g (%d): result 1 = %g, want %g", p, k, g, w1)
			}
		}
		// exp may differ in the last places between libm and Go's math.
		if d := diffArrays(comp[0], ref[0], transULPs); d != "" {
			t.Errorf("p=%g: compiled differs from interpreter: %s", p, d)
		}
	}
}

func TestControlTraceErrors(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2}, 2)
	line := hereAt(2)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{x} },
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Cast(gojit.Int32)} })
	}, []any{x}, line, "Cond", "result 0: then returns f32[2] but otherwise returns i32[2]")
	line = hereAt(2)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x}, func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Less(gojit.Scalar(10)) },
			func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Sum()} })
	}, []any{x}, line, "While", "state value 0: body returns f32[] but the state is f32[2]")
	line = hereAt(2)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x}, func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum() },
			func(s []*gojit.Tensor) []*gojit.Tensor { return s })
	}, []any{x}, line, "While", "cond returns f32[], want a 0-D Bool tensor")
	line = hereAt(2)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), x.Sum(), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor { return s })
	}, []any{x}, line, "ForLoop", "hi must be a 0-D Int32 or Int64 tensor, got f32[]")
	line = hereAt(2)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0], s[0]} })
	}, []any{x}, line, "ForLoop", "body returns 3 values but the state has 2")
	// A tensor leaked out of a loop body.
	var leaked *gojit.Tensor
	line = hereAt(4)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		out := gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor { leaked = s[0].Exp(); return s })
		return []*gojit.Tensor{out[0].Add(leaked)}
	}, []any{x}, line, "computed inside a Cond, While or ForLoop function")
	// An error inside a body names its own line.
	line = hereAt(3)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{x}, func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{s[0].Add(gojit.Full(gojit.Float32, 1, 3))}
		})
	}, []any{x}, line, "Add", "[2] and [3]")
	// A loop whose state is only constants cannot read the arguments.
	line = hereAt(3)
	checkTraceError(t, func(x *gojit.Tensor) []*gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{gojit.Full(gojit.Float32, 0, 2)}, func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{s[0].Add(x)}
		})
	}, []any{x}, line, "only constants (Full, Iota, Scalar)")
	if !strings.Contains(line, "control_test.go") {
		t.Fatal(line)
	}
}

// TestPanicInBody: a panic in a loop body is reported with the line that
// panicked, like any panic while tracing.
func TestPanicInBody(t *testing.T) {
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x}, func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Less(gojit.Scalar(1)) },
			func(s []*gojit.Tensor) []*gojit.Tensor {
				if len(s) > 0 {
					panic("boom")
				}
				return s
			})[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	line := hereAt(-8)
	_, err = f.Call(gojit.FromFloat32([]float32{1}))
	if err == nil || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), line) {
		t.Fatalf("err = %v, want a panic at %s", err, line)
	}
}
