package lazy

import (
	"errors"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// compiled runs f through gojit.Compile on x: the root's result, which
// lazy's must equal.
func compiled(t *testing.T, f func(*gojit.Tensor) *gojit.Tensor, x []float32) []float32 {
	t.Helper()
	fn, err := gojit.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := fn.Call(gojit.FromFloat32(x))
	if err != nil {
		t.Fatal(err)
	}
	return out[0].Float32()
}

func sameF32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

func TestCondMatchesRoot(t *testing.T) {
	root := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.Cond(x.Sum().Greater(gojit.Scalar(0)),
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Mul(gojit.Scalar(2))} },
			func() []*gojit.Tensor { return []*gojit.Tensor{x.Neg().Add(gojit.Scalar(1))} })[0]
	}
	for _, in := range [][]float32{{1, 2, -0.5}, {-1, -2, 0.5}} {
		c := newCtx(t)
		x := c.FromFloat32(in)
		r := Cond(x.Sum().Greater(Scalar(0)),
			func() []*Tensor { return []*Tensor{x.Mul(Scalar(2))} },
			func() []*Tensor { return []*Tensor{x.Neg().Add(Scalar(1))} })
		got := mustF32(t, r[0])
		want := make([]float32, len(in))
		s := in[0] + in[1] + in[2]
		for i, v := range in { // plain Go
			if s > 0 {
				want[i] = v * 2
			} else {
				want[i] = -v + 1
			}
		}
		sameF32(t, "Cond vs Go", got, want)
		sameF32(t, "Cond vs gojit.Compile", got, compiled(t, root, in))
	}
}

func TestWhileMatchesRoot(t *testing.T) {
	in := []float32{0.5, -1, 2}
	root := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.While([]*gojit.Tensor{gojit.Full(gojit.Int32, 0), x},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Less(gojit.Scalar(5)) },
			func(s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(gojit.Scalar(1)), s[1].Mul(gojit.Scalar(1.5)).Add(x)}
			})[1]
	}
	c := newCtx(t)
	x := c.FromFloat32(in)
	r := While([]*Tensor{c.Full(gojit.Int32, 0), x},
		func(s []*Tensor) *Tensor { return s[0].Less(Scalar(5)) },
		func(s []*Tensor) []*Tensor { return []*Tensor{s[0].Add(Scalar(1)), s[1].Mul(Scalar(1.5)).Add(x)} })
	got := mustF32(t, r[1])
	want := append([]float32(nil), in...)
	for range 5 {
		for i := range want {
			want[i] = want[i]*1.5 + in[i]
		}
	}
	sameF32(t, "While vs Go", got, want)
	sameF32(t, "While vs gojit.Compile", got, compiled(t, root, in))
	if n, err := r[0].Item(); err != nil || n != 5 {
		t.Fatalf("counter = %v, %v; want 5", n, err)
	}
}

func TestForLoopMatchesRoot(t *testing.T) {
	in := []float32{1, 2, 3}
	root := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(4), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Add(x.Mul(i.Cast(gojit.Float32)))}
			})[0]
	}
	c := newCtx(t)
	x := c.FromFloat32(in)
	hi := c.FromInt32([]int32{4}).Reshape() // a tensor bound, computed at run time
	r := ForLoop(Scalar(0), hi, []*Tensor{x}, func(i *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{s[0].Add(x.Mul(i.Cast(gojit.Float32)))}
	})
	got := mustF32(t, r[0])
	want := make([]float32, len(in))
	for k, v := range in {
		want[k] = v * (1 + 0 + 1 + 2 + 3)
	}
	sameF32(t, "ForLoop vs Go", got, want)
	sameF32(t, "ForLoop vs gojit.Compile", got, compiled(t, root, in))
}

