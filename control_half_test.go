package gojit_test

import (
	"testing"

	"github.com/gojit/gojit"
)

// Loop state may be a storage dtype: it stays Float16 through the loop
// (the body computes in Float32 and rounds back), compiled and interpreted.
func TestForLoopHalfState(t *testing.T) {
	fn := func(x *gojit.Tensor) *gojit.Tensor {
		out := gojit.ForLoop(gojit.Scalar(0), gojit.Scalar(3), []*gojit.Tensor{x},
			func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Mul(gojit.Scalar(2)).Add(gojit.Scalar(0.5))}
			})
		return out[0]
	}
	in := []gojit.F16{gojit.F16Of(1), gojit.F16Of(-3.25), gojit.F16Of(1000)}
	var want []float32
	for _, v := range in {
		x := v.Float32()
		for range 3 {
			x = gojit.F16Of(x*2 + 0.5).Float32()
		}
		want = append(want, x)
	}
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(fn, opts...)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := f.Call(gojit.FromFloat16(in))
		if err != nil {
			t.Fatal(err)
		}
		if outs[0].DType() != gojit.Float16 {
			t.Fatalf("result dtype %v, want Float16", outs[0].DType())
		}
		for i, v := range outs[0].Float16() {
			if v.Float32() != want[i] {
				t.Errorf("opts %v: element %d = %v, want %v", opts, i, v.Float32(), want[i])
			}
		}
	}
}
