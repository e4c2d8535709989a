package gojit_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
)

// interleaved times two calls in alternating rounds, in one process (the
// first of each round alternating too, against warm-up and frequency
// effects), and returns the median time per call of each over the rounds:
// the ratio of the two is what the issue 10 targets ask for.
func interleaved(b *testing.B, f, g func()) (tf, tg time.Duration) {
	f()
	g()
	const rounds = 9
	var df, dg []time.Duration
	for round := range rounds {
		for side := range 2 {
			call, which := f, (side+round)%2
			if which == 1 {
				call = g
			}
			start := time.Now()
			for range b.N {
				call()
			}
			d := time.Since(start) / time.Duration(b.N)
			if which == 0 {
				df = append(df, d)
			} else {
				dg = append(dg, d)
			}
		}
	}
	slices.Sort(df)
	slices.Sort(dg)
	return df[rounds/2], dg[rounds/2]
}

// BenchmarkSoftmaxFused compares Softmax with the softmax written from
// primitives (internal/bench.Softmax, BenchmarkSoftmax's), 4096x1024
// float32; the metric fused/primitives is the ratio of their times
// (issue 10: at most 1).
func BenchmarkSoftmaxFused(b *testing.B) {
	const r, c = 4096, 1024
	x := gojit.FromFloat32(bench.RandFloat32(r*c, 3), r, c)
	fused := compiled(b, func(x *gojit.Tensor) *gojit.Tensor { return x.Softmax(-1) })
	prim := compiled(b, bench.Softmax)
	out1, out2 := gojit.New(gojit.Float32, r, c), gojit.New(gojit.Float32, r, c)
	tf, tp := interleaved(b, callInto(b, fused, []*gojit.Array{out1}, x), callInto(b, prim, []*gojit.Array{out2}, x))
	b.ReportMetric(float64(tf.Microseconds()), "fused-µs/op")
	b.ReportMetric(float64(tp.Microseconds()), "primitives-µs/op")
	b.ReportMetric(float64(tf)/float64(tp), "fused/primitives")
}

// BenchmarkEinsumBMM compares Einsum("bij,bjk->bik") with MatMul on
// [16,256,256] float32 operands; the metric einsum/matmul is the ratio of
// their times (issue 10: within 10%).
func BenchmarkEinsumBMM(b *testing.B) {
	const bs, n = 16, 256
	x := gojit.FromFloat32(bench.RandFloat32(bs*n*n, 4), bs, n, n)
	y := gojit.FromFloat32(bench.RandFloat32(bs*n*n, 5), bs, n, n)
	ein := compiled(b, func(x, y *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bij,bjk->bik", x, y) })
	mm := compiled(b, func(x, y *gojit.Tensor) *gojit.Tensor { return x.MatMul(y) })
	out1, out2 := gojit.New(gojit.Float32, bs, n, n), gojit.New(gojit.Float32, bs, n, n)
	te, tm := interleaved(b, callInto(b, ein, []*gojit.Array{out1}, x, y), callInto(b, mm, []*gojit.Array{out2}, x, y))
	b.ReportMetric(float64(te.Microseconds()), "einsum-µs/op")
	b.ReportMetric(float64(tm.Microseconds()), "matmul-µs/op")
	b.ReportMetric(float64(te)/float64(tm), "einsum/matmul")
}

// TestFusedOpsSameGraph checks the structural reason the two ratios above
// are 1: Softmax fuses into the same graph and plan as the softmax written
// from primitives, and Einsum("bij,bjk->bik") into the same as MatMul (so
// they compile to the same kernel; the benchmarks measure only noise).
func TestFusedOpsSameGraph(t *testing.T) {
	pos := regexp.MustCompile(`\s*@ [^\n]*`)
	fused := func(fn any, args ...any) string {
		f, err := gojit.Compile(fn, gojit.WithInterpreter())
		if err != nil {
			t.Fatal(err)
		}
		l, err := f.Lower(args...)
		if err != nil {
			t.Fatal(err)
		}
		return pos.ReplaceAllString(l.Fused, "")
	}
	x := gojit.New(gojit.Float32, 64, 128)
	a, b := fused(func(x *gojit.Tensor) *gojit.Tensor { return x.Softmax(-1) }, x), fused(bench.Softmax, x)
	if !strings.Contains(a, "exp") || a != b {
		t.Errorf("Softmax:\n%s\nfrom primitives:\n%s", a, b)
	}
	y := gojit.New(gojit.Float32, 4, 32, 32)
	a = fused(func(x, y *gojit.Tensor) *gojit.Tensor { return gojit.Einsum("bij,bjk->bik", x, y) }, y, y)
	b = fused(func(x, y *gojit.Tensor) *gojit.Tensor { return x.MatMul(y) }, y, y)
	if !strings.Contains(a, "matmul") || a != b {
		t.Errorf("Einsum:\n%s\nMatMul:\n%s", a, b)
	}
}

// BenchmarkSortRows sorts the rows of a 1024x1024 float32 (a heap sort per
// row, rows split across threads) against slices.Sort on each row in Go,
// one thread; the metric sort/go is the ratio of their times.
func BenchmarkSortRows(b *testing.B) {
	const r, c = 1024, 1024
	data := bench.RandFloat32(r*c, 9)
	x := gojit.FromFloat32(data, r, c)
	f := compiled(b, func(x *gojit.Tensor) *gojit.Tensor { return x.Sort(-1) })
	out := gojit.New(gojit.Float32, r, c)
	buf := make([]float32, r*c)
	goSort := func() {
		copy(buf, data)
		for i := 0; i < len(buf); i += c {
			slices.Sort(buf[i : i+c])
		}
	}
	ts, tg := interleaved(b, callInto(b, f, []*gojit.Array{out}, x), goSort)
	b.ReportMetric(float64(ts.Microseconds()), "sort-µs/op")
	b.ReportMetric(float64(tg.Microseconds()), "go-µs/op")
	b.ReportMetric(float64(ts)/float64(tg), "sort/go")
}
