package dataset

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"path/filepath"
	"testing"

	"github.com/gojit/gojit"
	ijpeg "github.com/gojit/gojit/internal/jpeg"
)

func TestScaledSize(t *testing.T) {
	for _, c := range []struct{ w, h, max, tw, th int }{
		{100, 50, 0, 100, 50}, {100, 50, 100, 100, 50}, {100, 50, 40, 40, 20},
		{50, 100, 40, 20, 40}, {1000, 1, 10, 10, 1}, {3, 2, 2, 2, 1}, {640, 480, 256, 256, 192},
	} {
		if tw, th := scaledSize(c.w, c.h, c.max); tw != c.tw || th != c.th {
			t.Errorf("scaledSize(%d, %d, %d) = %d, %d, want %d, %d", c.w, c.h, c.max, tw, th, c.tw, c.th)
		}
	}
}

// meanAbsDiff compares two images of the same size channel by channel in
// 8-bit RGB.
func meanAbsDiff(a, b image.Image) float64 {
	var sum, n float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.RGBAModel.Convert(a.At(x, y)).(color.RGBA)
			q := color.RGBAModel.Convert(b.At(x-r.Min.X+b.Bounds().Min.X, y-r.Min.Y+b.Bounds().Min.Y)).(color.RGBA)
			for _, d := range []int{int(p.R) - int(q.R), int(p.G) - int(q.G), int(p.B) - int(q.B)} {
				sum += float64(max(d, -d))
				n++
			}
		}
	}
	return sum / n
}

// smooth returns a smooth w by h test image (JPEG-friendly), gray or RGB.
func smooth(w, h int, gray bool) image.Image {
	if gray {
		m := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				m.SetGray(x, y, color.Gray{uint8((x*255/w + y*255/h) / 2)})
			}
		}
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return m
}

// TestJPEG round-trips gray and RGB images through JPEG fields and
// compares them with the source and with Go's image/jpeg decoder on the
// stored bytes (an independent decoder of the same stream).
func TestJPEG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.ds")
	schema := Schema{Fields: []Field{Image("img", ImageOptions{Encoding: JPEG, Quality: 95})}}
	srcs := []image.Image{smooth(48, 32, false), smooth(33, 17, true), testImage("nrgba", 16, 16, 1)}
	writeFile(t, path, schema, len(srcs), func(i int) Sample { return Sample{"img": srcs[i]} })
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, src := range srcs {
		s, err := r.Sample(i)
		if err != nil {
			t.Fatal(err)
		}
		got := s["img"].(image.Image)
		raw, m, err := r.AppendRaw(nil, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantC := []int{3, 1, 3}[i] // an NRGBA source is stored as RGB in JPEG
		if m.Encoding != JPEG || m.Shape[2] != wantC || m.Shape[0] != src.Bounds().Dy() || m.Shape[1] != src.Bounds().Dx() {
			t.Errorf("image %d: meta %+v", i, m)
		}
		ref, err := jpeg.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("image %d: image/jpeg cannot decode the stored JPEG: %v", i, err)
		}
		if d := meanAbsDiff(got, ref); d > 3 { // chroma upsampling differs between decoders
			t.Errorf("image %d: decoder differs from image/jpeg by %.2f per channel", i, d)
		}
		if i < 2 {
			if d := meanAbsDiff(got, src); d > 3 {
				t.Errorf("image %d: differs from the source by %.2f per channel", i, d)
			}
		}
	}
	if _, _, _, err := ijpeg.Header([]byte("not a jpeg")); err == nil {
		t.Error("jpeg.Header accepted garbage")
	}
	pix := make([]byte, 48*32*3)
	raw, _, _ := r.AppendRaw(nil, 0, 0)
	if err := ijpeg.Decode(pix, raw[:len(raw)/2], 48, 32, 3); err == nil {
		t.Errorf("jpeg.Decode of a truncated JPEG (%s) gave no error", ijpeg.Backend)
	}
}

// TestMaxRes downscales a large image, keeping the aspect ratio, and
// leaves a small one alone.
func TestMaxRes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.ds")
	schema := Schema{Fields: []Field{Image("img", ImageOptions{MaxRes: 32})}}
	srcs := []image.Image{smooth(128, 64, false), smooth(20, 30, true), testImage("nrgba", 40, 80, 2)}
	writeFile(t, path, schema, len(srcs), func(i int) Sample { return Sample{"img": srcs[i]} })
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := [][3]int{{16, 32, 3}, {30, 20, 1}, {32, 16, 4}}
	for i := range srcs {
		_, m, err := r.AppendRaw(nil, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		if [3]int(m.Shape) != want[i] {
			t.Errorf("image %d: shape %v, want %v", i, m.Shape, want[i])
		}
	}
	// The downscaled gradient is still the gradient.
	s, _ := r.Sample(0)
	if d := meanAbsDiff(s["img"].(image.Image), smooth(32, 16, false)); d > 6 {
		t.Errorf("downscaled image differs from the gradient by %.2f", d)
	}
	s, _ = r.Sample(1)
	if d := meanAbsDiff(s["img"].(image.Image), srcs[1]); d != 0 {
		t.Errorf("a small image was changed (%.2f)", d)
	}
}

// TestAppendRawNoAlloc checks the loader's path: with a buffer of enough
// capacity and a reused FieldMeta, reading allocates nothing.
func TestAppendRawNoAlloc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.ds")
	writeFile(t, path, testSchema(), 20, testSample, WithPageSize(MinPageSize))
	for _, opts := range [][]OpenOption{nil, {WithPread(1 << 20)}} {
		r, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 4096)
		m := FieldMeta{Shape: make([]int, 0, MaxDims)}
		read := func() {
			for i := range r.Len() {
				for f := range r.schema.Fields {
					if _, err := r.AppendRawInto(buf[:0], i, f, &m); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		read()
		if n := testing.AllocsPerRun(5, read); n != 0 {
			t.Errorf("%d allocations per pass", int(n))
		}
		raw, m2, err := r.AppendRaw(nil, 3, 4)
		if err != nil || m2.Size != 24 || len(raw) != 24 || !equalInts(m2.Shape, []int{2, 3}) {
			t.Errorf("AppendRaw(3, emb) = %d bytes, %+v, %v", len(raw), m2, err)
		}
		if got := gojit.FromFloat32(nil).DType(); got != gojit.Float32 {
			t.Fatal(got)
		}
		r.Close()
	}
}

// TestAppendPixels converts images of every standard type, whole and as
// sub-images not at the origin, to 1, 3 and 4 channels, and compares the
// result with a per-pixel conversion through the color models.
func TestAppendPixels(t *testing.T) {
	const w, h = 7, 5
	r := image.Rect(0, 0, w, h)
	imgs := map[string]image.Image{
		"rgba":  testImage("rgba", w, h, 3),
		"nrgba": testImage("nrgba", w, h, 4),
		"gray":  testImage("gray", w, h, 5),
	}
	g16 := image.NewGray16(r)
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	cmyk := image.NewCMYK(r)
	pal := image.NewPaletted(r, color.Palette{color.RGBA{10, 20, 30, 255}, color.NRGBA{200, 100, 50, 128}, color.Gray{77}})
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 11)
	}
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 9)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(100+i*5), uint8(200-i*7)
	}
	for i := range cmyk.Pix {
		cmyk.Pix[i] = uint8(i * 17)
	}
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 3)
	}
	imgs["gray16"], imgs["ycbcr"], imgs["cmyk"], imgs["paletted"] = g16, ycc, cmyk, pal
	type subImager interface {
		SubImage(image.Rectangle) image.Image
	}
	for name, img := range imgs {
		sub := img.(subImager).SubImage(image.Rect(2, 1, 6, 5))
		for _, src := range []image.Image{img, sub} {
			for _, c := range []int{1, 3, 4} {
				got, gw, gh, err := appendPixels([]byte{42}, src, c, 0)
				if err != nil {
					t.Fatal(err)
				}
				want := wantPixels(src, c)
				if got[0] != 42 || gw != src.Bounds().Dx() || gh != src.Bounds().Dy() || !bytes.Equal(got[1:], want) {
					t.Errorf("%s %v to %d channels:\n got %v\nwant %v", name, src.Bounds(), c, got[1:], want)
				}
			}
		}
	}
	if got := sourceChannels(imgs["paletted"]); got != 4 {
		t.Errorf("a paletted image with a translucent colour keeps %d channels, want 4", got)
	}
	if got := sourceChannels(imgs["gray16"]); got != 1 {
		t.Errorf("gray16 keeps %d channels, want 1", got)
	}
	if got := sourceChannels(imgs["ycbcr"]); got != 3 {
		t.Errorf("ycbcr keeps %d channels, want 3", got)
	}
}

// TestRGBAToRGB checks the word-at-a-time conversion against the byte
// loop for every length up to a few steps past the 8-pixel blocks, with
// and without SSSE3.
func TestRGBAToRGB(t *testing.T) {
	defer func(h bool) { haveSSSE3 = h }(haveSSSE3)
	for _, simd := range []bool{haveSSSE3, false} {
		haveSSSE3 = simd
		testRGBAToRGB(t)
	}
}

func testRGBAToRGB(t *testing.T) {
	for n := 0; n <= 40; n++ {
		src := make([]byte, 4*n)
		for i := range src {
			src[i] = byte(i*7 + 3)
		}
		want := make([]byte, 3*n)
		for p := range n {
			copy(want[3*p:3*p+3], src[4*p:4*p+3])
		}
		got := make([]byte, 3*n)
		rgbaToRGB(got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d pixels (SSSE3 %v): got %x, want %x", n, haveSSSE3, got, want)
		}
	}
}

func BenchmarkRGBAToRGB(b *testing.B) {
	src := make([]byte, 4*64*64)
	dst := make([]byte, 3*64*64)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		rgbaToRGB(dst, src)
	}
}

// TestJPEGData: a JPEG stored as JPEGData keeps its bytes exactly, records
// its size, decodes like the original, and a damaged header or a foreign
// field is refused with ErrSample.
func TestJPEGData(t *testing.T) {
	pix := make([]byte, 24*17*3)
	for i := range pix {
		pix[i] = uint8(i * 13)
	}
	enc, err := ijpeg.Encode(nil, pix, 24, 17, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "j.gojit")
	schema := Schema{Fields: []Field{
		Image("jpg", ImageOptions{Encoding: JPEG}),
		Image("gray", ImageOptions{Encoding: JPEG, Channels: 1}),
	}}
	w, err := Create(path, schema, WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	one := func(s Sample) func(func(int, Sample) bool) {
		return func(yield func(int, Sample) bool) { yield(0, s) }
	}
	if err := w.Write(context.Background(), one(Sample{"jpg": JPEGData(enc), "gray": JPEGData(enc)})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	bad, err := Create(filepath.Join(t.TempDir(), "bad.gojit"), schema, WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = bad.Write(context.Background(), one(Sample{"jpg": JPEGData(enc[:40]), "gray": JPEGData(enc)}))
	if cerr := bad.Close(); err == nil {
		err = cerr
	}
	if !errors.Is(err, ErrSample) {
		t.Errorf("truncated header: %v, want ErrSample", err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	raw, m, err := r.AppendRaw(nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, enc) || m.Shape[0] != 17 || m.Shape[1] != 24 || m.Shape[2] != 3 {
		t.Fatalf("stored %d bytes (equal: %v) of shape %v, want the %d bytes of a [17 24 3] JPEG", len(raw), bytes.Equal(raw, enc), m.Shape, len(enc))
	}
	got := make([]byte, 17*24*3)
	if err := DecodeImageInto(got, raw, m); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 17*24*3)
	if err := ijpeg.Decode(want, enc, 24, 17, 3); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("a stored JPEG decodes differently from the original")
	}
	if _, m, _ := r.AppendRaw(nil, 0, 1); m.Shape[2] != 1 {
		t.Fatalf("gray field records %v, want 1 channel", m.Shape)
	}
}
