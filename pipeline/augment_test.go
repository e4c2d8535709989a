package pipeline

import (
	"context"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// The augmentation tests load a file of small RGB and grey images of
// variable size (imgDims, pixel) and integer labels, and check each op
// three ways: its Run through the loader, its Kernel through the loader
// (kernelOnly, 1 and 2 workers) and an independent reference written here,
// fed with the op's input as the loader gives it and the draws of the
// sample's Rand.

const augSeed, augEpoch, augBatch = 7, 1, 20

func augLabel(i int) int64 { return int64(i*7) % 10 }

// writeAugFile writes n samples: "rgb" (u8 [<=5 <=4 3]), "grey" (u8
// [<=5 <=4 1]) and "label" (an Int in [0, 10)).
func writeAugFile(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "aug.gojit")
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("rgb", dataset.ImageOptions{Channels: 3, MaxRes: 8}),
		dataset.Image("grey", dataset.ImageOptions{Channels: 1, MaxRes: 8}),
		dataset.Int("label"),
	}}
	w, err := dataset.Create(path, schema, dataset.WithPageSize(dataset.MinPageSize), dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			h, wd := imgDims(i)
			g := image.NewGray(image.Rect(0, 0, wd, h))
			for y := range h {
				for x := range wd {
					g.Pix[y*g.Stride+x] = pixel(i, y, x, 1)
				}
			}
			if !yield(i, dataset.Sample{"rgb": testImage{i}, "grey": g, "label": augLabel(i)}) {
				return
			}
		}
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// img is one sample's value as float32 elements (u8 converted).
type img struct {
	shape []int
	v     []float32
}

func (m img) at(y, x, c int) float32 { return m.v[(y*m.shape[1]+x)*m.shape[2]+c] }

// epochData is a field's content over one epoch, batch by batch.
type epochData struct {
	dtype   gojit.DType
	indices [][]int
	raw     [][]byte // each batch's whole field, padding included
	samples [][]img  // each sample trimmed to its own shape
}

