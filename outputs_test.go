package gojit

import (
	"fmt"
	"runtime"
	"testing"
)

func chainRef(x, y []float32) []float32 {
	out := make([]float32, len(x))
	for i := range x {
		out[i] = max((x[i]+y[i])*x[i]-y[i]*0.5, 0)
	}
	return out
}

// Call outputs are recycled only once nothing points into them: a slice
// taken with Float32 keeps its buffer, however many collections and Calls
// follow, while dropped outputs are reused (and their stale contents fully
// overwritten). Large outputs are recycled one by one, medium ones in
// slabs, where a kept output must keep its slab's other outputs from
// being reused under it.
func TestCallOutputsRecycledSafely(t *testing.T) {
	f, err := Compile(func(a, b *Tensor) *Tensor { return a.Add(b).Mul(a).Sub(b.Mul(Scalar(0.5))).Relu() })
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1 << 16, 1000, 3000} { // 256 KiB: a buffer each; 4000 and 12000 bytes: slabs
		t.Run(fmt.Sprint(n), func(t *testing.T) { checkRecycling(t, f, n) })
	}
}

func checkRecycling(t *testing.T, f *Func, n int) {
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%101)*0.125, float32(i%7)-3
	}
	x, y := FromFloat32(xs), FromFloat32(ys)
	want := chainRef(xs, ys)
	outs, err := f.Call(x, y)
	if err != nil {
		t.Fatal(err)
	}
	kept := outs[0].Float32() // the Array itself is dropped below
	outs = nil
	_ = outs
	hits0 := poolHits()
	other := FromFloat32(make([]float32, n)) // different inputs: different results
	for i := range 40 * slabOutputs {
		if i%slabOutputs == 0 {
			runtime.GC()
		}
		got, err := f.Call(other, y)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got[0].Float32() {
			if w := max((0+ys[i])*0-ys[i]*0.5, 0); v != w {
				t.Fatalf("recycled output [%d] = %v, want %v", i, v, w)
			}
		}
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("a slice the caller kept changed: [%d] = %v, want %v", i, kept[i], want[i])
		}
	}
	if poolHits() == hits0 {
		t.Fatalf("no Call reused a dropped output buffer after 40 collections (n=%d)", n)
	}
	runtime.KeepAlive(kept)
}

func poolHits() int64 {
	outputPool.Lock()
	defer outputPool.Unlock()
	return outputPool.hits
}

// A failing Call returns no outputs: recycled buffers must never reach the
// caller unwritten.
func TestCallErrorReturnsNoOutputs(t *testing.T) {
	f, err := Compile(func(a *Tensor) *Tensor { return a.Exp() })
	if err != nil {
		t.Fatal(err)
	}
	outs, err := f.Call(FromInt32([]int32{1}), FromInt32([]int32{1}))
	if err == nil || outs != nil {
		t.Fatalf("Call with a wrong argument count = %v, %v; want nil and an error", outs, err)
	}
}
