package lazy

import (
	"errors"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// A user who releases the Array a Tensor gave (gojit.Array.Release) and
// then frees, reads or uses the Tensor gets an error or the value, never
// a panic: of a host copy (in the heap, in a slab, outside the heap,
// large outside the heap), whose Array is the user's own heap copy, and
// of a small input, whose Array is the Tensor's own.
func TestReleasedArrayOfTensor(t *testing.T) {
	for _, n := range []int{100, 4 << 10, 64 << 10, 1<<20 + 3} {
		c := newCtx(t)
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(i % 1000)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = d[i] + 1
		}
		noPanic := func(what string, f func()) {
			t.Helper()
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("n=%d: %s after Release of the Tensor's Array panicked: %v", n, what, r)
				}
			}()
			f()
		}
		x := c.FromFloat32(d)
		a, err := x.Array()
		if err != nil {
			t.Fatal(err)
		}
		a.Release()
		noPanic("Free", x.Free)

		y := c.FromFloat32(d)
		if a, err = y.Array(); err != nil {
			t.Fatal(err)
		}
		a.Release()
		noPanic("an op", func() {
			got, err := y.Add(Scalar(1)).Float32()
			if err != nil && !errors.Is(err, gojit.ErrReleased) {
				t.Errorf("n=%d: op after Release: %v, want the value or ErrReleased", n, err)
			} else if err == nil && !slices.Equal(got, want) {
				t.Errorf("n=%d: op after Release gave a wrong value", n)
			}
		})
		noPanic("a read", func() {
			got, err := y.Float32()
			if err != nil && !errors.Is(err, gojit.ErrReleased) {
				t.Errorf("n=%d: read after Release: %v, want the value or ErrReleased", n, err)
			} else if err == nil && !slices.Equal(got, d) {
				t.Errorf("n=%d: read after Release gave %d elements, want the value", n, len(got))
			}
		})
		noPanic("Free", y.Free)
	}
}
