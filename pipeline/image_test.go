package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"image"
	stdjpeg "image/jpeg"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	ijpeg "github.com/gojit/gojit/internal/jpeg"
)

// natural returns test image i's pixels, h by w by c: smooth gradients,
// a few edges and some noise, as photographs have (a flat or a random
// image would hide resampling errors or exaggerate JPEG's).
func natural(i, h, w, c int) []byte {
	pix := make([]byte, h*w*c)
	for y := range h {
		for x := range w {
			for k := range c {
				v := 120 + 60*math.Sin(float64(x)/7+float64(i)) + 40*math.Cos(float64(y)/5+float64(k))
				if (x/9+y/11+i)%3 == 0 {
					v += 35 // blocks with sharp edges
				}
				v += float64((x*7919+y*104729+k*31+i*17)%23) - 11 // noise
				pix[(y*w+x)*c+k] = uint8(min(max(v, 0), 255))
			}
		}
	}
	return pix
}

// naturalSize is test image i's size: around 56 pixels, varied.
func naturalSize(i int) (h, w int) { return 40 + (i*13)%33, 40 + (i*29)%37 }

// writeImageFile writes n natural images as a JPEG field ("jpg", quality
// 90), a raw field ("raw") and a gray JPEG field ("gray"), plus "label".
func writeImageFile(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "images.gojit")
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("jpg", dataset.ImageOptions{Encoding: dataset.JPEG, Channels: 3, Quality: 90}),
		dataset.Image("raw", dataset.ImageOptions{Channels: 3}),
		dataset.Image("gray", dataset.ImageOptions{Encoding: dataset.JPEG, Channels: 1, Quality: 90}),
		dataset.Int("label"),
	}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			h, wd := naturalSize(i)
			rgb := natural(i, h, wd, 3)
			g := image.NewGray(image.Rect(0, 0, wd, h))
			copy(g.Pix, natural(i, h, wd, 1))
			if !yield(i, dataset.Sample{"jpg": rgbImage(rgb, wd, h), "raw": rgbImage(rgb, wd, h), "gray": g, "label": int64(i % 10)}) {
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

func rgbImage(pix []byte, w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		copy(m.Pix[4*i:], pix[3*i:3*i+3])
		m.Pix[4*i+3] = 255
	}
	return m
}

// bilinear64 is an independent reference of the crop and resize: box (x0,
// y0, x1, y1) of src (w by h, c channels) resized to S by S in float64.
func bilinear64(src []byte, w, h, c, S int, box [4]float64, flip bool) []float64 {
	out := make([]float64, S*S*c)
	clamp := func(v, hi float64) float64 { return math.Min(math.Max(v, 0), hi) }
	for i := range S {
		sy := clamp(box[1]+(float64(i)+0.5)*(box[3]-box[1])/float64(S)-0.5, float64(h-1))
		y0 := int(sy)
		y1, ty := min(y0+1, h-1), sy-float64(y0)
		for j := range S {
			jj := j
			if flip {
				jj = S - 1 - j
			}
			sx := clamp(box[0]+(float64(jj)+0.5)*(box[2]-box[0])/float64(S)-0.5, float64(w-1))
			x0 := int(sx)
			x1, tx := min(x0+1, w-1), sx-float64(x0)
			for k := range c {
				p := func(y, x int) float64 { return float64(src[(y*w+x)*c+k]) }
				top := p(y0, x0)*(1-tx) + p(y0, x1)*tx
				bot := p(y1, x0)*(1-tx) + p(y1, x1)*tx
				out[(i*S+j)*c+k] = top*(1-ty) + bot*ty
			}
		}
	}
	return out
}

var imagenetMean, imagenetStd = []float32{123.675, 116.28, 103.53}, []float32{58.395, 57.12, 57.375}

