package lazy

import (
	"runtime"
	"testing"
	"time"

	"github.com/gojit/gojit"
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

func poolLen(n int) int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return len(pool.free[poolKey{gojit.Float32, n}])
}

// A buffer the user took with Array is never recycled, even once the
// Array is unreachable (the user may keep its slice); a buffer nobody saw
// is, and later flushes of that size reuse it.
func TestPoolRecyclesOnlyUnseenBuffers(t *testing.T) {
	const n = 1 << 15 // input: 128 KiB of float32
	const m = n / 2   // output: 64 KiB, recyclable too
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

	// Unseen: read with Float32 (a copy), then dropped.
	const q = n / 4
	for poolGet(poolKey{gojit.Float32, q}) != nil { // start with none of that size
	}
	got, err := c.FromFloat32(in).Sub(Scalar(1)).Reshape(4, q).Sum(0).Float32()
	if err != nil {
		t.Fatal(err)
	}
	if w := float32(3-1) + float32(3+q-1) + float32(3+2*q-1) + float32(3+3*q-1); got[3] != w {
		t.Fatalf("got[3] = %v, want %v", got[3], w)
	}
	_ = c.FromFloat32([]float32{0})
	if !waitCleanups(100, func() bool { return poolLen(q) > 0 }) {
		t.Fatal("no output buffer came back to the pool")
	}
}
