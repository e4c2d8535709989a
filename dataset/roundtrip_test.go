package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"iter"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// testSchema has every field kind.
func testSchema() Schema {
	return Schema{Fields: []Field{
		Int("label"),
		Float("weight"),
		Bytes("raw"),
		JSON("meta"),
		NDArray("emb", gojit.Float32, 2, 3),
		NDArrayVar("boxes", gojit.Int32, 5, 4),
		NDArray("mask", gojit.Bool, 3),
		NDArray("f64", gojit.Float64, 2),
		NDArray("i64", gojit.Int64),
		NDArray("u8", gojit.Uint8, 4),
		Image("rgb", ImageOptions{Channels: 3}),
		Image("gray", ImageOptions{Channels: 1}),
		Image("rgba", ImageOptions{Channels: 4}),
		Image("keep", ImageOptions{}),
	}}
}

// testImage returns a deterministic w by h image of the given kind.
func testImage(kind string, w, h, seed int) image.Image {
	r := image.Rect(0, 0, w, h)
	switch kind {
	case "gray":
		m := image.NewGray(r)
		for i := range m.Pix {
			m.Pix[i] = uint8(i*7 + seed)
		}
		return m
	case "nrgba":
		m := image.NewNRGBA(r)
		for i := range m.Pix {
			m.Pix[i] = uint8(i*13 + seed)
		}
		return m
	}
	m := image.NewRGBA(r)
	for i := range m.Pix {
		if i%4 == 3 {
			m.Pix[i] = 255
		} else {
			m.Pix[i] = uint8(i*5 + seed*3)
		}
	}
	return m
}

func testSample(i int) Sample {
	nb := i % 6 // 0..5 boxes: 5 is over the maximum, so callers use i%6 < 5... see below
	nb = min(nb, 5)
	boxes := make([]int32, nb*4)
	for j := range boxes {
		boxes[j] = int32(i*100 + j)
	}
	keep := []string{"gray", "rgba", "nrgba"}[i%3]
	return Sample{
		"label":  int64(i),
		"weight": float64(i) / 3,
		"raw":    []byte(fmt.Sprintf("sample-%d", i)),
		"meta":   map[string]any{"id": float64(i), "tags": []any{"a", "b"}},
		"emb":    gojit.FromFloat32([]float32{float32(i), 1, 2, 3, 4, float32(-i)}, 2, 3),
		"boxes":  gojit.FromInt32(boxes, nb, 4),
		"mask":   gojit.FromBool([]bool{i%2 == 0, true, false}, 3),
		"f64":    gojit.FromFloat64([]float64{math.Pi * float64(i), math.Inf(1)}, 2),
		"i64":    gojit.FromInt64([]int64{int64(i) << 40}, []int{}...),
		"u8":     gojit.FromUint8([]uint8{1, 2, 3, uint8(i)}, 4),
		"rgb":    testImage("rgba", 5+i%3, 4, i),
		"gray":   testImage("gray", 3, 6+i%2, i),
		"rgba":   testImage("nrgba", 4, 4, i),
		"keep":   testImage(keep, 2, 3, i),
	}
}

func samplesOf(n int, f func(int) Sample) iter.Seq2[int, Sample] {
	return func(yield func(int, Sample) bool) {
		for i := range n {
			if !yield(i, f(i)) {
				return
			}
		}
	}
}

func writeFile(t testing.TB, path string, schema Schema, n int, f func(int) Sample, opts ...WriteOption) {
	t.Helper()
	w, err := Create(path, schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), samplesOf(n, f)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantPixels converts img to c channels with a plain per-pixel loop, the
// reference for appendPixels.
func wantPixels(img image.Image, c int) []byte {
	b := img.Bounds()
	var out []byte
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			switch c {
			case 1:
				out = append(out, color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
			case 3:
				p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
				out = append(out, p.R, p.G, p.B)
			case 4:
				p := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				out = append(out, p.R, p.G, p.B, p.A)
			}
		}
	}
	return out
}

