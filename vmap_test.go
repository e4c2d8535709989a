package gojit_test

import (
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
	for _, tc := range []struct {
		name    string
		fn      func(*gojit.Tensor) *gojit.Tensor
		ref     func(s []float32) []float32 // one sample [r, c]
		stacked bool
	}{
		{"elementwise and reductions", func(x *gojit.Tensor) *gojit.Tensor {
			return x.Mul(gojit.Scalar(2)).Add(gojit.Scalar(1)).Sum(1).Sub(x.Max())
		}, func(s []float32) (y []float32) {
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
			}
			return y
		}, false},
		{"take at per-sample positions", func(x *gojit.Tensor) *gojit.Tensor {
			idx := x.Slice([]int{0, 0}, []int{1, 1}).Greater(gojit.Scalar(0)).Cast(gojit.Int32).Reshape(1)
			return x.Take(idx, 1).Reshape(r)
		}, func(s []float32) (z []float32) {
			b := 0
			if s[0] > 0 {
				b = 1
			}
			for j := range r {
				z = append(z, s[j*c+b])
			}
			return z
		}, false},
		{"loop until a per-sample condition", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.While([]*gojit.Tensor{x},
				func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Abs().Sum().Greater(gojit.Scalar(1)) },
				func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Mul(gojit.Scalar(0.5))} })[0]
		}, func(s []float32) []float32 {
			s = append([]float32{}, s...)
			for {
				sum := float32(0)
				for _, v := range s {
					sum += float32(math.Abs(float64(v)))
				}
				if sum <= 1 {
					return s
				}
				for k := range s {
					s[k] *= 0.5
				}
			}
		}, true},
	} {
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
			per := len(got) / n
			if s := outs[0].Shape(); s[0] != n {
				t.Fatalf("shape %v, want [%d ...]", s, n)
			}
			for i := range n {
				want := tc.ref(x[i*r*c : (i+1)*r*c])
				if len(want) != per {
					t.Fatalf("%d values per sample, want %d", per, len(want))
				}
				for j := range want {
					if got[i*per+j] != want[j] {
						t.Fatalf("sample %d, %d: %v, want %v", i, j, got[i*per+j], want[j])
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
