package gojit_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/philox"
)

// randomOps draws every kind of random value from one key.
func randomOps(n int) func(key *gojit.Tensor) []*gojit.Tensor {
	return func(key *gojit.Tensor) []*gojit.Tensor {
		ks := gojit.SplitKey(key, 8)
		k := func(i int) *gojit.Tensor { return ks.Take(gojit.Scalar(float64(i)), 0) }
		return []*gojit.Tensor{
			gojit.Uniform(key, gojit.Float32, n),
			gojit.Uniform(k(1), gojit.Float64, n),
			gojit.Normal(k(2), gojit.Float32, n),
			gojit.Normal(k(3), gojit.Float64, n),
			gojit.Bernoulli(k(4), gojit.Scalar(0.3), n),
			gojit.RandomInt(k(5), -3, 7, gojit.Int32, n),
			gojit.RandomInt(k(6), 0, 256, gojit.Uint8, n),
			ks,
			// fused into arithmetic, and at a multi-dimensional shape
			gojit.Uniform(k(7), gojit.Float32, 3, n/3).Mul(gojit.Scalar(2)).Sub(gojit.Scalar(1)),
		}
	}
}

// TestRandomCompiledEqualsInterpreted requires bit-identical draws compiled
// and interpreted, with 1 and 2 threads, at sizes that split across threads
// and at odd sizes (partial Philox blocks).
func TestRandomCompiledEqualsInterpreted(t *testing.T) {
	key := gojit.RandomKey(20261122)
	for _, n := range []int{1, 3, 7, 999, 200_003} {
		ref, err := gojit.Compile(randomOps(max(n, 3)), gojit.WithInterpreter())
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Call(key)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			f, err := gojit.Compile(randomOps(max(n, 3)), gojit.WithThreads(threads))
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Call(key)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if d := diffArrays(got[i], want[i], 0); d != "" {
					t.Errorf("n=%d threads=%d output %d: %s", n, threads, i, d)
				}
			}
		}
	}
}

// TestRandomMatchesPhilox checks the draws against internal/philox, the
// reference that passes Random123's known-answer vectors.
func TestRandomMatchesPhilox(t *testing.T) {
	const n = 1001
	for _, interpret := range []bool{false, true} {
		opts := []gojit.Option{}
		if interpret {
			opts = append(opts, gojit.WithInterpreter())
		}
		f, err := gojit.Compile(func(key *gojit.Tensor) []*gojit.Tensor {
			return []*gojit.Tensor{gojit.Uniform(key, gojit.Float32, n), gojit.Uniform(key, gojit.Float64, n), gojit.SplitKey(key, 5)}
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.RandomKey(-42))
		if err != nil {
			t.Fatal(err)
		}
		k := philox.KeyOf(-42)
		u32, u64 := out[0].Float32(), out[1].Float64()
		for p := range n {
			if want := philox.Float32(philox.Uint32(k, 0, uint64(p))); u32[p] != want {
				t.Fatalf("interpret=%v: Uniform f32[%d] = %v, want %v", interpret, p, u32[p], want)
			}
			if want := philox.Float64(philox.Uint32(k, 0, uint64(2*p)), philox.Uint32(k, 0, uint64(2*p+1))); u64[p] != want {
				t.Fatalf("interpret=%v: Uniform f64[%d] = %v, want %v", interpret, p, u64[p], want)
			}
		}
		var keys []int32
		for _, s := range philox.Split(k, 5) {
			keys = append(keys, int32(s[0]), int32(s[1]))
		}
		if got := out[2].Int32(); !slices.Equal(got, keys) {
			t.Errorf("interpret=%v: SplitKey = %v, want %v", interpret, got, keys)
		}
	}
	if got := gojit.RandomKey(0x1234567890).Int32(); got[0] != 0x34567890 || got[1] != 0x12 {
		t.Errorf("RandomKey layout: %#x", got)
	}
}

// TestRandomPrefix: a draw depends on its position only, so a longer
// shape extends a shorter one.
func TestRandomPrefix(t *testing.T) {
	draw := func(n int) []float32 {
		f, err := gojit.Compile(func(key *gojit.Tensor) *gojit.Tensor { return gojit.Normal(key, gojit.Float32, n) })
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.Call(gojit.RandomKey(7))
		if err != nil {
			t.Fatal(err)
		}
		return out[0].Float32()
	}
	short, long := draw(37), draw(200_001)
	if !slices.Equal(short, long[:37]) {
		t.Errorf("Normal over 37 elements is not a prefix of Normal over 200001")
	}
}

// TestRandomStatistics is a smoke test of the distributions: moments and
// chi-square over equiprobable buckets, on 2e5 draws (seeded, so it cannot
// flake; the bounds are about 5 standard errors).
func TestRandomStatistics(t *testing.T) {
	const n = 200_000
	f, err := gojit.Compile(randomOps(n))
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.RandomKey(99))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, xs []float64, mean, variance float64, buckets int, cdf func(float64) float64) {
		var m, v float64
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		v /= float64(len(xs) - 1)
		if se := math.Sqrt(variance / float64(len(xs))); math.Abs(m-mean) > 5*se {
			t.Errorf("%s: mean %.5f, want %.5f (±%.5f)", name, m, mean, 5*se)
		}
		if math.Abs(v-variance) > 0.02*variance {
			t.Errorf("%s: variance %.5f, want %.5f", name, v, variance)
		}
		counts := make([]float64, buckets)
		for _, x := range xs {
			b := int(cdf(x) * float64(buckets))
			counts[min(max(b, 0), buckets-1)]++
		}
		chi := 0.0
		e := float64(len(xs)) / float64(buckets)
		for _, c := range counts {
			chi += (c - e) * (c - e) / e
		}
		// chi-square with k-1 degrees of freedom: mean k-1, sd sqrt(2(k-1))
		if df := float64(buckets - 1); chi > df+6*math.Sqrt(2*df) {
			t.Errorf("%s: chi-square %.1f over %d buckets", name, chi, buckets)
		}
	}
	f64 := func(a *gojit.Array) []float64 {
		switch a.DType() {
		case gojit.Float32:
			var xs []float64
			for _, x := range a.Float32() {
				xs = append(xs, float64(x))
			}
			return xs
		case gojit.Int32:
			var xs []float64
			for _, x := range a.Int32() {
				xs = append(xs, float64(x))
			}
			return xs
		case gojit.Uint8:
			var xs []float64
			for _, x := range a.Uint8() {
				xs = append(xs, float64(x))
			}
			return xs
		}
		return a.Float64()
	}
	uniform := func(x float64) float64 { return x }
	normal := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	check("Uniform f32", f64(out[0]), 0.5, 1.0/12, 64, uniform)
	check("Uniform f64", f64(out[1]), 0.5, 1.0/12, 64, uniform)
	check("Normal f32", f64(out[2]), 0, 1, 64, normal)
	check("Normal f64", f64(out[3]), 0, 1, 64, normal)
	check("RandomInt [-3,7)", f64(out[5]), 1.5, (100.0-1)/12, 10, func(x float64) float64 { return (x + 3) / 10 })
	check("RandomInt u8", f64(out[6]), 127.5, (65536.0-1)/12, 256, func(x float64) float64 { return x / 256 })
	ones := 0
	for _, b := range out[4].Bool() {
		if b {
			ones++
		}
	}
	if p := float64(ones) / n; math.Abs(p-0.3) > 5*math.Sqrt(0.3*0.7/n) {
		t.Errorf("Bernoulli(0.3): frequency %.4f", p)
	}
	// Normal's tails: fourth moment 3.
	var m4 float64
	for _, x := range f64(out[3]) {
		m4 += x * x * x * x
	}
	if m4 /= n; math.Abs(m4-3) > 0.1 {
		t.Errorf("Normal f64: fourth moment %.3f, want 3", m4)
	}
}

