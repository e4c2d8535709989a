package lazy

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/lazycore"
)

// Host copies of every dtype and of each size class of the output pool
// (a plain allocation, a buffer carved from a slab, a pooled buffer) hold
// the data as it was when the tensor was made, whatever the caller does
// with its slice afterwards.
func TestHostCopiesOfEveryDType(t *testing.T) {
	c := newCtx(t)
	for _, n := range []int{4, 600, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			checkHostCopy(t, n, func(i int) float32 { return float32(i)*0.5 - 3 }, c.FromFloat32, (*Tensor).Float32)
			checkHostCopy(t, n, func(i int) float64 { return float64(i)*0.25 + 1 }, c.FromFloat64, (*Tensor).Float64)
			checkHostCopy(t, n, func(i int) int32 { return int32(i*7 - 100) }, c.FromInt32, (*Tensor).Int32)
			checkHostCopy(t, n, func(i int) int64 { return int64(i) << 33 }, c.FromInt64, (*Tensor).Int64)
			checkHostCopy(t, n, func(i int) uint8 { return uint8(i * 13) }, c.FromUint8, (*Tensor).Uint8)
			checkHostCopy(t, n, func(i int) bool { return i%3 == 1 }, c.FromBool, (*Tensor).Bool)
		})
	}
}

func checkHostCopy[T comparable](t *testing.T, n int, f func(int) T, from func([]T, ...int) *Tensor, read func(*Tensor) ([]T, error)) {
	t.Helper()
	src := make([]T, n)
	for i := range src {
		src[i] = f(i)
	}
	want := slices.Clone(src)
	x := from(src, 2, n/2)
	var zero T
	for i := range src { // the caller reuses its slice
		src[i] = zero
	}
	got, err := read(x)
	if err != nil {
		t.Fatalf("%T: %v", zero, err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%T, %d elements: the copy changed with the caller's slice", zero, n)
	}
	if s := x.Shape(); !slices.Equal(s, []int{2, n / 2}) {
		t.Fatalf("%T: shape %v", zero, s)
	}
}

// A shape that does not fit the data is an error of the tensor, as
// gojit.FromFloat32's, for the small and the pooled paths alike.
func TestHostCopyBadShape(t *testing.T) {
	c := newCtx(t)
	for _, n := range []int{6, 40000} {
		data := make([]float32, n)
		for _, shape := range [][]int{{n + 1}, {-1, -n}, {n, 2}} {
			err := c.FromFloat32(data, shape...).Err()
			if err == nil || !strings.Contains(err.Error(), "shape") {
				t.Fatalf("%d elements, shape %v: err %v", n, shape, err)
			}
		}
	}
}

// Host copies are recycled once their Array is unreachable (outside the
// heap, or from the output pool): a tensor kept across collections, and a
// slice taken from an Array and kept after the tensor is dropped, keep
// their values while later copies of the same size reuse buffers.
func TestHostCopiesKeptAcrossRecycling(t *testing.T) {
	c := newCtx(t)
	const n = 10000 // 40 KB: carved from a pooled slab
	fill := func(k float32) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = k + float32(i)
		}
		return d
	}
	hits := hostMem.hits + lazycore.H.PoolHits()
	arr, err := c.FromFloat32(fill(2), 100, 100).Array()
	if err != nil {
		t.Fatal(err)
	}
	seen := arr.Float32()
	arr = nil
	_ = arr
	// A flush retires the pending graph that holds that input, so that
	// nothing of lazy's keeps its Array reachable.
	if v := mustF32(t, c.FromFloat32([]float32{1}).Add(Scalar(1))); v[0] != 2 {
		t.Fatal(v)
	}
	kept := c.FromFloat32(fill(1), 100, 100)
	for round := range 40 {
		x := c.FromFloat32(fill(float32(100+round)), 100, 100)
		y := c.FromFloat32(fill(float32(200+round)), 100, 100)
		for i, v := range mustF32(t, x.Add(y)) {
			if want := float32(300+2*round) + 2*float32(i); v != want {
				t.Fatalf("round %d: [%d] = %v, want %v", round, i, v, want)
			}
		}
		if round%8 == 7 {
			runtime.GC()
		}
	}
	// Every buffer the pool holds now is taken by a copy kept alive: a
	// buffer that is still in use would be overwritten.
	waitCleanups(3, func() bool { return false })
	var hold []*Tensor
	for i := 0; i < 4000 && hostFree(4*n) > 0; i++ {
		hold = append(hold, c.FromFloat32(fill(-1), 100, 100))
	}
	if hostMem.hits+lazycore.H.PoolHits() == hits {
		t.Fatal("no host copy reused a buffer: the test checks nothing")
	}
	got := mustF32(t, kept)
	for i, v := range got {
		if v != 1+float32(i) {
			t.Fatalf("kept[%d] = %v: a tensor's host copy was recycled", i, v)
		}
	}
	for i, v := range seen {
		if v != 2+float32(i) {
			t.Fatalf("seen[%d] = %v: a buffer the user saw was recycled", i, v)
		}
	}
	runtime.KeepAlive(hold)
}

// hostFree is the number of buffers for bytes-long copies outside the
// heap that are free.
func hostFree(bytes int) int {
	hostMem.Lock()
	defer hostMem.Unlock()
	return len(hostMem.free[(uintptr(bytes)+hostPage-1)&^(hostPage-1)])
}

// Array of an input of a dtype host copies never have is that array.
func TestArrayOfHalfInput(t *testing.T) {
	c := newCtx(t)
	in := gojit.FromFloat16([]gojit.F16{gojit.F16Of(1), gojit.F16Of(2), gojit.F16Of(3)})
	a, err := c.FromArray(in).Array()
	if err != nil || a != in {
		t.Fatalf("Array = %v, %v; want the input", a, err)
	}
}