// TestCropPipelines: the ImageNet training and validation pipelines
// (RandomResizedCropJPEG or CenterCropJPEG -> RandomHorizontalFlip ->
// Normalize -> ToCHW), compiled, on JPEG and raw fields, agree with an
// independent float64 reference (whole-image decode, the op's crop box and
// flip draws replayed, bilinear resize or, with Antialias, the filter's
// definition aa64, rounding to 8 bits, normalize, CHW) within one 8-bit
// level, and with the plain Go ops (NoCompile); the batches are
// bit-identical with 1, 2 and 3 workers.
func TestCropPipelines(t *testing.T) {
	path := writeImageFile(t, 21)
	const S, seed = 24, 5
	ops := map[string]func() Op{
		"rrc": func() Op { return RandomResizedCropJPEG(S, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}) },
		"cc":  func() Op { return CenterCropJPEG(S, 0.875) },
		"rrc-aa": func() Op {
			return RandomResizedCropJPEG(S, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}, Antialias())
		},
		"cc-aa": func() Op { return CenterCropJPEG(S, 0.875, Antialias()) },
	}
	for _, name := range []string{"rrc", "cc", "rrc-aa", "cc-aa"} {
		for _, field := range []string{"jpg", "raw"} {
			t.Run(name+"/"+field, func(t *testing.T) {
				dec := ops[name]().(cropDecoder)
				fields := func() map[string][]Op {
					return map[string][]Op{field: {dec, RandomHorizontalFlip(0.5), Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW()}, "label": nil}
				}
				var ref []byte
				for _, workers := range []int{1, 2, 3} {
					l, err := NewLoader(path, Config{BatchSize: 8, Workers: workers, Seed: seed, Order: Random, Fields: fields()})
					if err != nil {
						t.Fatal(err)
					}
					if st := l.Stages(); gojit.LLVMVersion() != "" && (len(st) != 3 || !st[2].Compiled || st[2].Field != field) {
						t.Fatalf("stages %+v, want the label's and the decode's plain Go stages, then one compiled stage", st)
					}
					got, _ := epochBytes(t, l, 2, field)
					if ref == nil {
						ref = got
						checkAgainstReference(t, l, path, field, dec, S, seed)
					} else if string(got) != string(ref) {
						t.Fatalf("%d workers: batches differ from 1 worker's", workers)
					}
					l.Close()
				}
				if field == "jpg" {
					return // the plain Go ops decode whole images: checked above
				}
				// On raw pixels the plain Go ops give the same within a level.
				g, err := NewLoader(path, Config{BatchSize: 8, Workers: 2, Seed: seed, Order: Random, Fields: fields(), NoCompile: true})
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				goBytes, _ := epochBytes(t, g, 2, field)
				a, b := view[float32](ref), view[float32](goBytes)
				if len(a) != len(b) {
					t.Fatalf("compiled %d values, plain Go %d", len(a), len(b))
				}
				off := 0
				for i := range a {
					if d := math.Abs(float64(a[i] - b[i])); d > 1/57.12+1e-4 {
						t.Fatalf("value %d: compiled %v, plain Go %v", i, a[i], b[i])
					} else if d > 1e-4 {
						off++
					}
				}
				if off > len(a)/100 {
					t.Errorf("%d of %d values differ by a level between compiled and plain Go", off, len(a))
				}
			})
		}
	}
}

// checkAgainstReference compares epoch 2's batches of l with bilinear64
// of a whole-image decode.
func checkAgainstReference(t *testing.T, l *Loader, path, field string, dec cropDecoder, S int, seed int64) {
	t.Helper()
	r, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fi, _ := r.Schema().Index(field)
	worst, meanAll := 0.0, 0.0
	collect(t, l.Epoch(context.Background(), 2), func(b *Batch) {
		out := b.Field(field).Float32()
		if got := b.Field(field).Shape(); !slices.Equal(got, []int{b.Len(), 3, S, S}) {
			t.Fatalf("batch shape %v, want [%d 3 %d %d]", got, b.Len(), S, S)
		}
		for j, idx := range b.Indices() {
			raw, m, err := r.AppendRaw(nil, idx, fi)
			if err != nil {
				t.Fatal(err)
			}
			h, w := m.Shape[0], m.Shape[1]
			img := raw
			if m.Encoding == dataset.JPEG {
				img = make([]byte, h*w*3)
				if err := ijpeg.Decode(img, raw, w, h, 3); err != nil {
					t.Fatal(err)
				}
			}
			var rd Rand
			rd.reset(opKey(seed, field, 0), idx, 2)
			x, y, cw, ch := dec.box(&rd, w, h)
			rd.reset(opKey(seed, field, 1), idx, 2)
			flip := rd.Float32() < 0.5
			fbox := [4]float64{float64(x), float64(y), float64(x + cw), float64(y + ch)}
			want := bilinear64(img, w, h, 3, S, fbox, flip)
			if dec.antialias {
				want = aa64(img, w, h, 3, S, fbox, flip)
			}
			// Raw pixels: within a level (float32 against float64). A JPEG's
			// crop is decoded alone, which changes the pixels at its edges a
			// little (chroma upsampling there sees the crop's edge, not the
			// image's neighbours), and at a reduced DCT scale when the crop
			// is at least twice the output (an 8x8 block's low frequencies
			// instead of bilinear samples of the whole).
			maxTol, meanTol := 1.01, 0.5
			if m.Encoding == dataset.JPEG {
				maxTol, meanTol = 12, 1.0
				if ijpeg.CropScale(image.Rect(x, y, x+cw, y+ch), S, S) < 8 {
					maxTol, meanTol = 40, 4
				}
			}
			sum := 0.0
			for i := range S {
				for jj := range S {
					for c := range 3 {
						v := math.Floor(want[(i*S+jj)*3+c] + 0.5)
						g := float64(out[((j*3+c)*S+i)*S+jj])*float64(imagenetStd[c]) + float64(imagenetMean[c])
						d := math.Abs(g - v)
						worst = math.Max(worst, d)
						sum += d
						if d > maxTol {
							t.Fatalf("sample %d (batch %d position %d) pixel (%d,%d) channel %d: %.3f, reference %.3f (box %d,%d %dx%d of %dx%d, flip %v)",
								idx, b.Number(), j, i, jj, c, g, v, x, y, cw, ch, w, h, flip)
						}
					}
				}
			}
			if mean := sum / float64(S*S*3); mean > meanTol {
				t.Fatalf("sample %d: mean difference %.2f levels from the reference (box %d,%d %dx%d of %dx%d)", idx, mean, x, y, cw, ch, w, h)
			}
			meanAll = math.Max(meanAll, sum/float64(S*S*3))
		}
	})
	t.Logf("largest difference from the float64 reference: %.3f levels; largest mean over an image %.3f", worst, meanAll)
}

