package lazy

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randData(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}

// gt2Ref is the GT2 pattern in plain Go: mean(relu(((a+b)*a) @ b)).
func gt2Ref(a, b []float32, n int) float64 {
	d := make([]float64, n*n)
	for i := range d {
		d[i] = float64((a[i] + b[i]) * a[i])
	}
	sum := 0.0
	for i := range n {
		for j := range n {
			s := 0.0
			for k := range n {
				s += d[i*n+k] * float64(b[k*n+j])
			}
			sum += max(s, 0)
		}
	}
	return sum / float64(n*n)
}

func gt2(c *Context, a, b []float32, n int) *Tensor {
	x, y := c.FromFloat32(a, n, n), c.FromFloat32(b, n, n)
	return x.Add(y).Mul(x).MatMul(y).Relu().Mean()
}

func TestGT2Pattern(t *testing.T) {
	c, err := NewContext()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 3 {
		a, b := randData(r, 100*100), randData(r, 100*100)
		got, err := gt2(c, a, b, 100).Item()
		if err != nil {
			t.Fatal(err)
		}
		want := gt2Ref(a, b, 100)
		if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Fatalf("iteration %d: got %v, want %v", it, got, want)
		}
	}
	t.Log(Stats())
}

func TestChainAndReuse(t *testing.T) {
	c, _ := NewContext()
	x := c.FromFloat32([]float32{1, 2, 3, 4})
	y := x
	for range 10 {
		y = y.Mul(Scalar(2)).Add(Scalar(1))
	}
	got, err := y.Float32()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []float32{1, 2, 3, 4} {
		w := v
		for range 10 {
			w = w*2 + 1
		}
		if got[i] != w {
			t.Fatalf("element %d: got %v, want %v", i, got[i], w)
		}
	}
	// y is resident now: using it again does not recompute it.
	z := y.Sum()
	s, err := z.Item()
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, v := range got {
		want += float64(v)
	}
	if s != want {
		t.Fatalf("sum: got %v, want %v", s, want)
	}
}

func float32Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }
