package pipeline

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/gojit/gojit"
)

// aa64 is an independent reference of Antialias's filter, written from its
// definition rather than from the separable passes: output pixel (i, j)
// of box (x0, y0, x1, y1) of src (w by h, c channels) resized to S by S is
// the normalised sum over every source pixel (y, x) of tri((y+0.5-cy)/sy)
// * tri((x+0.5-cx)/sx) * src, with (cy, cx) the output pixel's centre
// mapped into the box, s the shrink factor along each axis (at least 1),
// tri(d) = max(0, 1-|d|), in float64; flip mirrors the output.
func aa64(src []byte, w, h, c, S int, box [4]float64, flip bool) []float64 {
	out := make([]float64, S*S*c)
	fy := math.Max(1, (box[3]-box[1])/float64(S))
	fx := math.Max(1, (box[2]-box[0])/float64(S))
	tri := func(d float64) float64 { return math.Max(0, 1-math.Abs(d)) }
	for i := range S {
		cy := box[1] + (float64(i)+0.5)*(box[3]-box[1])/float64(S)
		for j := range S {
			jj := j
			if flip {
				jj = S - 1 - j
			}
			cx := box[0] + (float64(jj)+0.5)*(box[2]-box[0])/float64(S)
			for k := range c {
				var sum, norm float64
				for y := range h {
					wy := tri((float64(y) + 0.5 - cy) / fy)
					if wy == 0 {
						continue
					}
					for x := range w {
						f := wy * tri((float64(x)+0.5-cx)/fx)
						sum += f * float64(src[(y*w+x)*c+k])
						norm += f
					}
				}
				out[(i*S+j)*c+k] = sum / norm
			}
		}
	}
	return out
}

// antialiasVectors is testdata/antialias.json, written by
// testdata/gen_antialias.py with torchvision and PIL.
type antialiasVectors struct {
	Versions                map[string]string
	Width, Height, Channels int
	Pixels                  []byte
	Cases                   []struct {
		Box         [4]int
		Size        int
		Torchvision []int
		PILBox      []int `json:"pil_box"`
	}
}

func loadAntialiasVectors(t *testing.T) *antialiasVectors {
	t.Helper()
	b, err := os.ReadFile("testdata/antialias.json")
	if err != nil {
		t.Fatal(err)
	}
	var v antialiasVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Pixels) != v.Width*v.Height*v.Channels || len(v.Cases) == 0 {
		t.Fatalf("antialias.json: %d pixels for %dx%dx%d, %d cases", len(v.Pixels), v.Width, v.Height, v.Channels, len(v.Cases))
	}
	for _, c := range v.Cases {
		if n := c.Size * c.Size * v.Channels; len(c.Torchvision) != n || len(c.PILBox) != n {
			t.Fatalf("antialias.json: case %v has %d and %d values, want %d", c.Box, len(c.Torchvision), len(c.PILBox), n)
		}
	}
	return &v
}

// crop returns box of src (w wide, c channels) as an image of its own.
func crop(src []byte, w, c int, box [4]int) []byte {
	var out []byte
	for y := box[1]; y < box[3]; y++ {
		out = append(out, src[(y*w+box[0])*c:(y*w+box[2])*c]...)
	}
	return out
}

// compareLevels returns the largest difference between got and want and
// how many differ at all.
func compareLevels[T, U byte | int | float64](got []T, want []U) (worst float64, off int) {
	for i := range got {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		worst = math.Max(worst, d)
		if d > 0 {
			off++
		}
	}
	return worst, off
}