// TestCropBox: the crop boxes follow torchvision's rules — a random box
// lies inside the image, its area fraction and aspect ratio lie in the
// ranges (up to rounding to whole pixels), impossible ranges fall back to
// a central crop, and a centre crop is the known square.
func TestCropBox(t *testing.T) {
	d := RandomResizedCropJPEG(224, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}).(cropDecoder)
	var r Rand
	for _, sz := range [][2]int{{256, 256}, {320, 240}, {500, 90}, {37, 41}} {
		w, h := sz[0], sz[1]
		for i := range 2000 {
			r.reset(opKey(1, "x", 0), i, 0)
			x, y, cw, ch := d.box(&r, w, h)
			if x < 0 || y < 0 || cw < 1 || ch < 1 || x+cw > w || y+ch > h {
				t.Fatalf("%dx%d: box %d,%d %dx%d outside the image", w, h, x, y, cw, ch)
			}
			if cw == w && ch == h || x == (w-cw)/2 && y == (h-ch)/2 {
				continue // possibly the fallback
			}
			area := float64(cw*ch) / float64(w*h)
			aspect := float64(cw) / float64(ch)
			slack := 1.0/float64(cw) + 1.0/float64(ch) // rounding to whole pixels
			if area < 0.08*(1-2*slack) || area > 1+2*slack || aspect < 0.75*(1-2*slack) || aspect > 4.0/3*(1+2*slack) {
				t.Fatalf("%dx%d: box %dx%d has area fraction %.3f and aspect %.3f", w, h, cw, ch, area, aspect)
			}
		}
	}
	// A 1000x10 image: no box of aspect <= 4/3 covers 8% of it in ten
	// tries, so the fallback crops the centre at the largest ratio.
	r.reset(opKey(1, "x", 0), 0, 0)
	if x, y, cw, ch := d.box(&r, 1000, 10); cw != 13 || ch != 10 || x != 493 || y != 0 {
		t.Errorf("fallback on 1000x10: %d,%d %dx%d, want 493,0 13x10", x, y, cw, ch)
	}
	c := CenterCropJPEG(224, 0.875).(cropDecoder)
	if x, y, cw, ch := c.box(nil, 300, 200); x != 62 || y != 12 || cw != 175 || ch != 175 {
		t.Errorf("centre crop of 300x200: %d,%d %dx%d, want 62,12 175x175", x, y, cw, ch)
	}
}

