package gojit_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestVmap: Vmap of a per-sample function equals a plain Go loop over the
// samples, batched (one graph, no copy per sample) when every op has a
// rule, and stacked per sample when one has none.
func TestVmap(t *testing.T) {
	const n, r, c = 5, 3, 4
	x := make([]float32, n*r*c)
	for i := range x {
		x[i] = float32((i*7)%11) - 3
	}
	// ref: per sample, y[j] = sum_k (2*x[j,k] + 1) - max(x), and
	// z[j] = x[j, b] with b = 1 if x[0,0] > 0, else 0.
	ref := func(s []float32) (y, z []float32) {
		m := float32(math.Inf(-1))
		for _, v := range s {
			m = max(m, v)
		}
		for j := range r {
			sum := float32(0)
			for k := range c {
				sum += 2*s[j*c+k] + 1
			}
			y = append(y, sum-m)
			idx := 0
			if s[0] > 0 {
				idx = 1
			}
			z = append(z, s[j*c+idx])
		}
		return y, z
	}
	batched := func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(2)).Add(gojit.Scalar(1)).Sum(1).Sub(x.Max())
	}
	perSample := func(x *gojit.Tensor) *gojit.Tensor { // a Take at per-sample positions
		idx := x.Slice([]int{0, 0}, []int{1, 1}).Greater(gojit.Scalar(0)).Cast(gojit.Int32).Reshape(1)
		return x.Take(idx, 1).Reshape(r)
	}
	for _, tc := range []struct {
		name    string
		fn      func(*gojit.Tensor) *gojit.Tensor
		z       bool // compare with ref's z, else y
		stacked bool
	}{{"batched", batched, false, false}, {"stacked", perSample, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := gojit.Compile(gojit.Vmap(tc.fn))
			if err != nil {
				t.Fatal(err)
			}
			in := gojit.FromFloat32(x, n, r, c)
			outs, err := f.Call(in)
			if err != nil {
				t.Fatal(err)
			}
			got := outs[0].Float32()
			if s := outs[0].Shape(); fmt.Sprint(s) != fmt.Sprint([]int{n, r}) {
				t.Fatalf("shape %v, want [%d %d]", s, n, r)
			}
			for i := range n {
				y, z := ref(x[i*r*c : (i+1)*r*c])
				want := y
				if tc.z {
					want = z
				}
				for j := range r {
					if got[i*r+j] != want[j] {
						t.Fatalf("sample %d, %d: %v, want %v", i, j, got[i*r+j], want[j])
					}
				}
			}
			low, err := f.Lower(in)
			if err != nil {
				t.Fatal(err)
			}
			// Stacking per sample concatenates n results; batching does not.
			if strings.Contains(low.Traced, "concat") != tc.stacked {
				t.Errorf("stacked per sample: %v, want %v:\n%s", !tc.stacked, tc.stacked, low.Traced)
			}
		})
	}
}

// TestVmapErrors: a tensor without a batch axis and an error in fn are
// reported by the traced function's Call.
func TestVmapErrors(t *testing.T) {
	for _, tc := range []struct {
		fn   func(*gojit.Tensor) *gojit.Tensor
		arg  *gojit.Array
		want string
	}{
		{func(x *gojit.Tensor) *gojit.Tensor { return x }, gojit.New(gojit.Float32), "no batch axis"},
		{func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(7) }, gojit.FromFloat32(make([]float32, 6), 2, 3), "Reshape"},
	} {
		f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return gojit.Vmap(tc.fn)(x) })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Call(tc.arg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want an error containing %q", err, tc.want)
		}
	}
}