func checkSample(t *testing.T, got Sample, i int) {
	t.Helper()
	want := testSample(i)
	if got["label"] != int64(i) || got["weight"] != float64(i)/3 {
		t.Errorf("sample %d: label %v weight %v", i, got["label"], got["weight"])
	}
	if !slices.Equal(got["raw"].([]byte), want["raw"].([]byte)) {
		t.Errorf("sample %d: raw %q", i, got["raw"])
	}
	if !reflect.DeepEqual(got["meta"], want["meta"]) {
		t.Errorf("sample %d: meta %v, want %v", i, got["meta"], want["meta"])
	}
	for _, name := range []string{"emb", "boxes", "mask", "f64", "i64", "u8"} {
		g, w := got[name].(*gojit.Array), want[name].(*gojit.Array)
		if g.DType() != w.DType() || !slices.Equal(g.Shape(), w.Shape()) || !reflect.DeepEqual(g.Data(), w.Data()) {
			t.Errorf("sample %d: %s = %v, want %v", i, name, g, w)
		}
	}
	for _, c := range []struct {
		name string
		ch   int
	}{{"rgb", 3}, {"gray", 1}, {"rgba", 4}, {"keep", []int{1, 4, 4}[i%3]}} {
		g := got[c.name].(image.Image)
		w := want[c.name].(image.Image)
		if g.Bounds().Size() != w.Bounds().Size() {
			t.Errorf("sample %d: %s is %v, want %v", i, c.name, g.Bounds(), w.Bounds())
			continue
		}
		if gp, wp := wantPixels(g, c.ch), wantPixels(w, c.ch); !slices.Equal(gp, wp) {
			t.Errorf("sample %d: %s pixels differ", i, c.name)
		}
	}
}

func TestRoundTripEveryKind(t *testing.T) {
	for _, mode := range []string{"mmap", "pread"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "all.ds")
			const n = 40
			writeFile(t, path, testSchema(), n, testSample, WithWorkers(3), WithPageSize(MinPageSize))
			var opts []OpenOption
			if mode == "pread" {
				opts = append(opts, WithPread(2*MinPageSize))
			}
			r, err := Open(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Len() != n {
				t.Fatalf("Len = %d, want %d", r.Len(), n)
			}
			if !reflect.DeepEqual(r.Schema(), cloneSchema(testSchema())) {
				t.Errorf("schema = %+v", r.Schema())
			}
			for i := n - 1; i >= 0; i-- { // backwards, to exercise the cache
				s, err := r.Sample(i)
				if err != nil {
					t.Fatal(err)
				}
				checkSample(t, s, i)
			}
			if err := r.Verify(context.Background(), 10); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var _ = json.Valid
var _ = errors.Is
var _ = os.Remove

// TestMaxima compares each field's stored maxima with the largest values
// read back sample by sample.
func TestMaxima(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.ds")
	const n = 23
	writeFile(t, path, testSchema(), n, testSample, WithPageSize(MinPageSize))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for f, fd := range r.Schema().Fields {
		var shape []int
		size := 0
		for i := range n {
			raw, m, err := r.AppendRaw(nil, i, f)
			if err != nil {
				t.Fatal(err)
			}
			size = max(size, len(raw))
			s := m.Shape
			if fd.Kind == KindBytes || fd.Kind == KindJSON {
				s = []int{len(raw)}
			}
			if shape == nil {
				shape = make([]int, len(s))
			}
			for j, d := range s {
				shape[j] = max(shape[j], d)
			}
		}
		got := r.Maxima(f)
		switch fd.Kind {
		case KindInt, KindFloat:
			if got.Shape != nil || got.Size != 0 {
				t.Errorf("field %q: Maxima %+v, want zero", fd.Name, got)
			}
		case KindNDArray:
			if !slices.Equal(got.Shape, fd.Shape) || got.Size < size {
				t.Errorf("field %q: Maxima %+v, want the declared shape %v and size >= %d", fd.Name, got, fd.Shape, size)
			}
		default:
			if !slices.Equal(got.Shape, shape) || got.Size != size {
				t.Errorf("field %q: Maxima %+v, the samples have shape %v and size %d", fd.Name, got, shape, size)
			}
		}
	}
}
