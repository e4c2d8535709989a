package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/philox"
)

// TestBetaSampler: the sample mean and variance of Beta(a, b) draws
// (fixed seed) are within a few standard errors of a/(a+b) and
// ab/((a+b)^2 (a+b+1)), and a Kolmogorov-Smirnov distance to three known
// distribution functions is below its 0.1% critical value.
func TestBetaSampler(t *testing.T) {
	const n = 40000
	key := philox.KeyOf(11)
	for _, c := range []struct{ a, b float64 }{
		{0.2, 0.2}, {0.4, 0.4}, {1, 1}, {2, 5}, {0.5, 3}, {10, 10}, {0.05, 0.05},
	} {
		var sum, sq float64
		for i := range n {
			var r Rand
			r.reset(key, i, 0)
			x := betaSample(&r, c.a, c.b)
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Beta(%v, %v) drew %v", c.a, c.b, x)
			}
			sum += x
			sq += x * x
		}
		mean := sum / n
		v := sq/n - mean*mean
		s := c.a + c.b
		wantMean, wantVar := c.a/s, c.a*c.b/(s*s*(s+1))
		// Standard errors: sqrt(var/n) for the mean; the variance's is
		// at most sqrt(E[(x-m)^4]/n) <= sqrt(var/n) on [0, 1].
		se := math.Sqrt(wantVar / n)
		if math.Abs(mean-wantMean) > 5*se || math.Abs(v-wantVar) > 5*se {
			t.Errorf("Beta(%v, %v): mean %.5f variance %.5f, want %.5f and %.5f (5 standard errors %.5f)", c.a, c.b, mean, v, wantMean, wantVar, 5*se)
		}
	}
	for _, c := range []struct {
		a, b float64
		cdf  func(x float64) float64
	}{
		{1, 1, func(x float64) float64 { return x }},
		{2, 1, func(x float64) float64 { return x * x }},
		{0.5, 0.5, func(x float64) float64 { return 2 / math.Pi * math.Asin(math.Sqrt(x)) }},
	} {
		const m = 20000
		xs := make([]float64, m)
		for i := range xs {
			var r Rand
			r.reset(philox.KeyOf(12), i, 3)
			xs[i] = betaSample(&r, c.a, c.b)
		}
		slices.Sort(xs)
		d := 0.0
		for i, x := range xs {
			f := c.cdf(x)
			d = max(d, math.Abs(f-float64(i)/m), math.Abs(float64(i+1)/m-f))
		}
		if crit := 1.95 / math.Sqrt(m); d > crit {
			t.Errorf("Beta(%v, %v): Kolmogorov-Smirnov distance %.4f above %.4f", c.a, c.b, d, crit)
		}
	}
}

// TestLabelSmoothing: Run, Kernel (1 and 2 workers) and the formula agree
// on every sample.
func TestLabelSmoothing(t *testing.T) {
	path := writeAugFile(t, 45)
	const classes, eps = 10, 0.3
	on, off := float32(1-eps+eps/classes), float32(eps/classes)
	load := func(op Op, workers int) (idx [][]int, rows [][]float32) {
		l, err := NewLoader(path, Config{BatchSize: augBatch, Workers: workers, Seed: augSeed, Order: Random, Fields: map[string][]Op{"label": {op}}})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		collect(t, l.Epoch(context.Background(), augEpoch), func(b *Batch) {
			a := b.Field("label")
			if !slices.Equal(a.Shape(), []int{b.Len(), classes}) || a.DType() != gojit.Float32 {
				t.Fatalf("label %s%v, want f32[%d %d]", a.DType(), a.Shape(), b.Len(), classes)
			}
			idx = append(idx, slices.Clone(b.Indices()))
			rows = append(rows, slices.Clone(a.Float32()))
		})
		return idx, rows
	}
	idx, goRows := load(LabelSmoothing(classes, eps), 1)
	for k := range idx {
		for j, i := range idx[k] {
			for c, v := range goRows[k][j*classes : (j+1)*classes] {
				want := off
				if int64(c) == augLabel(i) {
					want = on
				}
				if v != want {
					t.Fatalf("index %d class %d: %v, want %v", i, c, v, want)
				}
			}
		}
	}
	for _, workers := range []int{1, 2} {
		kidx, kRows := load(kernelOnly{LabelSmoothing(classes, eps)}, workers)
		if !slices.EqualFunc(idx, kidx, slices.Equal) {
			t.Fatal("kernel run has other indices")
		}
		for k := range goRows {
			if !slices.Equal(goRows[k], kRows[k]) {
				t.Fatalf("%d workers: batch %d: kernel %v, Run %v", workers, k, kRows[k], goRows[k])
			}
		}
	}
	// By hand: 4 classes, eps 0.1, label 2.
	on4, off4 := labelSmoothing{4, 0.1}.values()
	if on4 != float32(0.925) || off4 != float32(0.025) {
		t.Errorf("4 classes, eps 0.1: %v and %v, want 0.925 and 0.025", on4, off4)
	}
}

