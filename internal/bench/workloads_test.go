package bench

import (
	"flag"
	"math"
	"runtime"
	"strings"
	"testing"
)

// smallSpec keeps the CI run fast; odd sizes exercise vector-loop tails.
var smallSpec = Spec{
	ChainSizes: []int{1, 7, 1000, 1 << 15},
	RowSum:     [2]int{33, 257},
	Softmax:    [2]int{17, 100},
	LayerNorm:  [2]int{19, 64},
	MatMul:     48,
	Mix20:      [2]int{13, 100},
}

// TestWorkloads builds every workload at small sizes: building checks the
// gojit and gonum results against the Go loops. Each measured call is then
// run once.
func TestWorkloads(t *testing.T) {
	ws, err := Workloads(smallSpec)
	if err != nil {
		t.Fatal(err)
	}
	want := len(smallSpec.ChainSizes) + 5
	if runtime.GOMAXPROCS(0) > 1 {
		want++ // the matmul's one-thread line
	}
	if len(ws) != want {
		t.Fatalf("%d workloads, want %d", len(ws), want)
	}
	for i, w := range ws {
		if w.Threads == 0 {
			continue
		}
		// The one-thread line follows the default matmul line and asks
		// for the BLAS-based peers only.
		if w.Kind != KindMatMul || w.Threads != 1 || i == 0 || ws[i-1].Kind != KindMatMul || !strings.HasSuffix(w.Name, ", 1 thread") || len(w.Peers) == 0 {
			t.Errorf("one-thread line %d: %+v", i, w)
		}
	}
	setBenchtime(t, "1x")
	names := map[string]bool{}
	for _, w := range ws {
		if names[w.Name] {
			t.Errorf("duplicate workload name %q", w.Name)
		}
		names[w.Name] = true
		if w.Systems[0].Name != "gojit" || w.Bytes <= 0 || w.Elems <= 0 {
			t.Errorf("%s: malformed: first system %q, bytes %d, elems %d", w.Name, w.Systems[0].Name, w.Bytes, w.Elems)
		}
		for _, s := range w.Systems {
			if r := testing.Benchmark(s.Run); r.N != 1 {
				t.Errorf("%s/%s: ran %d times, want 1", w.Name, s.Name, r.N)
			}
		}
	}
}