// TestNormalMath checks the polynomials Normal uses against Go's math.
func TestNormalMath(t *testing.T) {
	for i := 1; i <= 100000; i++ {
		u := float64(i) / 100000
		if u < 1e-3 {
			u = math.Ldexp(u, -40)
		}
		if got, want := interp.Log01(u), math.Log(u); math.Abs(got-want) > 4e-16*math.Max(1, math.Abs(want)) {
			t.Fatalf("Log01(%v) = %v, want %v", u, got, want)
		}
		tt := float64(i-1) / 100000
		if got, want := interp.Cos2Pi(tt), math.Cos(2*math.Pi*tt); math.Abs(got-want) > 1e-15 {
			t.Fatalf("Cos2Pi(%v) = %v, want %v", tt, got, want)
		}
	}
}

func TestRandomErrors(t *testing.T) {
	for _, tc := range []struct {
		name, call string
		fn         any
	}{
		{"key dtype", "Uniform", func(k *gojit.Tensor) *gojit.Tensor { return gojit.Uniform(k.Cast(gojit.Int64), gojit.Float32, 3) }},
		{"key shape", "Normal", func(k *gojit.Tensor) *gojit.Tensor { return gojit.Normal(k.Reshape(1, 2), gojit.Float32, 3) }},
		{"float dtype", "Uniform", func(k *gojit.Tensor) *gojit.Tensor { return gojit.Uniform(k, gojit.Int32, 3) }},
		{"int range", "RandomInt", func(k *gojit.Tensor) *gojit.Tensor { return gojit.RandomInt(k, 5, 5, gojit.Int32, 3) }},
		{"u8 range", "RandomInt", func(k *gojit.Tensor) *gojit.Tensor { return gojit.RandomInt(k, 0, 257, gojit.Uint8, 3) }},
		{"bernoulli p", "Bernoulli", func(k *gojit.Tensor) *gojit.Tensor {
			return gojit.Bernoulli(k, gojit.Full(gojit.Float32, 0.5, 4), 3)
		}},
		{"split count", "SplitKey", func(k *gojit.Tensor) *gojit.Tensor { return gojit.SplitKey(k, -1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := gojit.Compile(tc.fn)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Call(gojit.RandomKey(1))
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), "random_test.go:") || !strings.Contains(err.Error(), tc.call+":") {
				t.Errorf("error %q does not name the user's line and %s", err, tc.call)
			}
		})
	}
}

// TestBernoulliTensorP: p broadcasts to the shape, one probability per row.
func TestBernoulliTensorP(t *testing.T) {
	const n = 50_000
	f, err := gojit.Compile(func(key, p *gojit.Tensor) *gojit.Tensor { return gojit.Bernoulli(key, p, 2, n) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.RandomKey(3), gojit.FromFloat64([]float64{0.1, 0.9}, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	bs := out[0].Bool()
	for r, p := range []float64{0.1, 0.9} {
		ones := 0
		for _, b := range bs[r*n : (r+1)*n] {
			if b {
				ones++
			}
		}
		if f := float64(ones) / n; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/n) {
			t.Errorf("row %d: frequency %.4f, want %.1f", r, f, p)
		}
	}
}
