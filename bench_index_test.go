package gojit_test

// Benchmarks of issue 10's indexing and random targets, as ratios measured
// in one process, interleaved, best of several rounds (bestOf):
//
//   - BenchmarkTake: Take of 1e6 random rows of width 64 (float32) from a
//     1e5x64 table, bounds-checked, against a plain Go loop copying the
//     same rows (x_go_loop = Go time / gojit time; the target is >= 0.8),
//     on one thread and on the default number.
//   - BenchmarkUniform: Uniform over 1e7 float32 on one thread, reported
//     as GB/s of output (the target is >= 2), beside the output rate of a
//     streaming kernel (out = x + 1, one thread) measured interleaved with
//     it, which shows how loaded the shared machine was.
//
//   - BenchmarkScatterAdd: the transpose, adding 1e6 rows of width 64 into
//     a 1e5x64 float32 table at random (duplicate) indices, against a plain
//     Go loop doing the same adds in the same order.
//
// The cost of the bounds check itself is measured in internal/codegen
// (BenchmarkTakeCheck), where the same kernel can be generated without it.

import (
	"testing"

	"github.com/gojit/gojit"
)

func BenchmarkTake(b *testing.B) {
	const rows, width, n = 100_000, 64, 1_000_000
	table := randArray(gojit.Float32, 1, 0, rows, width)
	idx := indexArray(gojit.Int32, 2, 0, rows, n)
	tab, ids := table.Float32(), idx.Int32()
	goOut := make([]float32, n*width)
	goLoop := func() {
		for r, i := range ids {
			copy(goOut[r*width:(r+1)*width], tab[int(i)*width:(int(i)+1)*width])
		}
	}
	for _, threads := range []int{1, 0} {
		name := "threads=default"
		if threads == 1 {
			name = "threads=1"
		}
		b.Run(name, func(b *testing.B) {
			f, err := gojit.Compile(func(x, i *gojit.Tensor) *gojit.Tensor { return x.Take(i, 0) }, gojit.WithThreads(threads))
			if err != nil {
				b.Fatal(err)
			}
			out := []*gojit.Array{gojit.New(gojit.Float32, n, width)}
			call := callInto(b, f, out, table, idx)
			for r := range n { // the same rows as the Go loop
				if j := int(ids[r]) * width; out[0].Float32()[r*width] != tab[j] {
					b.Fatalf("row %d differs", r)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				call()
			}
			b.StopTimer()
			best := bestOf(5, 3, call, goLoop)
			b.ReportMetric(float64(best[1])/float64(best[0]), "x_go_loop")
			b.ReportMetric(float64(n*width*4)/best[0].Seconds()/1e9, "GB/s")
		})
	}
}

func BenchmarkUniform(b *testing.B) {
	const n = 10_000_000
	f, err := gojit.Compile(func(k *gojit.Tensor) *gojit.Tensor { return gojit.Uniform(k, gojit.Float32, n) }, gojit.WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	out := []*gojit.Array{gojit.New(gojit.Float32, n)}
	call := callInto(b, f, out, gojit.RandomKey(1))
	b.ResetTimer()
	for b.Loop() {
		call()
	}
	b.StopTimer()
	// The machine is shared: a streaming kernel (out = x + 1, one thread)
	// over the same number of elements shows what memory allowed meanwhile.
	x := gojit.New(gojit.Float32, n)
	sf, err := gojit.Compile(streamKernel, gojit.WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	stream := callInto(b, sf, []*gojit.Array{gojit.New(gojit.Float32, n)}, x)
	best := bestOf(5, 2, call, stream)
	b.ReportMetric(float64(n*4)/best[0].Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(n*4)/best[1].Seconds()/1e9, "stream_out_GB/s")
}

func BenchmarkScatterAdd(b *testing.B) {
	const rows, width, n = 100_000, 64, 1_000_000
	table := randArray(gojit.Float32, 1, 0, rows, width)
	idx := indexArray(gojit.Int32, 2, 0, rows, n)
	upd := randArray(gojit.Float32, 3, 0, n, width)
	tab, ids, us := table.Float32(), idx.Int32(), upd.Float32()
	goOut := make([]float32, rows*width)
	goLoop := func() {
		copy(goOut, tab)
		for r, i := range ids {
			dst, src := goOut[int(i)*width:(int(i)+1)*width], us[r*width:(r+1)*width]
			for c := range dst {
				dst[c] += src[c]
			}
		}
	}
	for _, threads := range []int{1, 0} {
		name := "threads=default"
		if threads == 1 {
			name = "threads=1"
		}
		b.Run(name, func(b *testing.B) {
			f, err := gojit.Compile(func(x, i, u *gojit.Tensor) *gojit.Tensor { return x.ScatterAdd(i, u, 0) }, gojit.WithThreads(threads))
			if err != nil {
				b.Fatal(err)
			}
			out := []*gojit.Array{gojit.New(gojit.Float32, rows, width)}
			call := callInto(b, f, out, table, idx, upd)
			goLoop()
			if d := diffArrays(out[0], gojit.FromFloat32(goOut, rows, width), 0); d != "" {
				b.Fatalf("differs from the Go loop: %s", d)
			}
			b.ResetTimer()
			for b.Loop() {
				call()
			}
			b.StopTimer()
			best := bestOf(5, 2, call, goLoop)
			b.ReportMetric(float64(best[1])/float64(best[0]), "x_go_loop")
		})
	}
}
