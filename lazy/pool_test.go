package lazy

import (
	"runtime"
	"testing"
	"time"

	"github.com/gojit/gojit/internal/lazycore"
)

// waitCleanups collects garbage until cond holds (cleanups run on their
// own goroutine after a collection), or gives up after a while.
func waitCleanups(tries int, cond func() bool) bool {
	for range tries {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if cond() {
			return true
		}
	}
	return false
}

// A buffer the user took with Array is never recycled while the user
// keeps a slice of it, even once the Array is unreachable; a buffer
// nobody points into any more is, and later flushes of that size reuse it
// (the root package's output pool, shared with gojit.Func.Call).
func TestPoolRecyclesOnlyUnreachableBuffers(t *testing.T) {
	const n = 1 << 16 // input: 256 KiB of float32
	const m = n / 2   // output: 128 KiB, recyclable too
	c := newCtx(t)
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	half := func(op func(*Tensor) *Tensor) *Tensor { // [n] -> [m]
		return op(c.FromFloat32(in)).Reshape(2, m).Sum(0)
	}
	want := func(i int, k float32) float32 { return (float32(i)+k)*1 + (float32(i+m) + k) }
	drain := func() { // forget the pending graph that still holds the last outputs
		_ = c.FromFloat32([]float32{0})
		waitCleanups(3, func() bool { return false })
	}

	// Seen: the user keeps only the slice.
	arr, err := half(func(x *Tensor) *Tensor { return x.Add(Scalar(0)) }).Array()
	if err != nil {
		t.Fatal(err)
	}
	kept := arr.Float32()
	arr = nil
	_ = arr
	drain()
	for range 8 { // flushes of the same output size, which take pooled buffers
		if _, err := half(func(x *Tensor) *Tensor { return x.Add(Scalar(1)) }).Float32(); err != nil {
			t.Fatal(err)
		}
		drain()
	}
	for i, v := range kept {
		if v != want(i, 0) {
			t.Fatalf("kept[%d] = %v, want %v: a buffer the user saw was recycled", i, v, want(i, 0))
		}
	}

	// Unseen: read with Float32 (a copy), then dropped: the next flushes
	// of that size take the buffer back from the pool.
	const q = n / 4
	hits := lazycore.H.PoolHits()
	for k := range 4 {
		got, err := c.FromFloat32(in).Sub(Scalar(1)).Reshape(4, q).Sum(0).Float32()
		if err != nil {
			t.Fatal(err)
		}
		if w := float32(3-1) + float32(3+q-1) + float32(3+2*q-1) + float32(3+3*q-1); got[3] != w {
			t.Fatalf("round %d: got[3] = %v, want %v", k, got[3], w)
		}
		drain()
	}
	if lazycore.H.PoolHits() == hits {
		t.Fatal("no flush reused a pooled buffer")
	}
}
