package gojit_test

import (
	"testing"

	"github.com/gojit/gojit"
)

// Uniform and Normal in the storage dtypes: drawn in Float32, Uniform
// truncated to the half's grid so it stays below 1, compiled equal to
// interpreted.
func TestRandomHalf(t *testing.T) {
	const n = 1 << 14
	for _, dt := range []gojit.DType{gojit.Float16, gojit.BFloat16} {
		fn := func(k *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor, *gojit.Tensor) {
			u := gojit.Uniform(k, dt, n)
			return u, gojit.Uniform(k, gojit.Float32, n), gojit.Normal(k, dt, 8)
		}
		var got [2][]float32
		for m, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
			f, err := gojit.Compile(fn, opts...)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := f.Call(gojit.RandomKey(7))
			if err != nil {
				t.Fatal(err)
			}
			if outs[0].DType() != dt || outs[2].DType() != dt {
				t.Fatalf("%v: dtypes %v, %v", dt, outs[0].DType(), outs[2].DType())
			}
			grid := float32(1 << 11)
			if dt == gojit.BFloat16 {
				grid = 1 << 8
			}
			f32 := outs[1].Float32()
			for i := range n {
				var v float32
				if dt == gojit.Float16 {
					v = outs[0].Float16()[i].Float32()
				} else {
					v = outs[0].BFloat16()[i].Float32()
				}
				want := float32(int(f32[i]*grid)) / grid
				if v != want || v >= 1 || v < 0 {
					t.Fatalf("%v: element %d = %v, want the Float32 draw %v truncated to %v", dt, i, v, f32[i], want)
				}
				got[m] = append(got[m], v)
			}
		}
		for i := range got[0] {
			if got[0][i] != got[1][i] {
				t.Fatalf("%v: compiled %v, interpreted %v at %d", dt, got[0][i], got[1][i], i)
			}
		}
	}
}