// TestLabelOutOfRange: a label outside [0, classes) fails the batch, in
// Run and in the kernels; negative labels too.
func TestLabelOutOfRange(t *testing.T) {
	path := writeTestFile(t, 5, false) // id 0..4
	for _, op := range []Op{LabelSmoothing(3, 0.1), kernelOnly{LabelSmoothing(3, 0.1)}, LabelMixup(0.5, 3)} {
		l, err := NewLoader(path, Config{BatchSize: 5, Fields: map[string][]Op{"id": {op}}})
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for _, err := range l.Epoch(context.Background(), 0) {
			if err != nil {
				got = err
			}
		}
		l.Close()
		if got == nil || !strings.Contains(got.Error(), "label 3 outside [0, 3)") && !errors.Is(got, gojit.ErrIndexOutOfRange) {
			t.Errorf("%T: %v, want an out-of-range label error", op, got)
		}
	}
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return oneHot(x, 3).Cast(gojit.Float32) })
	if err != nil {
		t.Fatal(err)
	}
	if out, err := f.Call(gojit.FromInt64([]int64{2, 0}, 2)); err != nil || !slices.Equal(out[0].Float32(), []float32{0, 0, 1, 1, 0, 0}) {
		t.Errorf("one-hot of [2 0]: %v, %v", out, err)
	}
	if _, err := f.Call(gojit.FromInt64([]int64{0, -1}, 2)); !errors.Is(err, gojit.ErrIndexOutOfRange) {
		t.Errorf("one-hot of -1: %v, want ErrIndexOutOfRange", err)
	}
}

// TestMixup: ImageMixup and LabelMixup in one loader, u8 and f32 images,
// 1 and 2 workers, against a plain Go reference of the batch: position j
// mixed with n-1-j with the lambda the pair's first position drew from
// the shared mixup stream, the label's lambda and partner the image's.
func TestMixup(t *testing.T) {
	path := writeAugFile(t, 45) // the last batch has 5 samples: a middle one
	const alpha, classes = 0.4, 10
	for _, field := range []string{"rgb", "grey"} {
		nc := 3
		if field == "grey" {
			nc = 1
		}
		for _, dt := range []gojit.DType{gojit.Uint8, gojit.Float32} {
			var pre []Op
			if dt == gojit.Float32 {
				pre = []Op{toUnit(nc)}
			}
			name := fmt.Sprintf("%s/%s", field, dt)
			in := loadEpoch(t, path, 1, map[string][]Op{field: pre})[field]
			var first map[string]*epochData
			for _, workers := range []int{1, 2} {
				got := loadEpoch(t, path, workers, map[string][]Op{
					field: append(slices.Clone(pre), ImageMixup(alpha)), "label": {LabelMixup(alpha, classes)},
				})
				if first == nil {
					first = got
				} else {
					for _, f := range []string{field, "label"} {
						for k := range got[f].raw {
							if string(got[f].raw[k]) != string(first[f].raw[k]) {
								t.Fatalf("%s: field %s batch %d differs between 1 and 2 workers", name, f, k)
							}
						}
					}
				}
				mixupCheck(t, name, in, got[field], got["label"], alpha, classes, dt)
			}
		}
	}
}

// mixupCheck compares a mixed epoch with the reference computed from the
// unmixed images in.
func mixupCheck(t *testing.T, name string, in, img, label *epochData, alpha float64, classes int, dt gojit.DType) {
	t.Helper()
	key := opKey(augSeed, "\x00stream "+mixupStream, 0)
	mixed := 0
	for k := range img.samples {
		idx := img.indices[k]
		if !slices.Equal(idx, in.indices[k]) || !slices.Equal(idx, label.indices[k]) {
			t.Fatalf("%s: batch %d: indices differ", name, k)
		}
		n := len(idx)
		for j := range n {
			p := n - 1 - j
			var r Rand
			r.reset(key, idx[min(j, p)], augEpoch)
			lam := float32(betaSample(&r, alpha, alpha))
			own, partner := in.samples[k][j], in.samples[k][p]
			got := img.samples[k][j]
			if !slices.Equal(got.shape, own.shape) {
				t.Fatalf("%s: index %d: shape %v, want %v", name, idx[j], got.shape, own.shape)
			}
			for y := range own.shape[0] {
				for x := range own.shape[1] {
					for c := range own.shape[2] {
						var q float32
						if y < partner.shape[0] && x < partner.shape[1] && c < partner.shape[2] {
							q = partner.at(y, x, c)
						}
						want := float32(lam*own.at(y, x, c)) + float32((1-lam)*q)
						if dt == gojit.Uint8 {
							want = toU8(want)
						}
						if g := got.at(y, x, c); math.Abs(float64(g-want)) > 1e-6 {
							t.Fatalf("%s: index %d (%d of %d) pixel (%d %d %d): %v, want %v (lambda %v)", name, idx[j], j, n, y, x, c, g, want, lam)
						}
						if g := got.at(y, x, c); g != own.at(y, x, c) {
							mixed++
						}
					}
				}
			}
			// The label: lam*onehot(own) + (1-lam)*onehot(partner).
			row := label.samples[k][j]
			if !slices.Equal(row.shape, []int{classes}) {
				t.Fatalf("%s: label shape %v", name, row.shape)
			}
			for c, v := range row.v {
				var a, b float32
				if int64(c) == augLabel(idx[j]) {
					a = 1
				}
				if int64(c) == augLabel(idx[p]) {
					b = 1
				}
				if want := float32(lam*a) + float32((1-lam)*b); v != want {
					t.Fatalf("%s: index %d label class %d: %v, want %v (lambda %v)", name, idx[j], c, v, want, lam)
				}
			}
		}
	}
	if mixed == 0 {
		t.Fatalf("%s: mixup changed no pixel", name)
	}
}