// TestAntialiasTorchvision: Antialias's plain Go resampling (resampleAA,
// the twin of the compiled one) against torchvision 0.14's
// resized_crop(..., antialias=True) on a uint8 tensor (crop, then resize
// in float, round) and PIL 9.4's BILINEAR resize with a box, from
// testdata/antialias.json: crops of a 29x23 image shrunk 1.4x to 4x,
// enlarged, shrunk along one axis and enlarged along the other. Tolerance
// (docs/pipeline.md): equal to torchvision except where the exact value
// is a rounding tie (n + 0.5 in the float64 definition, aa64): torch
// rounds ties to even, gojit half up as PIL, so there they differ by one
// level; at most 1 level from PIL (8-bit fixed-point weights and an 8-bit
// intermediate image).
func TestAntialiasTorchvision(t *testing.T) {
	v := loadAntialiasVectors(t)
	W, H, C := v.Width, v.Height, v.Channels
	t.Logf("vectors from %v", v.Versions)
	var total, offTV, offPIL int
	for _, tc := range v.Cases {
		S := tc.Size
		cw, ch := tc.Box[2]-tc.Box[0], tc.Box[3]-tc.Box[1]
		// torchvision crops, then resizes the crop alone.
		got := make([]byte, S*S*C)
		resampleAA(got, S, crop(v.Pixels, W, C, tc.Box), cw, ch, C, [4]float32{0, 0, float32(cw), float32(ch)})
		worst, off := compareLevels(got, tc.Torchvision)
		if worst > 1 {
			t.Errorf("box %v to %d: %v levels from torchvision (%d values differ)", tc.Box, S, worst, off)
		}
		def := aa64(crop(v.Pixels, W, C, tc.Box), cw, ch, C, S, [4]float64{0, 0, float64(cw), float64(ch)}, false)
		for i, g := range got {
			tie := math.Abs(def[i]-math.Floor(def[i])-0.5) < 1e-3
			if int(g) != tc.Torchvision[i] && !tie {
				t.Errorf("box %v to %d: value %d is %d, torchvision %d, exact %.4f (not a rounding tie)", tc.Box, S, i, g, tc.Torchvision[i], def[i])
			}
		}
		offTV += off
		// PIL's box: the filter reads the image around the box.
		fbox := [4]float32{float32(tc.Box[0]), float32(tc.Box[1]), float32(tc.Box[2]), float32(tc.Box[3])}
		resampleAA(got, S, v.Pixels, W, H, C, fbox)
		worst, off = compareLevels(got, tc.PILBox)
		if worst > 1 {
			t.Errorf("box %v to %d: %v levels from PIL (%d values differ)", tc.Box, S, worst, off)
		}
		offPIL += off
		total += S * S * C
	}
	t.Logf("%d values: %d differ by a level from torchvision (all at rounding ties), %d from PIL", total, offTV, offPIL)
}

// TestAntialiasEnlargeIsBilinear: when no axis shrinks, Antialias's filter
// is bilinear interpolation, so the two resamplers agree (within a level:
// their float32 sums are ordered differently, which moves rare rounding
// ties), and when the crop is the output's size both are the identity.
func TestAntialiasEnlargeIsBilinear(t *testing.T) {
	const w, h, c = 37, 29, 3
	src := natural(3, h, w, c)
	for _, tc := range []struct {
		box [4]float32
		S   int
	}{{[4]float32{0, 0, 37, 29}, 40}, {[4]float32{3, 2, 20, 19}, 25}, {[4]float32{10, 5, 15, 10}, 9}, {[4]float32{5, 4, 21, 20}, 16}} {
		a, b := make([]byte, tc.S*tc.S*c), make([]byte, tc.S*tc.S*c)
		resampleAA(a, tc.S, src, w, h, c, tc.box)
		resampleRef(b, tc.S, src, w, h, c, tc.box, false)
		worst, off := compareLevels(a, b)
		if worst > 1 || off > len(a)/100 {
			t.Errorf("box %v to %d: antialias and bilinear differ by up to %v levels in %d values", tc.box, tc.S, worst, off)
		}
		if tc.box[2]-tc.box[0] == float32(tc.S) && off != 0 {
			t.Errorf("box %v to %d: not the identity", tc.box, tc.S)
		}
	}
}

// TestAntialiasCompiledShrink: the compiled Antialias resize, flipped,
// normalized and laid out as CHW, agrees with the filter's float64
// definition within one level, in both its forms: raw images of 40 to 72
// pixels centre-cropped to 9 (up to 8x smaller, 17 taps per axis: rows,
// then columns, through a temporary) and to 40 (4 taps per axis: gathered
// directly).
func TestAntialiasCompiledShrink(t *testing.T) {
	path := writeImageFile(t, 9)
	const seed = 3
	for _, S := range []int{9, 40} {
		if direct := aaTaps(72, S)*aaTaps(76, S) <= directTaps; direct != (S == 40) { // images of at most 72x76
			t.Fatalf("size %d: direct form %v, want the other", S, direct)
		}
		dec := CenterCropJPEG(S, 1, Antialias()).(cropDecoder)
		l, err := NewLoader(path, Config{BatchSize: 4, Seed: seed, Order: Random, Fields: map[string][]Op{
			"raw": {dec, RandomHorizontalFlip(0.5), Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW()},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if st := l.Stages(); gojit.LLVMVersion() != "" && !st[len(st)-1].Compiled {
			t.Fatalf("stages %+v, want the resize compiled", st)
		}
		checkAgainstReference(t, l, path, "raw", dec, S, seed)
		l.Close()
	}
}