// loadEpoch loads epoch augEpoch of the given fields and returns each
// one's content.
func loadEpoch(t *testing.T, path string, workers int, fields map[string][]Op) map[string]*epochData {
	t.Helper()
	l, err := NewLoader(path, Config{BatchSize: augBatch, Workers: workers, Seed: augSeed, Order: Random, Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out := map[string]*epochData{}
	for name := range fields {
		out[name] = &epochData{}
	}
	collect(t, l.Epoch(context.Background(), augEpoch), func(b *Batch) {
		for name, d := range out {
			a := b.Field(name)
			d.dtype = a.DType()
			d.indices = append(d.indices, slices.Clone(b.Indices()))
			d.raw = append(d.raw, slices.Clone(bytesOf(a)))
			// Each sample from Field and Shapes (Batch.Sample does not
			// see the shapes a kernel publishes).
			var ss []img
			shapes := b.Shapes(name).Int32()
			rank := len(shapes) / b.Len()
			per := a.Size() / b.Len()
			for j := range b.Len() {
				m := img{}
				n := 1
				for _, x := range shapes[j*rank : (j+1)*rank] {
					m.shape = append(m.shape, int(x))
					n *= int(x)
				}
				switch a.DType() {
				case gojit.Uint8:
					for _, x := range a.Uint8()[j*per : j*per+n] {
						m.v = append(m.v, float32(x))
					}
				case gojit.Float32:
					m.v = slices.Clone(a.Float32()[j*per : j*per+n])
				default:
					t.Fatalf("field %s: dtype %s", name, a.DType())
				}
				ss = append(ss, m)
			}
			d.samples = append(d.samples, ss)
		}
	})
	return out
}

// sameEpoch compares two loads of a field: shapes, indices and values
// (exactly for u8, within tol for f32), and the padding of b zero.
func sameEpoch(t *testing.T, what string, a, b *epochData, tol float32) {
	t.Helper()
	if len(a.samples) != len(b.samples) {
		t.Fatalf("%s: %d and %d batches", what, len(a.samples), len(b.samples))
	}
	for k := range a.samples {
		if !slices.Equal(a.indices[k], b.indices[k]) {
			t.Fatalf("%s: batch %d indices differ", what, k)
		}
		if a.dtype == gojit.Uint8 && string(a.raw[k]) != string(b.raw[k]) {
			t.Errorf("%s: batch %d bytes differ", what, k)
		}
		per := len(b.raw[k]) / len(b.samples[k]) / b.dtype.Size()
		for j, sb := range b.samples[k] {
			sa := a.samples[k][j]
			if !slices.Equal(sa.shape, sb.shape) {
				t.Fatalf("%s: batch %d sample %d shape %v and %v", what, k, j, sa.shape, sb.shape)
			}
			for e := range sa.v {
				if d := sa.v[e] - sb.v[e]; d > tol || d < -tol || math.IsNaN(float64(d)) {
					t.Fatalf("%s: batch %d sample %d (index %d) element %d: %v and %v", what, k, j, a.indices[k][j], e, sa.v[e], sb.v[e])
				}
			}
			// The memory past the sample's own shape stays zero.
			sz := b.dtype.Size()
			for _, x := range b.raw[k][(j*per+len(sb.v))*sz : (j+1)*per*sz] {
				if x != 0 {
					t.Fatalf("%s: batch %d sample %d: non-zero padding", what, k, j)
				}
			}
		}
	}
}

// opRef is an independent reference of an op: the output for one
// sample's input, given the op's Rand for that sample.
type opRef func(r *Rand, in img, dt gojit.DType) []float32

// toU8 rounds a reference value as a u8 image stores it.
func toU8(v float32) float32 { return float32(math.RoundToEven(float64(min(max(v, 0), 255)))) }

func refFill(fill [3]uint8, dt gojit.DType, c int) float32 {
	if dt == gojit.Float32 {
		return float32(fill[c]) / 255
	}
	return float32(fill[c])
}

func refCutout(size int, fill [3]uint8) opRef {
	return func(r *Rand, in img, dt gojit.DType) []float32 {
		h, w, c := in.shape[0], in.shape[1], in.shape[2]
		cy, cx := r.Intn(h), r.Intn(w)
		out := make([]float32, 0, len(in.v))
		for y := range h {
			for x := range w {
				for ch := range c {
					dy, dx := y-(cy-size/2), x-(cx-size/2)
					if dy >= 0 && dy < size && dx >= 0 && dx < size {
						out = append(out, refFill(fill, dt, ch))
					} else {
						out = append(out, in.at(y, x, ch))
					}
				}
			}
		}
		return out
	}
}

func refTranslate(pad int, fill [3]uint8) opRef {
	return func(r *Rand, in img, dt gojit.DType) []float32 {
		h, w, c := in.shape[0], in.shape[1], in.shape[2]
		dy := r.Intn(2*pad+1) - pad
		dx := r.Intn(2*pad+1) - pad
		var out []float32
		for y := range h {
			for x := range w {
				for ch := range c {
					if y-dy < 0 || y-dy >= h || x-dx < 0 || x-dx >= w {
						out = append(out, refFill(fill, dt, ch))
					} else {
						out = append(out, in.at(y-dy, x-dx, ch))
					}
				}
			}
		}
		return out
	}
}

// refJitter applies the three adjustments one pass each, in float32.
func refJitter(b, c, s float64) opRef {
	return func(r *Rand, in img, dt gojit.DType) []float32 {
		var f [3]float32
		for k, a := range []float64{b, c, s} {
			lo := max(0, 1-a)
			f[k] = float32(lo + (1+a-lo)*float64(r.Float32()))
		}
		bound := float32(255)
		if dt == gojit.Float32 {
			bound = 1
		}
		clamp := func(v float32) float32 { return min(max(v, 0), bound) }
		nc := in.shape[2]
		grey := func(v []float32, p int) float32 {
			if nc == 1 {
				return v[p]
			}
			return float32(0.299*v[3*p]) + float32(0.587*v[3*p+1]) + float32(0.114*v[3*p+2])
		}
		v := slices.Clone(in.v)
		for i := range v {
			v[i] = clamp(float32(f[0] * v[i]))
		}
		n := len(v) / nc
		var sum float64
		for p := range n {
			sum += float64(grey(v, p))
		}
		mean := float32(sum / float64(n))
		for i := range v {
			v[i] = clamp(float32(f[1]*v[i]) + float32((1-f[1])*mean))
		}
		if nc == 3 {
			for p := range n {
				g := grey(v, p)
				for ch := range 3 {
					v[3*p+ch] = clamp(float32(f[2]*v[3*p+ch]) + float32((1-f[2])*g))
				}
			}
		}
		if dt == gojit.Uint8 {
			for i := range v {
				v[i] = toU8(v[i])
			}
		}
		return v
	}
}

func refGrayscale(p float64) opRef {
	return func(r *Rand, in img, dt gojit.DType) []float32 {
		v := slices.Clone(in.v)
		if float64(r.Float32()) >= p || in.shape[2] == 1 {
			return v
		}
		for i := 0; i < len(v); i += 3 {
			g := float32(0.299*v[i]) + float32(0.587*v[i+1]) + float32(0.114*v[i+2])
			if dt == gojit.Uint8 {
				g = toU8(g)
			}
			v[i], v[i+1], v[i+2] = g, g, g
		}
		return v
	}
}

// toUnit is the f32 variant's first op: pixels / 255, in [0, 1].
func toUnit(c int) Op {
	zero, scale := make([]float32, c), make([]float32, c)
	for k := range scale {
		scale[k] = 255
	}
	return Normalize(zero, scale, gojit.Float32)
}

// TestAugmentKernelRunReference: for every image op, on RGB and grey
// images, u8 and f32: the Kernel through the loader (1 and 2 workers)
// equals Run through the loader, and Run equals the reference on every
// sample.
func TestAugmentKernelRunReference(t *testing.T) {
	path := writeAugFile(t, 45) // two batches of 20 and one of 5
	fill := [3]uint8{10, 200, 30}
	cases := []struct {
		op  Op
		ref opRef
	}{
		{Cutout(3, fill), refCutout(3, fill)},
		{Cutout(1, fill), refCutout(1, fill)},
		{RandomTranslate(2, [3]uint8{255, 0, 128}), refTranslate(2, [3]uint8{255, 0, 128})},
		{ColorJitter(0.4, 0.6, 0.8), refJitter(0.4, 0.6, 0.8)},
		{ColorJitter(0, 1.5, 0), refJitter(0, 1.5, 0)},
		{RandomGrayscale(0.5), refGrayscale(0.5)},
	}
	for _, c := range cases {
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
				name := fmt.Sprintf("%s/%s/%s", c.op.Name(), field, dt)
				ops := func(last Op) map[string][]Op { return map[string][]Op{field: append(slices.Clone(pre), last)} }
				in := loadEpoch(t, path, 1, map[string][]Op{field: pre})[field]
				goRun := loadEpoch(t, path, 1, ops(c.op))[field]
				for _, workers := range []int{1, 2} {
					k := loadEpoch(t, path, workers, ops(kernelOnly{c.op}))[field]
					sameEpoch(t, fmt.Sprintf("%s: kernel with %d workers against Run", name, workers), goRun, k, 1e-6)
				}
				// The reference, from the op's input and its Rand.
				key := opKey(augSeed, field, len(pre)+1)
				for b := range goRun.samples {
					for j, got := range goRun.samples[b] {
						var r Rand
						r.reset(key, goRun.indices[b][j], augEpoch)
						want := c.ref(&r, in.samples[b][j], dt)
						if !slices.Equal(got.shape, in.samples[b][j].shape) {
							t.Fatalf("%s: shape %v, input's %v", name, got.shape, in.samples[b][j].shape)
						}
						for e := range want {
							if d := got.v[e] - want[e]; d > 1e-6 || d < -1e-6 {
								t.Fatalf("%s: index %d element %d: Run %v, reference %v", name, goRun.indices[b][j], e, got.v[e], want[e])
							}
						}
					}
				}
			}
		}
	}
}

// TestAugmentHandChecked: the ops' plain Go code on inputs small enough
// to work out by hand.
func TestAugmentHandChecked(t *testing.T) {
	// Cutout: a 3x4 grey image, a square of 3 whose corner is (-1, 2):
	// rows 0-1, columns 2-3.
	px := slices.Repeat([]uint8{9}, 12)
	cutoutRun(px, cutout{3, [3]uint8{0, 0, 0}}, gojit.Uint8, 3, 4, 1, -1, 2)
	if want := []uint8{9, 9, 0, 0, 9, 9, 0, 0, 9, 9, 9, 9}; !slices.Equal(px, want) {
		t.Errorf("cutout: %v, want %v", px, want)
	}
	// RandomTranslate by (1, -1) of [1 2 3; 4 5 6], fill 7: out(y, x) =
	// in(y-1, x+1).
	dst := make([]uint8, 6)
	translateRun(dst, []uint8{1, 2, 3, 4, 5, 6}, [3]uint8{7, 0, 0}, gojit.Uint8, 2, 3, 1, 1, -1)
	if want := []uint8{7, 7, 7, 2, 3, 7}; !slices.Equal(dst, want) {
		t.Errorf("translate: %v, want %v", dst, want)
	}
	// ColorJitter with factors 1.5, 0.5, 0 on (100 50 200) (0 255 10):
	// brightness (150 75 255) (0 255 15), mean grey (117.945+151.395)/2 =
	// 134.67, contrast v/2+67.335, saturation 0 leaves each pixel's grey,
	// 126.3075 and 143.0325.
	out := make([]uint8, 6)
	jitterRun(out, []uint8{100, 50, 200, 0, 255, 10}, 3, [3]float32{1.5, 0.5, 0}, 255)
	if want := []uint8{126, 126, 126, 143, 143, 143}; !slices.Equal(out, want) {
		t.Errorf("jitter: %v, want %v", out, want)
	}
	// Grey: 29.9+29.35+22.8 = 82.05; 0.299+1.174+0.342 = 1.815.
	g := []uint8{100, 50, 200, 1, 2, 3, 255, 255, 255}
	greyRun(g)
	if want := []uint8{82, 82, 82, 2, 2, 2, 255, 255, 255}; !slices.Equal(g, want) {
		t.Errorf("grey: %v, want %v", g, want)
	}
	gf := []float32{0.5, 0.25, 1}
	greyRun(gf)
	if w := float32(0.299*0.5 + 0.587*0.25 + 0.114); math.Abs(float64(gf[0]-w)) > 1e-7 || gf[1] != gf[0] || gf[2] != gf[0] {
		t.Errorf("grey f32: %v, want %v", gf, w)
	}
}

// TestAugmentErrors: inputs an op cannot take are refused with the state
// it got.
func TestAugmentErrors(t *testing.T) {
	path := writeTestFile(t, 5, false) // img u8 [<=8 <=8 3], boxes f32 [<=3 4], vec u8 [8], half f64
	for _, c := range []struct {
		field string
		op    Op
		want  string
	}{
		{"vec", Cutout(3, [3]uint8{}), "want a decoded [h w c] image, got u8[8]"},
		{"boxes", RandomTranslate(1, [3]uint8{}), "want a decoded [h w c] image, got f32[<=3 <=4]"},
		{"half", ColorJitter(0.1, 0.1, 0.1), "want a decoded [h w c] image, got f64[]"},
		{"vec", RandomGrayscale(0.1), "got u8[8]"},
		{"vec", ImageMixup(0.2), "got u8[8]"},
		{"img", Cutout(0, [3]uint8{}), "square size 0"},
		{"img", RandomTranslate(-1, [3]uint8{}), "padding -1"},
		{"img", ColorJitter(-0.1, 0, 0), "want finite values >= 0"},
		{"img", ColorJitter(0, math.NaN(), 0), "want finite values >= 0"},
		{"img", RandomGrayscale(1.5), "probability 1.5 outside [0, 1]"},
		{"img", ImageMixup(0), "alpha 0: want a finite value > 0"},
		{"img", LabelSmoothing(10, 0.1), "want a decoded scalar integer label, got u8[<=8 <=8 <=3]"},
		{"half", LabelSmoothing(10, 0.1), "want an integer label (i64, i32 or u8), got f64[]"},
		{"id", LabelSmoothing(0, 0.1), "0 classes"},
		{"id", LabelSmoothing(10, 1.5), "eps 1.5 outside [0, 1]"},
		{"id", LabelMixup(-1, 10), "alpha -1"},
		{"boxes", LabelMixup(0.2, 10), "got f32[<=3 <=4]"},
	} {
		_, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{c.field: {c.op}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: %v, want an error containing %q", c.op.Name(), c.field, err, c.want)
		}
	}
	// Four channels are refused.
	if err := checkImage(State{DType: gojit.Uint8, Shape: []int{8, 8, 4}}); err == nil || !strings.Contains(err.Error(), "want 1 or 3 channels, got u8[8 8 4]") {
		t.Errorf("four channels: %v", err)
	}
}