func setBenchtime(t *testing.T, v string) {
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	if err := f.Value.Set(v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

func TestFloorKernels(t *testing.T) {
	setBenchtime(t, "1x")
	for _, k := range []Floor{FloorStream, FloorRead} {
		runs, bytes, err := FloorKernels(k, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[Floor]int64{FloorStream: 12000, FloorRead: 4000}[k]; bytes != want || len(runs) == 0 {
			t.Errorf("%s: %d kernels, %d bytes, want %d", k, len(runs), bytes, want)
		}
		for _, run := range runs {
			testing.Benchmark(run)
		}
	}
	if _, _, err := FloorKernels("copy", 10); err == nil {
		t.Error("unknown floor kind: no error")
	}
}

// The Go loops are the reference for everything else, so they are checked
// against known answers and against a literal op-by-op evaluation.

func TestRowSumLoop(t *testing.T) {
	x := []float32{1, 2, 3, -1, 0.5, 0.25}
	out := make([]float32, 2)
	RowSumLoop(out, x, 3)
	if out[0] != 6 || out[1] != -0.25 {
		t.Errorf("got %v, want [6 -0.25]", out)
	}
}

func TestSoftmaxLoop(t *testing.T) {
	x := []float32{0, 0, 1, 1, 3, 3} // rows of 3
	out := make([]float32, 6)
	SoftmaxLoop(out, x, 3)
	e := math.E
	want := []float64{1 / (2 + e), 1 / (2 + e), e / (2 + e), 1 / (1 + 2*e*e), e * e / (1 + 2*e*e), e * e / (1 + 2*e*e)}
	for i, w := range want {
		if math.Abs(float64(out[i])-w) > 1e-6 {
			t.Errorf("out[%d] = %v, want %v", i, out[i], w)
		}
	}
}

func TestLayerNormLoop(t *testing.T) {
	// Row [1 2 3 4]: mean 2.5, variance 1.25.
	x := []float32{1, 2, 3, 4}
	gamma, beta := []float32{1, 1, 2, 2}, []float32{0, 0, 0, 1}
	out := make([]float32, 4)
	LayerNormLoop(out, x, gamma, beta)
	sd := math.Sqrt(1.25 + LayerNormEps)
	want := []float64{-1.5 / sd, -0.5 / sd, 2 * 0.5 / sd, 2*1.5/sd + 1}
	for i, w := range want {
		if math.Abs(float64(out[i])-w) > 1e-6 {
			t.Errorf("out[%d] = %v, want %v", i, out[i], w)
		}
	}
}

func TestMatMulBiasReluLoop(t *testing.T) {
	// [[1 2] [3 4]] @ [[1 -1] [0 -1]] = [[1 -3] [3 -7]]; + bias [1 5].
	out := make([]float32, 4)
	MatMulBiasReluLoop(out, []float32{1, 2, 3, 4}, []float32{1, -1, 0, -1}, []float32{1, 5}, 2, 2)
	if want := []float32{2, 2, 4, 0}; !equal(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
	// Non-square: [1×3] @ [3×2].
	out = make([]float32, 2)
	MatMulBiasReluLoop(out, []float32{1, 2, 3}, []float32{1, 0, 0, 1, 1, 1}, []float32{0, -10}, 1, 3)
	if want := []float32{4, 0}; !equal(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
}

// TestMix20Loop checks the fused row loop against the 20 steps written
// literally, one whole-array pass each.
func TestMix20Loop(t *testing.T) {
	const r, c = 5, 33
	x, y := RandFloat32(r*c, 1), RandFloat32(r*c, 2)
	w, bias := RandFloat32(c, 3), RandFloat32(c, 4)
	got := make([]float32, r*c)
	Mix20Loop(got, x, y, w, bias, make([]float32, c))
	want := mix20Steps(x, y, w, bias, c)
	if err := check("mix20", "row loop", got, want, 1e-6, 1e-6); err != nil {
		t.Error(err)
	}
}

func mix20Steps(x, y, w, bias []float32, c int) []float32 {
	n := len(x)
	ew := func(f func(i int) float32) []float32 {
		o := make([]float32, n)
		for i := range o {
			o[i] = f(i)
		}
		return o
	}
	rowReduce := func(v []float32, start float32, f func(acc, x float32) float32) []float32 {
		o := make([]float32, n/c)
		for i := range o {
			acc := start
			for _, e := range v[i*c : (i+1)*c] {
				acc = f(acc, e)
			}
			o[i] = acc
		}
		return o
	}
	f64 := func(fn func(float64) float64, v float32) float32 { return float32(fn(float64(v))) }
	a := ew(func(i int) float32 { return x[i] * w[i%c] })
	b := ew(func(i int) float32 { return a[i] + y[i] })
	cc := ew(func(i int) float32 { return f64(math.Abs, b[i]) })
	d := ew(func(i int) float32 { return f64(math.Sqrt, cc[i]) })
	e := ew(func(i int) float32 { return d[i] - y[i] })
	m := rowReduce(e, float32(math.Inf(-1)), func(acc, v float32) float32 { return max(acc, v) })
	f := ew(func(i int) float32 { return e[i] - m[i/c] })
	g := ew(func(i int) float32 { return f64(math.Exp, f[i]) })
	s := rowReduce(g, 0, func(acc, v float32) float32 { return acc + v })
	h := ew(func(i int) float32 { return g[i] / s[i/c] })
	k := ew(func(i int) float32 { return h[i] * x[i] })
	l := ew(func(i int) float32 { return f64(math.Tanh, y[i]) })
	p := ew(func(i int) float32 { return k[i] + l[i] })
	q := ew(func(i int) float32 { return min(p[i], 0.5) })
	mu := rowReduce(q, 0, func(acc, v float32) float32 { return acc + v })
	rr := ew(func(i int) float32 { return q[i] - mu[i/c]/float32(c) })
	u := ew(func(i int) float32 { return rr[i] * rr[i] })
	v := ew(func(i int) float32 { return u[i] * w[i%c] })
	z := ew(func(i int) float32 { return v[i] + bias[i%c] })
	return ew(func(i int) float32 { return max(z[i], rr[i]) })
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCheck(t *testing.T) {
	want := []float32{1, 2, float32(math.NaN())}
	if err := check("w", "s", []float32{1, 2.0001, float32(math.NaN())}, want, 0, 1e-4); err != nil {
		t.Errorf("within tolerance: %v", err)
	}
	for _, got := range [][]float32{{1, 2.01, 0}, {1, 2, 0}, {1, 2}} {
		err := check("w", "s", got, want, 0, 1e-4)
		if err == nil || !strings.HasPrefix(err.Error(), "w: s") {
			t.Errorf("check(%v) = %v, want an error naming the workload and system", got, err)
		}
	}
}

func TestFmtCount(t *testing.T) {
	for n, want := range map[int]string{1000: "1e3", 10_000_000: "1e7", 1: "1", 1500: "1500", 10: "1e1"} {
		if got := fmtCount(n); got != want {
			t.Errorf("fmtCount(%d) = %q, want %q", n, got, want)
		}
	}
}
