package pipeline

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// tensorOpBatches loads field "raw" through ops (after an 8x8 centre
// crop) and returns the epoch's samples, by index, as float64 values (or
// raw bytes for a Uint8 output), with the loader's stages.
func tensorOpBatches(t *testing.T, path string, cfg Config, ops ...Op) (map[int][]float64, []Stage) {
	t.Helper()
	cfg.BatchSize, cfg.Seed = 4, 5
	cfg.Fields = map[string][]Op{"raw": append([]Op{CenterCropJPEG(8, 1)}, ops...)}
	l, err := NewLoader(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out := map[int][]float64{}
	collect(t, l.Epoch(context.Background(), 2), func(b *Batch) {
		for j, i := range b.Indices() {
			v, _ := b.Sample("raw", j)
			var f []float64
			switch v.DType {
			case gojit.Float32:
				for _, x := range v.Float32() {
					f = append(f, float64(x))
				}
			case gojit.Uint8:
				for _, x := range v.Uint8() {
					f = append(f, float64(x))
				}
			default:
				t.Fatalf("unexpected output dtype %s", v.DType)
			}
			out[i] = f
		}
	})
	return out, l.Stages()
}

// fusedStage returns the compiled stage that runs the op named name, or
// nil.
func fusedStage(stages []Stage, name string) *Stage {
	for i, s := range stages {
		if s.Compiled && slices.Contains(s.Ops, name) {
			return &stages[i]
		}
	}
	return nil
}

// TestTensorOpFused: a TensorOp is batched into the compiled stage and
// gives what the per-sample path (Config.NoCompile: fn compiled on its
// own, run on each sample) gives: bit for bit where the computation is
// elementwise, within float32 rounding where a reduction may add in
// another order. An op without a batching rule runs per sample, with the
// reason in the loader's stages.
func TestTensorOpFused(t *testing.T) {
	path := writeImageFile(t, 10)
	for _, tc := range []struct {
		name  string
		fn    any
		tol   float64 // relative; 0: bit for bit
		fused bool
		note  string
	}{
		{"elementwise and reduction", func(x *gojit.Tensor) *gojit.Tensor {
			f := x.Cast(gojit.Float32)
			return f.Sub(f.Mean(0, 1)).Div(gojit.Scalar(64)).Exp().Add(f.Max(2).Reshape(8, 8, 1))
		}, 1e-5, true, ""},
		{"reshape, transpose, flip, pad, slice, concat, matmul", func(x *gojit.Tensor) *gojit.Tensor {
			y := x.Cast(gojit.Float32).Reshape(64, 3).Transpose(1, 0).Flip(1)                                             // [3,64]
			m := y.MatMul(gojit.Full(gojit.Float32, 0.5, 64, 2))                                                          // [3,2]
			p := y.Pad([][2]int{{0, 0}, {1, 2}}, gojit.PadReflect, 0).Pad([][2]int{{1, 0}, {0, 0}}, gojit.PadConstant, 7) // [4,67]
			return gojit.Concat(1, m, y.Slice([]int{0, 1}, []int{3, 9}, 1, 4), y.Sum(1).Reshape(3, 1), p.Slice([]int{1, 0}, []int{4, 5}))
		}, 1e-5, true, ""},
		{"elementwise uint8", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Scalar(255).Sub(x).Transpose(2, 0, 1)
		}, 0, true, ""},
		{"random key", func(x, key *gojit.Tensor) *gojit.Tensor {
			ks := gojit.SplitKey(key, 2)
			k0 := ks.Slice([]int{0, 0}, []int{1, 2}).Reshape(2)
			k1 := ks.Slice([]int{1, 0}, []int{2, 2}).Reshape(2)
			f := x.Cast(gojit.Float32).Mul(gojit.Uniform(key, gojit.Float32, 8, 8, 3))
			keep := gojit.Bernoulli(k0, gojit.Scalar(0.5), 8, 8, 1)
			return gojit.Where(keep, f, f.Add(gojit.Normal(k1, gojit.Float32, 3)))
		}, 0, true, ""},
		{"random crop (integer draws, dynamic slice)", func(x, key *gojit.Tensor) *gojit.Tensor {
			off := gojit.RandomInt(key, 0, 4, gojit.Int32, 2)
			return x.DynamicSlice([]*gojit.Tensor{off.Slice([]int{0}, []int{1}).Reshape(), off.Slice([]int{1}, []int{2}).Reshape(), gojit.Full(gojit.Int32, 0)}, []int{5, 5, 3})
		}, 0, true, ""},
		{"per-sample indices", func(x *gojit.Tensor) *gojit.Tensor {
			f := x.Cast(gojit.Float32).Reshape(192)
			return f.Take(x.Reshape(192).Cast(gojit.Int32).Mod(gojit.Scalar(192)), 0)
		}, 0, true, ""},
		{"scatter at per-sample indices (a histogram)", func(x *gojit.Tensor) *gojit.Tensor {
			bins := x.Reshape(192).Cast(gojit.Int32).Mod(gojit.Scalar(16))
			return gojit.Full(gojit.Float32, 0, 16).ScatterAdd(bins, gojit.Full(gojit.Float32, 1, 192), 0)
		}, 0, true, ""},
		{"cond on the sample", func(x *gojit.Tensor) *gojit.Tensor {
			f := x.Cast(gojit.Float32)
			return gojit.Cond(f.Mean().Greater(gojit.Scalar(128)),
				func() []*gojit.Tensor { return []*gojit.Tensor{f.Sqrt()} },
				func() []*gojit.Tensor { return []*gojit.Tensor{f.Mul(gojit.Scalar(2))} })[0]
		}, 0, true, ""},
		{"loop of fixed length over the sample", func(x *gojit.Tensor) *gojit.Tensor {
			f := x.Cast(gojit.Float32)
			return gojit.ForLoop(gojit.Full(gojit.Int32, 0), gojit.Full(gojit.Int32, 3), []*gojit.Tensor{f}, func(i *gojit.Tensor, s []*gojit.Tensor) []*gojit.Tensor {
				return []*gojit.Tensor{s[0].Mul(gojit.Scalar(0.5)).Add(gojit.Scalar(1))}
			})[0]
		}, 0, true, ""},
		{"loop until a per-sample condition", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.While([]*gojit.Tensor{x.Cast(gojit.Float32)},
				func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Greater(gojit.Scalar(1)) },
				func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Mul(gojit.Scalar(0.5))} })[0]
		}, 0, false, "While: no batching rule: the loop's condition depends on the sample"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := TensorOp(tc.fn)
			want, ref := tensorOpBatches(t, path, Config{NoCompile: true}, op)
			if fusedStage(ref, op.Name()) != nil {
				t.Fatal("NoCompile fused the op")
			}
			got, stages := tensorOpBatches(t, path, Config{}, op)
			compiled := gojit.LLVMVersion() != ""
			if sg := fusedStage(stages, op.Name()); (sg != nil) != (tc.fused && compiled) {
				t.Fatalf("fused %v, want %v: %+v", sg != nil, tc.fused && compiled, stages)
			}
			if tc.note != "" {
				var notes []string
				for _, s := range stages {
					notes = append(notes, s.Notes...)
				}
				if !strings.Contains(strings.Join(notes, "\n"), tc.note) {
					t.Errorf("stage notes %q, want one containing %q", notes, tc.note)
				}
			}
			if len(got) != 10 || len(want) != 10 {
				t.Fatalf("%d and %d samples, want 10", len(got), len(want))
			}
			for i, w := range want {
				g := got[i]
				if len(g) != len(w) {
					t.Fatalf("sample %d: %d values, want %d", i, len(g), len(w))
				}
				for k := range w {
					if d := math.Abs(g[k] - w[k]); d > tc.tol*math.Max(1, math.Abs(w[k])) || math.IsNaN(g[k]) != math.IsNaN(w[k]) {
						t.Fatalf("sample %d value %d: fused %v, per sample %v", i, k, g[k], w[k])
					}
				}
			}
		})
	}
}

