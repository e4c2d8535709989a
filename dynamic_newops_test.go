package gojit_test

import (
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestDynamicNewOps runs issue 10's ops under WithDynamicDim (the batch
// axis 0 dynamic) at several batch sizes against the interpreter: ops that
// do not depend on the batch size beyond its loops compile once; those
// that do (a flip of the batch axis, whose start is B-1) must make Call
// fail with an error naming the line, never return wrong values.
func TestDynamicNewOps(t *testing.T) {
	ok := []struct {
		name string
		f    func(x *gojit.Tensor) *gojit.Tensor
	}{
		{"CumSum_rows", func(x *gojit.Tensor) *gojit.Tensor { return x.CumSum(1) }},
		{"CumSum_batch", func(x *gojit.Tensor) *gojit.Tensor { return x.CumSum(0) }},
		{"Sort_rows", func(x *gojit.Tensor) *gojit.Tensor { return x.Sort(1) }},
		{"ArgSort_batch", func(x *gojit.Tensor) *gojit.Tensor { return x.ArgSort(0) }},
		{"Softmax", func(x *gojit.Tensor) *gojit.Tensor { return x.Softmax(-1) }},
		{"Flip_cols", func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(1).Mod(gojit.Scalar(3)) }},
		{"Log1p_Erf", func(x *gojit.Tensor) *gojit.Tensor { return x.Log1p().Add(x.Erf()) }},
		{"Einsum", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bi,bj->bij", x, x) }},
		{"Half", func(x *gojit.Tensor) *gojit.Tensor {
			return x.Cast(gojit.Float16).Mul(gojit.Scalar(2)).Cast(gojit.Float32)
		}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			f, err := gojit.Compile(c.f, gojit.WithDynamicDim(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			r, err := gojit.Compile(c.f, gojit.WithInterpreter())
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []int{1, 3, 17} {
				x := randArray(gojit.Float32, uint64(b), 0, b, 6)
				got, err := f.Call(x)
				if err != nil {
					t.Fatalf("batch %d: %v", b, err)
				}
				want, err := r.Call(x)
				if err != nil {
					t.Fatal(err)
				}
				ulps := uint64(0)
				if c.name == "Softmax" || c.name == "Log1p_Erf" {
					ulps = sumChainULPs
				}
				if d := diffArrays(got[0], want[0], ulps); d != "" {
					t.Errorf("batch %d: %s", b, d)
				}
			}
		})
	}
	t.Run("Flip_batch", func(t *testing.T) {
		if gojit.LLVMVersion() == "" {
			t.Skip("no LLVM in this build: dynamic dimensions only constrain compiled code")
		}
		f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Flip(0) }, gojit.WithDynamicDim(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Call(randArray(gojit.Float32, 1, 0, 5, 6))
		if err == nil {
			t.Fatal("a flip of the dynamic axis compiled; it depends on the batch size")
		}
		if !strings.Contains(err.Error(), "dynamic_newops_test.go:") || !strings.Contains(err.Error(), "Flip") {
			t.Errorf("error does not name the line and the op: %v", err)
		}
	})
}
