package jpeg

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// natural returns w*h*c pixels that look like a photograph to a JPEG
// coder: smooth gradients, a sine texture, discs and boxes with hard
// edges, and a little noise (neither flat colour nor pure noise).
func natural(w, h, c int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	type disc struct{ x, y, r2 float64 }
	var discs [4]disc
	for i := range discs {
		rad := float64(w) * (0.05 + 0.15*r.Float64())
		discs[i] = disc{float64(w) * r.Float64(), float64(h) * r.Float64(), rad * rad}
	}
	fx, fy := 5+10*r.Float64(), 5+10*r.Float64()
	pix := make([]byte, w*h*c)
	for y := range h {
		for x := range w {
			in := 0
			for _, d := range discs {
				if dx, dy := float64(x)-d.x, float64(y)-d.y; dx*dx+dy*dy < d.r2 {
					in++
				}
			}
			for k := range c {
				v := 30 + 140*float64(x)/float64(w)*float64(k+1)/3 + 60*float64(y)/float64(h)
				v += 25 * math.Sin(float64(x)/fx+float64(k)) * math.Cos(float64(y)/fy)
				if in%2 == 1 {
					v = 255 - v
				}
				v += 6 * r.NormFloat64()
				pix[(y*w+x)*c+k] = uint8(min(max(v, 0), 255))
			}
		}
	}
	return pix
}

// testJPEG is a stream DecodeCrop's tests decode.
type testJPEG struct {
	name   string
	data   []byte
	layout Layout
}

// testJPEGs returns 4:2:0 RGB and gray JPEGs of odd sizes made with
// Encode, and the 4:4:4, 4:2:2, progressive, CMYK and YCCK files of
// testdata (written by testdata/gen.c).
func testJPEGs(t testing.TB) []testJPEG {
	t.Helper()
	var out []testJPEG
	for _, s := range []struct{ w, h, c int }{{203, 157, 3}, {61, 97, 3}, {203, 157, 1}, {33, 9, 1}} {
		data, err := Encode(nil, natural(s.w, s.h, s.c, uint64(s.w)), s.w, s.h, s.c, 92)
		if err != nil {
			t.Fatal(err)
		}
		l := LayoutYCbCr
		if s.c == 1 {
			l = LayoutGray
		}
		out = append(out, testJPEG{fmt.Sprintf("%s%dx%d", l, s.h, s.w), data, l})
	}
	for _, f := range []struct {
		file   string
		layout Layout
	}{{"rgb444", LayoutYCbCr}, {"rgb422", LayoutYCbCr}, {"rgb420p", LayoutYCbCr}, {"cmyk", LayoutCMYK}, {"ycck", LayoutYCCK}} {
		data, err := os.ReadFile("testdata/" + f.file + ".jpg")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testJPEG{f.file, data, f.layout})
	}
	return out
}

// cropRects returns rectangles of a w by h image: the whole, the middle,
// ones touching each edge and corner, thin strips and a single pixel.
func cropRects(w, h int) []image.Rectangle {
	return []image.Rectangle{
		image.Rect(0, 0, w, h),
		image.Rect(w/5, h/4, w-w/6, h-h/5),
		image.Rect(0, 0, w/2+3, h/3+1),
		image.Rect(w/3, h/2, w, h),
		image.Rect(w-5, 0, w, h),
		image.Rect(0, h-3, w, h),
		image.Rect(w/2, h/2, w/2+1, h/2+1),
		image.Rect(17%w, 11%h, min(w, 17%w+29), min(h, 11%h+23)),
	}
}

// bufferOrigin returns the scaled-image pixel at the decoded buffer's
// top-left corner.
func bufferOrigin(cr Crop, src image.Rectangle) (bx, by int) {
	s := float64(cr.Scale) / 8
	return int(math.Round(float64(src.Min.X)*s - cr.X0)), int(math.Round(float64(src.Min.Y)*s - cr.Y0))
}

// diffStats compares the columns of the crop's rectangle in buffer got
// (at bx, by of the scaled image) with the scaled image ref (rw wide):
// mean and largest absolute difference per channel. The buffer's columns
// outside the rectangle are not compared: at the buffer's edges the chroma
// upsampling sees the buffer's edge as the image's.
func diffStats(got []byte, cr Crop, bx, by int, ref []byte, rw, c int) (mean float64, worst int) {
	s := 0
	i0, i1 := int(cr.X0), int(math.Ceil(cr.X1))
	for j := range cr.H {
		for i := i0 * c; i < i1*c; i++ {
			d := int(got[j*cr.W*c+i]) - int(ref[(by+j)*rw*c+bx*c+i])
			d = max(d, -d)
			s += d
			worst = max(worst, d)
		}
	}
	return float64(s) / float64((i1-i0)*cr.H*c), worst
}

// TestDecodeCropVsScaled decodes crops at every scale n/8 and compares
// each with the same pixels of a whole-image decode at that scale through
// TurboJPEG's tjDecompress2 (libjpeg-turbo build; the image/jpeg build's
// whole-image decode is its own crop's source, so there the test checks
// placement and sizes).
func TestDecodeCropVsScaled(t *testing.T) {
	for _, j := range testJPEGs(t) {
		if j.layout == LayoutCMYK || j.layout == LayoutYCCK {
			continue // TestDecodeCropCMYK
		}
		info, err := Inspect(j.data)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{1, 3} {
			for n := 1; n <= 8; n++ {
				ref, rw, rh, err := decodeScaled(j.data, n, c)
				if err != nil {
					t.Fatal(err)
				}
				for _, src := range cropRects(info.Width, info.Height) {
					dst := make([]byte, MaxCropLen(src, 0, 0, c)) // the full scale bounds the others
					cr, err := decodeCrop(dst, j.data, src, n, c, defaultTuning)
					if err != nil {
						t.Fatalf("%s c=%d n=%d %v: %v", j.name, c, n, src, err)
					}
					bx, by := bufferOrigin(cr, src)
					if bx < 0 || by < 0 || bx+cr.W > rw || by+cr.H > rh || cr.X0 < 0 || cr.Y0 < 0 || cr.X1 > float64(cr.W) || cr.Y1 > float64(cr.H) || cr.Scale != n {
						t.Fatalf("%s c=%d n=%d %v: crop %+v does not fit a %dx%d scaled image", j.name, c, n, src, cr, rh, rw)
					}
					mean, worst := diffStats(dst, cr, bx, by, ref, rw, c)
					if mean > cropTolMean || worst > cropTolMax {
						t.Errorf("%s c=%d n=%d %v: crop %+v differs from the whole decode by %.3f on average, %d at most", j.name, c, n, src, cr, mean, worst)
					}
				}
			}
		}
	}
}