// BenchmarkAugmentOps times each image op over a batch of 128 u8 images
// of 64x64x3: "go" runs Run sample by sample on one goroutine, "kernel"
// fills the per-sample inputs with Draw and calls the compiled Kernel
// once over the batch (on gojit's thread pool). Both include the draws.
// ns/image is the time per image; compare kernel against go in one run.
func BenchmarkAugmentOps(b *testing.B) {
	const n, h, w, c = 128, 64, 64, 3
	per := h * w * c
	in := State{DType: gojit.Uint8, Shape: []int{h, w, c}, Variable: true, Compilable: true}
	src := make([]uint8, n*per)
	for i := range src {
		src[i] = uint8(i*7 + i/per*13)
	}
	shapes := make([]int32, 0, n*3)
	for range n {
		shapes = append(shapes, h, w, c)
	}
	for _, op := range []Op{Cutout(16, [3]uint8{1, 2, 3}), RandomTranslate(8, [3]uint8{}), ColorJitter(0.4, 0.4, 0.4), RandomGrayscale(0.5)} {
		d, err := op.Declare(in, nil)
		if err != nil {
			b.Fatal(err)
		}
		key := opKey(1, "img", 1)
		b.Run(op.Name()+"/go", func(b *testing.B) {
			dst := make([]uint8, n*per)
			var s Sample
			outShape := make([]int, 3)
			for b.Loop() {
				for j := range n {
					s.In = Value{DType: gojit.Uint8, Shape: in.Shape, Data: src[j*per : (j+1)*per]}
					s.Out = Value{DType: gojit.Uint8, Shape: outShape, Data: dst[j*per : (j+1)*per]}
					s.rand.reset(key, j, 0)
					if err := d.Run(&s); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/image")
		})
		b.Run(op.Name()+"/kernel", func(b *testing.B) {
			fn, err := compileKernel(d.Kernel)
			if err != nil {
				b.Fatal(err)
			}
			x := gojit.FromUint8(src, n, h, w, c)
			sh := gojit.FromInt32(shapes, n, 3)
			params := make([]float32, n*d.Kernel.PerSample)
			pa := gojit.FromFloat32(params, n, d.Kernel.PerSample)
			out := gojit.New(gojit.Uint8, n, h, w, c)
			var s Sample
			call := func() {
				for j := range n {
					s.In = Value{DType: gojit.Uint8, Shape: in.Shape, Data: src[j*per : (j+1)*per]}
					s.rand.reset(key, j, 0)
					d.Kernel.Draw(&s, params[j*d.Kernel.PerSample:(j+1)*d.Kernel.PerSample])
				}
				if err := fn.CallInto([]*gojit.Array{out}, x, sh, pa); err != nil {
					b.Fatal(err)
				}
			}
			call() // compile outside the timing
			b.ResetTimer()
			for b.Loop() {
				call()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/image")
		})
	}
}

// TestDivFloorExact checks the float32 division flatCoords uses against
// integer division, at the quotients' edges (a = k*d-1, k*d) up to the
// bound below which it divides in float32, for small and large divisors,
// and a zero divisor (taken as 1).
func TestDivFloorExact(t *testing.T) {
	var as, ds []int32
	add := func(a, d int) {
		if a >= 0 && a < exactQuotient {
			as, ds = append(as, int32(a)), append(ds, int32(d))
		}
	}
	for _, d := range []int{1, 2, 3, 7, 192, 224 * 3, 4095, 4097, 1<<12*3 + 1, 1 << 20, exactQuotient - 1} {
		for _, k := range []int{0, 1, 2, 3, 1000, exactQuotient/d - 1, exactQuotient / d} {
			add(k*d-1, d)
			add(k*d, d)
			add(k*d+1, d)
		}
	}
	add(exactQuotient-1, 0)
	f, err := gojit.Compile(func(a, d *gojit.Tensor) *gojit.Tensor { return divFloor(a, d, exactQuotient) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromInt32(as, len(as)), gojit.FromInt32(ds, len(ds)))
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range out[0].Int32() {
		want := as[i] / max(ds[i], 1)
		if q != want {
			t.Errorf("%d/%d = %d, want %d", as[i], ds[i], q, want)
		}
	}
}