// TestTensorOpOneStage: a TensorOp between two built-in compiled ops
// joins their stage: one compiled function runs the three, and the
// result is the per-sample path's.
func TestTensorOpOneStage(t *testing.T) {
	path := writeImageFile(t, 10)
	square := func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(x).Sub(gojit.Scalar(0.25)) }
	ops := []Op{Normalize([]float32{120, 110, 100}, []float32{60, 60, 60}, gojit.Float32), TensorOp(square), ToCHW()}
	want, _ := tensorOpBatches(t, path, Config{NoCompile: true}, ops...)
	got, stages := tensorOpBatches(t, path, Config{}, ops...)
	if gojit.LLVMVersion() != "" {
		var compiled []Stage
		for _, s := range stages {
			if s.Compiled {
				compiled = append(compiled, s)
			}
		}
		// The crop's resampling, its compiled part, runs there too.
		if len(compiled) != 1 || !slices.Equal(compiled[0].Ops[1:], []string{ops[0].Name(), ops[1].Name(), ops[2].Name()}) {
			t.Fatalf("compiled stages %+v, want one running the crop's resampling and the three ops", compiled)
		}
	}
	for i, w := range want {
		for k := range w {
			if d := math.Abs(got[i][k] - w[k]); d > 1e-5*math.Max(1, math.Abs(w[k])) {
				t.Fatalf("sample %d value %d: fused %v, per sample %v", i, k, got[i][k], w[k])
			}
		}
	}
}

