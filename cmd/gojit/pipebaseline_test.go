package main

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/jpeg"
)

// ramp is a linear image: channel k of pixel (x, y) is 40 + 3x + 2y + 10k
// (at most 40+3*39+2*29+20 = 235 for the sizes used here). Bilinear
// interpolation reproduces a linear function exactly wherever it does
// not clamp, which makes it an independent reference for resizing.
func ramp(w, h int) []byte {
	pix := make([]byte, w*h*3)
	for y := range h {
		for x := range w {
			for k := range 3 {
				pix[(y*w+x)*3+k] = uint8(rampAt(float64(x), float64(y), k))
			}
		}
	}
	return pix
}

func rampAt(x, y float64, k int) float64 { return 40 + 3*x + 2*y + 10*float64(k) }

// wantResized is the ramp's value at output pixel (x, y) of a crop box
// resized to size by size, flipped or not: the linear function at the
// sample point, which is clamped to the box.
func wantResized(box image.Rectangle, size, x, y, k int, flip bool) float64 {
	if flip {
		x = size - 1 - x
	}
	sx := (float64(x)+0.5)*float64(box.Dx())/float64(size) - 0.5
	sy := (float64(y)+0.5)*float64(box.Dy())/float64(size) - 0.5
	sx = math.Min(math.Max(sx, 0), float64(box.Dx()-1))
	sy = math.Min(math.Max(sy, 0), float64(box.Dy()-1))
	return math.Round(rampAt(sx+float64(box.Min.X), sy+float64(box.Min.Y), k))
}

func TestResizeBilinearRamp(t *testing.T) {
	for _, c := range []struct{ sw, sh, dw, dh int }{{8, 6, 4, 3}, {4, 4, 9, 7}, {10, 3, 10, 3}, {5, 7, 1, 1}} {
		got := resizeBilinear(ramp(c.sw, c.sh), c.sw, c.sh, c.dw, c.dh)
		for y := range c.dh {
			for x := range c.dw {
				for k := range 3 {
					sx := math.Min(math.Max((float64(x)+0.5)*float64(c.sw)/float64(c.dw)-0.5, 0), float64(c.sw-1))
					sy := math.Min(math.Max((float64(y)+0.5)*float64(c.sh)/float64(c.dh)-0.5, 0), float64(c.sh-1))
					want := math.Round(rampAt(sx, sy, k))
					if g := float64(got[(y*c.dw+x)*3+k]); math.Abs(g-want) > 0.5 {
						t.Fatalf("%dx%d -> %dx%d: pixel (%d,%d,%d) = %v, want %v", c.sw, c.sh, c.dw, c.dh, x, y, k, g, want)
					}
				}
			}
		}
	}
}

func TestCropFlipCHW(t *testing.T) {
	pix := ramp(5, 4)
	crop := cropRGB(pix, 5, image.Rect(1, 2, 4, 4))
	for y := range 2 {
		for x := range 3 {
			if got, want := crop[(y*3+x)*3+1], uint8(rampAt(float64(x+1), float64(y+2), 1)); got != want {
				t.Fatalf("crop (%d,%d) = %d, want %d", x, y, got, want)
			}
		}
	}
	row := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}
	flipRGB(row, 3, 1)
	if want := []byte{7, 8, 9, 4, 5, 6, 1, 2, 3}; string(row) != string(want) {
		t.Errorf("flip: %v, want %v", row, want)
	}
	// 2x1 HWC (a0 b0 c0, a1 b1 c1) -> CHW (a0 a1, b0 b1, c0 c1).
	if got := toCHW([]float32{1, 2, 3, 4, 5, 6}, 2, 1); got[0] != 1 || got[1] != 4 || got[2] != 2 || got[3] != 5 || got[4] != 3 || got[5] != 6 {
		t.Errorf("toCHW: %v", got)
	}
	f := normalizeHWC([]byte{255, 0, 124}, imagenetMean, imagenetStd)
	for k, v := range []float64{255, 0, 124} {
		if want := (v - float64(imagenetMean[k])) / float64(imagenetStd[k]); math.Abs(float64(f[k])-want) > 1e-5 {
			t.Errorf("normalize channel %d: %v, want %v", k, f[k], want)
		}
	}
}

func TestCenterBox(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		ratio float64
		want  image.Rectangle
	}{
		{256, 320, 224.0 / 256, image.Rect(16, 48, 240, 272)},
		{300, 256, 224.0 / 256, image.Rect(38, 16, 262, 240)},
		{1, 1, 0.5, image.Rect(0, 0, 1, 1)},
	} {
		if got := centerBox(c.w, c.h, c.ratio); got != c.want {
			t.Errorf("centerBox(%d, %d, %v) = %v, want %v", c.w, c.h, c.ratio, got, c.want)
		}
	}
}

// Random crops lie in the image, and either meet the scale and ratio
// bounds (up to rounding) or are the fallback centre crop.
func TestRRCBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	scale, ratio := [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}
	for i := range 2000 {
		w, h := 50+rng.IntN(300), 50+rng.IntN(300)
		b := rrcBox(rng, w, h, scale, ratio)
		if b.Empty() || !b.In(image.Rect(0, 0, w, h)) {
			t.Fatalf("case %d: box %v outside %dx%d", i, b, w, h)
		}
		frac := float64(b.Dx()*b.Dy()) / float64(w*h)
		ar := float64(b.Dx()) / float64(b.Dy())
		inBounds := frac > scale[0]*0.8 && frac <= scale[1] && ar > ratio[0]*0.9 && ar < ratio[1]*1.1
		fallback := b.Dx() == w || b.Dy() == h
		if !inBounds && !fallback {
			t.Fatalf("case %d: box %v of %dx%d: area fraction %.3f, ratio %.3f", i, b, w, h, frac, ar)
		}
	}
	// A ratio no crop of a square image can have within scale: ten tries
	// fail and the fallback keeps the whole height at the closest ratio.
	b := rrcBox(rng, 100, 100, [2]float64{0.99, 1}, [2]float64{2, 3})
	if b != image.Rect(0, 25, 100, 75) {
		t.Errorf("fallback box %v, want (0,25)-(100,75)", b)
	}
}

