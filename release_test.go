package gojit

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

// Release gives a Call output's buffer straight back: the next Call of
// that size writes its result into the same memory (for slab outputs and
// large buffers; outputs under slabMinBytes are left to make), and the
// result is right, with no collection in between.
func TestReleaseRecycles(t *testing.T) {
	f, err := Compile(func(a, b *Tensor) *Tensor { return a.Add(b).Mul(a).Sub(b.Mul(Scalar(0.5))).Relu() })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n     int
		reuse bool
	}{{100, false}, {1000, true}, {3000, true}, {1 << 16, true}} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			defer SetForcedCollections(SetForcedCollections(false))
			xs, ys := make([]float32, c.n), make([]float32, c.n)
			for i := range xs {
				xs[i], ys[i] = float32(i%101)*0.125, float32(i%7)-3
			}
			want := chainRef(xs, ys)
			x, y := FromFloat32(xs), FromFloat32(ys)
			reused := 0
			for i := range 50 {
				outs, err := f.Call(x, y)
				if err != nil {
					t.Fatal(err)
				}
				p := outs[0].ptr
				outs[0].Release()
				next, err := f.Call(x, y)
				if err != nil {
					t.Fatal(err)
				}
				if next[0].ptr == p {
					reused++
				}
				if i == 49 {
					// The accessor hands the buffer out: it is checked here,
					// after the pointer comparisons.
					for j, v := range next[0].Float32() {
						if v != want[j] {
							t.Fatalf("result [%d] = %v after a Release, want %v", j, v, want[j])
						}
					}
				} else {
					next[0].Release()
				}
			}
			if c.reuse && reused < 45 {
				t.Errorf("the next Call reused a released buffer %d times of 50", reused)
			}
			if !c.reuse && reused > 5 {
				t.Errorf("a %d-byte output was reused %d times of 50, want it left to make", 4*c.n, reused)
			}
		})
	}
}

// An output whose slice was handed out is never recycled by Release: the
// caller's slice keeps its values however many Calls follow.
func TestReleaseAfterAccessorKeepsSlice(t *testing.T) {
	f, err := Compile(func(a *Tensor) *Tensor { return a.Mul(Scalar(2)) })
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1000, 1 << 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = float32(i)
			}
			outs, err := f.Call(FromFloat32(xs))
			if err != nil {
				t.Fatal(err)
			}
			kept := outs[0].Float32()
			p := outs[0].ptr
			outs[0].Release()
			other := FromFloat32(make([]float32, n))
			for range 100 {
				o, err := f.Call(other)
				if err != nil {
					t.Fatal(err)
				}
				if o[0].ptr == p {
					t.Fatal("a Call reused the buffer of a released output whose slice the caller holds")
				}
				o[0].Release()
			}
			for i, v := range kept {
				if v != 2*float32(i) {
					t.Fatalf("kept slice [%d] = %v, want %v", i, v, 2*float32(i))
				}
			}
		})
	}
}

// A released array is empty and refused, with ErrReleased; releasing it
// again, or a nil array, does nothing.
func TestReleasedArrayRefused(t *testing.T) {
	f, err := Compile(func(a *Tensor) *Tensor { return a.Add(a) })
	if err != nil {
		t.Fatal(err)
	}
	outs, err := f.Call(FromFloat32(make([]float32, 2000)))
	if err != nil {
		t.Fatal(err)
	}
	a := outs[0]
	a.Release()
	a.Release()
	var nilArr *Array
	nilArr.Release()
	if !errors.Is(a.Err(), ErrReleased) {
		t.Fatalf("Err after Release = %v, want ErrReleased", a.Err())
	}
	if a.Float32() != nil || a.Data() != nil || a.Size() != 0 {
		t.Fatalf("a released array still shows data: %d elements", len(a.Float32()))
	}
	if _, err := f.Call(a); !errors.Is(err, ErrReleased) || !errors.Is(err, ErrArgs) {
		t.Fatalf("Call with a released array: %v, want ErrArgs and ErrReleased", err)
	}
	if err := f.CallInto([]*Array{a}, FromFloat32(make([]float32, 2000))); err == nil {
		t.Fatal("CallInto into a released array succeeded")
	}
	// A user's own array: Release empties it, the slice stays the user's.
	own := make([]float32, 4)
	u := FromFloat32(own)
	u.Release()
	if !errors.Is(u.Err(), ErrReleased) || len(own) != 4 {
		t.Fatalf("Release of a wrapped slice: Err %v", u.Err())
	}
}

// Accessors on one array from several goroutines (markHanded's atomics)
// and Release on others run together without a race.
func TestReleaseConcurrentReaders(t *testing.T) {
	f, err := Compile(func(a *Tensor) *Tensor { return a.Neg() })
	if err != nil {
		t.Fatal(err)
	}
	x := FromFloat32(make([]float32, 4096))
	shared, err := f.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for range 200 {
				if len(shared[0].Float32()) != 4096 {
					t.Error("short slice")
					return
				}
				o, err := f.Call(x)
				if err != nil {
					t.Error(err)
					return
				}
				if g%2 == 0 {
					o[0].Release()
				}
			}
		})
	}
	wg.Wait()
}