// BenchmarkTensorOp loads raw 64x64x3 samples through a TensorOp (to
// float32, scaled, with random brightness from the key, to CHW) run per
// sample (NoCompile: the plain Go stage calling fn's own compiled
// function on each sample) and fused into the stage's compiled function;
// the ratio of their ns/op is the gain of batching. One worker.
func BenchmarkTensorOp(b *testing.B) {
	const n, size = 2048, 64 * 64 * 3
	path := writeRawFile(b, b.TempDir(), n, size, 1<<20)
	fns := map[string]any{
		"plain": func(x *gojit.Tensor) *gojit.Tensor {
			return x.Reshape(64, 64, 3).Cast(gojit.Float32).Div(gojit.Scalar(255)).Sub(gojit.Scalar(0.5)).Transpose(2, 0, 1)
		},
		"random": func(x, key *gojit.Tensor) *gojit.Tensor {
			f := x.Reshape(64, 64, 3).Cast(gojit.Float32).Div(gojit.Scalar(255))
			return f.Mul(gojit.Uniform(key, gojit.Float32, 1, 1, 3).Add(gojit.Scalar(0.5))).Transpose(2, 0, 1)
		},
	}
	for _, name := range []string{"plain", "random"} {
		for _, mode := range []string{"per-sample", "fused"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				l, err := NewLoader(path, Config{BatchSize: 128, Workers: 1, NoCompile: mode == "per-sample", Fields: map[string][]Op{"x": {TensorOp(fns[name])}}})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				for range l.Epoch(context.Background(), 0) { // warm
				}
				b.ReportAllocs()
				epochs := 0
				for e := 0; b.Loop(); e++ {
					for _, err := range l.Epoch(context.Background(), e) {
						if err != nil {
							b.Fatal(err)
						}
					}
					epochs++
				}
				b.ReportMetric(float64(epochs*n)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

// TestTensorOpCode: Loader.Code shows a fused TensorOp's stage, and the
// plan of a TensorOp that runs per sample says why.
func TestTensorOpCode(t *testing.T) {
	path := writeImageFile(t, 4)
	loop := func(x *gojit.Tensor) *gojit.Tensor {
		return gojit.While([]*gojit.Tensor{x.Cast(gojit.Float32)},
			func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Greater(gojit.Scalar(1)) },
			func(s []*gojit.Tensor) []*gojit.Tensor { return []*gojit.Tensor{s[0].Mul(gojit.Scalar(0.5))} })[0]
	}
	double := func(x *gojit.Tensor) *gojit.Tensor { return x.Mul(gojit.Scalar(2)) }
	l, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{"raw": {CenterCropJPEG(8, 1), TensorOp(loop), TensorOp(double)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var plans string
	for _, s := range l.Stages() {
		c, err := l.Code(s.Index)
		if err != nil {
			t.Fatal(err)
		}
		plans += c.Plan
		if s.Compiled && c.Lowered == nil {
			t.Errorf("stage %d: compiled, but no code", s.Index)
		}
	}
	if !strings.Contains(plans, "note: runs per sample, not fused:") || !strings.Contains(plans, "the loop's condition depends on the sample") {
		t.Errorf("the plans do not say why the loop runs per sample:\n%s", plans)
	}
}