// The whole baseline against the ramp formula: raw pixels exactly, and a
// JPEG of the ramp within its coding error.
func TestBaselineImage(t *testing.T) {
	const size = 16
	check := func(name string, out []float32, box image.Rectangle, flip bool, tol float64) {
		t.Helper()
		if len(out) != 3*size*size {
			t.Fatalf("%s: %d values", name, len(out))
		}
		worst := 0.0
		for k := range 3 {
			for y := range size {
				for x := range size {
					want := (wantResized(box, size, x, y, k, flip) - float64(imagenetMean[k])) / float64(imagenetStd[k])
					worst = math.Max(worst, math.Abs(float64(out[(k*size+y)*size+x])-want))
				}
			}
		}
		if worst > tol {
			t.Errorf("%s: largest difference %.4f, want at most %.4f", name, worst, tol)
		}
	}
	raw := ramp(size, size)
	meta := dataset.FieldMeta{Shape: []int{size, size, 3}}
	var st stageTimes
	for _, flip := range []float64{0, 1} {
		c := baselineConfig{kind: baseRaw, size: size, scale: [2]float64{1, 1}, ratio: [2]float64{1, 1}, flip: flip} // the whole image
		out, err := c.baselineImage(raw, meta, rand.New(rand.NewPCG(1, 1)), &st)
		if err != nil {
			t.Fatal(err)
		}
		check("raw", out, image.Rect(0, 0, size, size), flip == 1, 1e-5)
	}

	const w, h = 40, 30
	data, err := jpeg.Encode(nil, ramp(w, h), w, h, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	c := baselineConfig{kind: baseCenter, size: size, cropRatio: 0.5}
	out, err := c.baselineImage(data, dataset.FieldMeta{Shape: []int{h, w, 3}}, nil, &st)
	if err != nil {
		t.Fatal(err)
	}
	// Four levels of JPEG error (4:2:0 chroma on a colour ramp) in units
	// of the smallest std.
	check("jpeg centre crop", out, image.Rect(12, 7, 27, 22), false, 4/57.12)

	// The random crop: the box the same stream draws, flipped as drawn.
	rc := baselineConfig{kind: baseRRC, size: size, scale: [2]float64{0.08, 1}, ratio: [2]float64{3.0 / 4, 4.0 / 3}, flip: 0.5}
	for seed := range uint64(6) {
		out, err := rc.baselineImage(data, dataset.FieldMeta{Shape: []int{h, w, 3}}, rand.New(rand.NewPCG(seed, 0)), &st)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		box := rrcBox(rng, w, h, rc.scale, rc.ratio)
		check("jpeg random crop", out, box, rng.Float64() < rc.flip, 4/57.12)
	}
	for s, d := range st {
		if d <= 0 {
			t.Errorf("step %s has no time", baselineStageNames[s])
		}
	}

	if _, err := c.baselineImage(data[:len(data)/2], dataset.FieldMeta{Shape: []int{h, w, 3}}, nil, &st); err == nil {
		t.Error("a truncated JPEG decoded without error")
	}
	if _, err := (baselineConfig{kind: baseRaw, size: 8, scale: [2]float64{1, 1}, ratio: [2]float64{1, 1}}).baselineImage(raw[:10], meta, rand.New(rand.NewPCG(1, 1)), &st); err == nil {
		t.Error("raw bytes of the wrong length gave no error")
	}
}

// TestResizeAntialiasRamp checks the antialiased baseline on the ramp:
// shrinking by a whole factor, each output pixel's taps lie symmetrically
// about its centre, so away from the edges (where the taps are cut) the
// normalized triangle reproduces the linear function at the centre;
// enlarging, the triangle is plain bilinear interpolation.
func TestResizeAntialiasRamp(t *testing.T) {
	for _, f := range []int{2, 3} {
		dw, dh := 8, 6
		sw, sh := dw*f, dh*f
		got := resizeAntialias(ramp(sw, sh), sw, sh, dw, dh)
		for y := 1; y < dh-1; y++ {
			for x := 1; x < dw-1; x++ {
				for k := range 3 {
					c := func(i int) float64 { return (float64(i)+0.5)*float64(f) - 0.5 }
					want := math.Round(rampAt(c(x), c(y), k))
					if g := float64(got[(y*dw+x)*3+k]); math.Abs(g-want) > 0.5 {
						t.Fatalf("shrink %d: pixel (%d,%d,%d) = %v, want %v", f, x, y, k, g, want)
					}
				}
			}
		}
	}
	src := ramp(4, 5)
	aa, bl := resizeAntialias(src, 4, 5, 9, 11), resizeBilinear(src, 4, 5, 9, 11)
	for i := range aa {
		if d := int(aa[i]) - int(bl[i]); d < -1 || d > 1 {
			t.Fatalf("enlarging: element %d = %d, bilinear %d", i, aa[i], bl[i])
		}
	}
}