// TestResizeIdentity: a centre crop of ratio 1 of an S by S raw image,
// resized to S, is the image itself, exactly (a known answer for the
// compiled resize's coordinate mapping and rounding).
func TestResizeIdentity(t *testing.T) {
	const S = 16
	path := filepath.Join(t.TempDir(), "id.gojit")
	w, err := dataset.Create(path, dataset.Schema{Fields: []dataset.Field{dataset.Image("img", dataset.ImageOptions{Channels: 3})}}, dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range 5 {
			if !yield(i, dataset.Sample{"img": rgbImage(natural(i, S, S, 3), S, S)}) {
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
	l, err := NewLoader(path, Config{BatchSize: 5, Fields: map[string][]Op{"img": {CenterCropJPEG(S, 1)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		got := b.Field("img").Uint8()
		for j, i := range b.Indices() {
			if want := natural(i, S, S, 3); string(got[j*S*S*3:(j+1)*S*S*3]) != string(want) {
				t.Fatalf("image %d changed by an identity resize", i)
			}
		}
	})
}

// TestGrayCrop: a grayscale JPEG field crops to one channel; asking for
// three channels of it (a field declared with 3) repeats the grey.
func TestGrayCrop(t *testing.T) {
	path := writeImageFile(t, 6)
	l, err := NewLoader(path, Config{BatchSize: 6, Fields: map[string][]Op{"gray": {CenterCropJPEG(20, 1)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, _ := l.State("gray"); !slices.Equal(st.Shape, []int{20, 20, 1}) {
		t.Fatalf("gray state %s, want [20 20 1]", st)
	}
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		if got := b.Field("gray").Shape(); !slices.Equal(got, []int{6, 20, 20, 1}) {
			t.Fatalf("batch %v", got)
		}
	})
}

// TestCorruptJPEG: a damaged JPEG gives an error naming the file, the
// sample, the field and the op, compiled or not.
func TestCorruptJPEG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.gojit")
	pix := natural(0, 48, 48, 3)
	good, err := ijpeg.Encode(nil, pix, 48, 48, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte{}, good...)
	for i := len(bad) / 2; i < len(bad)-2; i++ {
		bad[i] = 0xFF // markers everywhere in the entropy-coded data
	}
	w, err := dataset.Create(path, dataset.Schema{Fields: []dataset.Field{dataset.Image("img", dataset.ImageOptions{Encoding: dataset.JPEG, Channels: 3})}}, dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range 4 {
			v := good
			if i == 2 {
				v = bad
			}
			if !yield(i, dataset.Sample{"img": dataset.JPEGData(v)}) {
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
	for _, noCompile := range []bool{false, true} {
		for _, op := range []Op{RandomResizedCropJPEG(32, [2]float64{0.5, 1}, [2]float64{0.75, 1.33}), CenterCropJPEG(32, 0.875)} {
			l, err := NewLoader(path, Config{BatchSize: 4, NoCompile: noCompile, Fields: map[string][]Op{"img": {op}}})
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
			want := fmt.Sprintf("sample 2, field \"img\", op 0 (%s)", op.Name())
			if got == nil || !strings.Contains(got.Error(), want) || !strings.Contains(got.Error(), path) {
				t.Errorf("noCompile %v, %s: %v, want an error naming the file and %q", noCompile, op.Name(), got, want)
			}
		}
	}
}

// TestCompiledSteadyStateAllocations: with a compiled stage (the crop
// pipeline, bilinear and antialiased, with a random TensorOp fused in,
// and label smoothing), a batch
// allocates nothing in the steady state either: the stage's arguments are
// made once per slot.
func TestCompiledSteadyStateAllocations(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("without LLVM (no cgo) the stages run in gojit's interpreter, which allocates")
	}
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random")
	}
	path := writeImageFile(t, 120)
	// A random TensorOp: its key-only part is drawn per sample (Draw).
	brightness := TensorOp(func(x, key *gojit.Tensor) *gojit.Tensor {
		return x.Cast(gojit.Float32).Mul(gojit.Uniform(key, gojit.Float32, 3).Add(gojit.Scalar(0.5)))
	})
	for _, c := range []struct {
		opts  []CropOption
		extra []Op
	}{{nil, nil}, {[]CropOption{Antialias()}, nil}, {nil, []Op{brightness}}} {
		steadyAllocations(t, path, c.opts, c.extra)
	}
}

func steadyAllocations(t *testing.T, path string, opts []CropOption, extra []Op) {
	t.Helper()
	mallocs := func(batch int) float64 {
		img := []Op{RandomResizedCropJPEG(16, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}, opts...), RandomHorizontalFlip(0.5)}
		img = append(append(img, extra...), Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW())
		l, err := NewLoader(path, Config{BatchSize: batch, Workers: 2, BatchesAhead: 1, Order: Random, Fields: map[string][]Op{
			"jpg":   img,
			"label": {IntDecoder(), LabelSmoothing(10, 0.1)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		collect(t, l.Epoch(context.Background(), 0), func(*Batch) {}) // compile, warm up
		return testing.AllocsPerRun(3, func() {
			for _, err := range l.Epoch(context.Background(), 1) {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	few, many := mallocs(60), mallocs(2) // 2 and 60 batches
	perBatch := (many - few) / 58
	t.Logf("antialias %v, %d extra ops: allocations per epoch: %.0f with 2 batches, %.0f with 60: %.3f per batch", opts != nil, len(extra), few, many, perBatch)
	if perBatch > 0.05 {
		t.Fatalf("antialias %v, %d extra ops: %.3f allocations per batch in the steady state (%.0f per epoch of 2 batches, %.0f of 60)", opts != nil, len(extra), perBatch, few, many)
	}
	// Nor per sample: an epoch (120 samples) allocates a fixed handful
	// (its iterator and channels).
	if few > 30 {
		t.Fatalf("antialias %v, %d extra ops: %.0f allocations per epoch of 120 samples: some op allocates per sample", opts != nil, len(extra), few)
	}
}

// TestCompiledMemoryFlat: over 20 epochs of the crop pipeline (JPEG
// decoding of the crop's region, a compiled stage, label smoothing), the
// resident set stays flat after the first epochs: slots, decoders and
// kernels are made once.
func TestCompiledMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("20 epochs")
	}
	if gojit.LLVMVersion() == "" {
		t.Skip("without LLVM (no cgo) the interpreter allocates per batch, so the heap, and the resident set, float with the collector")
	}
	path := writeImageFile(t, 160)
	l, err := NewLoader(path, Config{BatchSize: 32, Workers: 2, Order: Random, Fields: map[string][]Op{
		"jpg":   {RandomResizedCropJPEG(32, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}), RandomHorizontalFlip(0.5), Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW()},
		"label": {IntDecoder(), LabelSmoothing(10, 0.1)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := epochRSS(t, l, 20)
	t.Logf("RSS after epoch 2: %.1f MiB, epoch 20: %.1f MiB", float64(r[1])/(1<<20), float64(r[19])/(1<<20))
	if r[19]-r[1] > 1<<20 {
		t.Errorf("RSS grew by %.1f MiB from epoch 2 to epoch 20", float64(r[19]-r[1])/(1<<20))
	}
}

// TestCMYKCrop: CMYK and YCCK (Adobe) JPEGs stored as they are crop to RGB
// pixels that agree with Go's image/jpeg decoding of the same file (its
// CMYK to RGB conversion), resized with the same box, within a few levels
// on average (the two decoders' IDCT and upsampling differ).
func TestCMYKCrop(t *testing.T) {
	for _, name := range []string{"cmyk.jpg", "ycck.jpg", "rgb422.jpg", "rgb420p.jpg"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "internal", "jpeg", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			img, err := stdjpeg.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			w, h := b.Dx(), b.Dy()
			ref := make([]byte, w*h*3)
			for y := range h {
				for x := range w {
					r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
					ref[(y*w+x)*3], ref[(y*w+x)*3+1], ref[(y*w+x)*3+2] = uint8(r>>8), uint8(g>>8), uint8(bl>>8)
				}
			}
			path := filepath.Join(t.TempDir(), "c.gojit")
			wr, err := dataset.Create(path, dataset.Schema{Fields: []dataset.Field{dataset.Image("img", dataset.ImageOptions{Encoding: dataset.JPEG, Channels: 3})}}, dataset.WithProgress(false))
			if err != nil {
				t.Fatal(err)
			}
			err = wr.Write(context.Background(), func(yield func(int, dataset.Sample) bool) { yield(0, dataset.Sample{"img": dataset.JPEGData(data)}) })
			if err == nil {
				err = wr.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			const S = 32
			l, err := NewLoader(path, Config{BatchSize: 1, Fields: map[string][]Op{"img": {CenterCropJPEG(S, 1)}}})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			dec := CenterCropJPEG(S, 1).(cropDecoder)
			x, y, cw, ch := dec.box(nil, w, h)
			want := bilinear64(ref, w, h, 3, S, [4]float64{float64(x), float64(y), float64(x + cw), float64(y + ch)}, false)
			collect(t, l.Epoch(context.Background(), 0), func(bt *Batch) {
				got := bt.Field("img").Uint8()
				sum := 0.0
				for i, v := range got {
					sum += math.Abs(float64(v) - want[i])
				}
				// A crop of side >= 2S is decoded at a reduced DCT scale:
				// more smoothing than bilinear samples of the whole.
				if mean := sum / float64(len(got)); mean > 8 {
					t.Errorf("mean difference %.2f levels from image/jpeg's decode", mean)
				} else {
					t.Logf("%s (%dx%d): mean difference %.2f levels", name, w, h, mean)
				}
			})
		})
	}
}