// A function may use tensors computed by an earlier flush (resident) and
// pending ones; reads inside it are errors, and so is reading one of its
// tensors outside.
func TestControlFlowOperandsAndReads(t *testing.T) {
	c := newCtx(t)
	x := c.FromFloat32([]float32{1, 2})
	done := x.Add(Scalar(1))
	if _, err := done.Float32(); err != nil { // now resident
		t.Fatal(err)
	}
	pending := x.Mul(Scalar(10))
	var inside *Tensor
	var readErr, syncErr, outerErr error
	r := Cond(x.Sum().Greater(Scalar(0)),
		func() []*Tensor {
			inside = done.Add(pending)
			_, readErr = inside.Float32()
			syncErr = c.Sync()
			_, outerErr = pending.Float32() // a tensor of the Context, read inside
			return []*Tensor{inside}
		},
		func() []*Tensor { return []*Tensor{done} })
	sameF32(t, "Cond over resident and pending", mustF32(t, r[0]), []float32{12, 23})
	for what, err := range map[string]error{"read": readErr, "Sync": syncErr, "outer read": outerErr} {
		if !errors.Is(err, errReadInRegion) {
			t.Fatalf("%s inside the function: %v, want errReadInRegion", what, err)
		}
	}
	if got := mustF32(t, pending); got[1] != 20 { // fine outside
		t.Fatalf("pending = %v", got)
	}
	if _, err := inside.Float32(); err == nil {
		t.Fatal("reading a tensor of the function outside it did not fail")
	}
}

// Two Conds with the same ops outside and different functions get
// different kernels (a batch's key covers its regions) and correct
// results.
func TestCondBodiesAreInTheKey(t *testing.T) {
	c := newCtx(t)
	run := func(k float64, add bool) []float32 {
		x := c.FromFloat32([]float32{1, 2})
		r := Cond(x.Sum().Greater(Scalar(0)),
			func() []*Tensor {
				if add {
					return []*Tensor{x.Add(Scalar(k))}
				}
				return []*Tensor{x.Mul(Scalar(k))}
			},
			func() []*Tensor { return []*Tensor{x} })
		return mustF32(t, r[0])
	}
	sameF32(t, "x*3", run(3, false), []float32{3, 6})
	sameF32(t, "x+3", run(3, true), []float32{4, 5})
	sameF32(t, "x*4", run(4, false), []float32{4, 8})
	before := Stats().CacheMisses
	sameF32(t, "x+3 again", run(3, true), []float32{4, 5})
	if m := Stats().CacheMisses - before; m != 0 {
		t.Fatalf("the same Cond again missed the cache %d times", m)
	}
}

// An error inside a function is reported by the control-flow op's
// results, with the user's line.
func TestControlFlowErrorInsideFunction(t *testing.T) {
	c := newCtx(t)
	x := c.FromFloat32([]float32{1, 2})
	y := c.FromFloat32([]float32{1, 2, 3})
	r := Cond(x.Sum().Greater(Scalar(0)),
		func() []*Tensor { return []*Tensor{x.Add(y)} }, // shapes do not broadcast
		func() []*Tensor { return []*Tensor{x} })
	err := r[0].Err()
	if err == nil || !strings.Contains(err.Error(), "broadcast") || !strings.Contains(err.Error(), "control_test.go") {
		t.Fatalf("Err() = %v; want the broadcast error at this file's line", err)
	}
	if _, err := x.Float32(); err != nil { // the Context goes on
		t.Fatal(err)
	}
}

// Control-flow ops in a loop that never reads: batch-size cuts fall
// around them, never between one and its results, and the state comes
// out right.
func TestControlFlowAcrossBatchCuts(t *testing.T) {
	for _, batch := range []int{3, 5, 8} {
		c := newCtx(t, WithBatchSize(batch))
		w := c.FromFloat32([]float32{1, 2})
		want := []float32{1, 2}
		for range 12 {
			r := While([]*Tensor{c.Full(gojit.Int32, 0), w},
				func(s []*Tensor) *Tensor { return s[0].Less(Scalar(3)) },
				func(s []*Tensor) []*Tensor {
					return []*Tensor{s[0].Add(Scalar(1)), s[1].Mul(Scalar(0.5)).Add(Scalar(1))}
				})
			w = r[1].Sub(Scalar(0.25))
			for i := range want {
				for range 3 {
					want[i] = want[i]*0.5 + 1
				}
				want[i] -= 0.25
			}
		}
		sameF32(t, "batch "+string(rune('0'+batch)), mustF32(t, w), want)
		if Stats().FlushBatch == 0 {
			t.Fatal("no batch-size cut happened")
		}
	}
}
