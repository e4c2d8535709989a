package jpeg

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	stdjpeg "image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"strings"
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
	for _, s := range []struct{ w, h, c, perRow int }{{203, 157, 3, 4}, {61, 97, 3, 2}, {203, 157, 1, 5}, {256, 64, 3, 1}} {
		data, err := EncodeWith(nil, natural(s.w, s.h, s.c, uint64(s.h)), s.w, s.h, s.c, EncodeOptions{Quality: 90, RestartsPerRow: s.perRow})
		if err != nil {
			t.Fatal(err)
		}
		l := LayoutYCbCr
		if s.c == 1 {
			l = LayoutGray
		}
		out = append(out, testJPEG{fmt.Sprintf("%s%dx%d-restart%d", l, s.h, s.w, s.perRow), data, l})
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

// roomFor returns a buffer size that holds a crop of src at any scale.
func roomFor(src image.Rectangle, c int) int {
	return (src.Dx() + 70) * (src.Dy() + 2) * c
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
					dst := make([]byte, roomFor(src, c))
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

// imageJPEGScaled is the independent reference of TestDecodeCropVsImageJPEG:
// Go's image/jpeg decodes the whole stream (CMYK and YCCK through
// image.CMYK) and boxScale shrinks it to n/8.
func imageJPEGScaled(t *testing.T, data []byte, n, c int) ([]byte, int) {
	t.Helper()
	img, err := stdjpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	full := make([]byte, w*h*c)
	imagePixels(full, img, w, h, c)
	sw, sh := (w*n+7)/8, (h*n+7)/8
	out := make([]byte, sw*sh*c)
	boxScale(out, full, w, h, c, n, image.Rect(0, 0, sw, sh))
	return out, sw
}

// TestDecodeCropVsImageJPEG compares DecodeCrop with Go's image/jpeg
// decoding the whole image, then averaging areas for the scale: an
// independent decoder, including CMYK and YCCK files with Adobe's
// inverted values. At full scale the two differ by chroma upsampling and
// rounding only; below it, by the scaled inverse DCT against a box filter.
func TestDecodeCropVsImageJPEG(t *testing.T) {
	for _, j := range testJPEGs(t) {
		info, err := Inspect(j.data)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{1, 3} {
			for _, n := range []int{8, 5, 4, 1} {
				ref, rw := imageJPEGScaled(t, j.data, n, c)
				for _, src := range cropRects(info.Width, info.Height)[:4] {
					dst := make([]byte, roomFor(src, c))
					cr, err := decodeCrop(dst, j.data, src, n, c, defaultTuning)
					if err != nil {
						t.Fatalf("%s c=%d n=%d %v: %v", j.name, c, n, src, err)
					}
					bx, by := bufferOrigin(cr, src)
					mean, worst := diffStats(dst, cr, bx, by, ref, rw, c)
					tol := 3.0 // chroma upsampling differs (as in TestRoundTrip)
					if n < 8 {
						tol = 5 // a scaled inverse DCT is not a box filter
					}
					if mean > tol {
						t.Errorf("%s c=%d n=%d %v: differs from image/jpeg by %.2f on average (%d at most), want <= %.1f", j.name, c, n, src, mean, worst, tol)
					}
				}
			}
		}
	}
}

// TestInspect checks each test file's layout, in both builds, and that the
// marker scanner of the image/jpeg build agrees.
func TestInspect(t *testing.T) {
	for _, j := range testJPEGs(t) {
		info, err := Inspect(j.data)
		if err != nil {
			t.Fatal(err)
		}
		w, h, _, err := Header(j.data)
		if err != nil || info.Width != w || info.Height != h || info.Layout != j.layout {
			t.Errorf("%s: Inspect = %+v, %v; want %dx%d %s", j.name, info, err, h, w, j.layout)
		}
		if l := scanLayout(j.data); l != j.layout {
			t.Errorf("%s: scanLayout = %s, want %s", j.name, l, j.layout)
		}
	}
	if _, err := Inspect([]byte("not a jpeg")); err == nil {
		t.Error("Inspect of garbage: no error")
	}
}

// TestCropScale checks the scale choice and that DecodeCrop's rectangle
// is never smaller than the output it is for.
func TestCropScale(t *testing.T) {
	for _, tc := range []struct {
		src        image.Rectangle
		outW, outH int
		want       int
	}{
		{image.Rect(0, 0, 256, 256), 224, 224, 8}, // 7/8 would do, but is slower than a full decode
		{image.Rect(0, 0, 256, 256), 100, 100, 4},
		{image.Rect(0, 0, 256, 256), 32, 32, 1},
		{image.Rect(0, 0, 256, 256), 33, 32, 2},
		{image.Rect(0, 0, 256, 128), 64, 64, 4},
		{image.Rect(10, 10, 100, 100), 224, 224, 8}, // enlarged: full scale
		{image.Rect(0, 0, 256, 256), 0, 224, 8},
	} {
		if n := CropScale(tc.src, tc.outW, tc.outH); n != tc.want {
			t.Errorf("CropScale(%v, %d, %d) = %d, want %d", tc.src, tc.outW, tc.outH, n, tc.want)
		}
	}
	plain, err := Encode(nil, natural(300, 260, 3, 1), 300, 260, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	restart, err := EncodeWith(nil, natural(300, 260, 3, 1), 300, 260, 3, EncodeOptions{Quality: 90, RestartsPerRow: 19})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		data := plain
		if i%2 == 1 {
			data = restart
		}
		x0, y0 := r.IntN(290), r.IntN(250)
		src := image.Rect(x0, y0, x0+1+r.IntN(300-x0), y0+1+r.IntN(260-y0))
		ow, oh := 1+r.IntN(100), 1+r.IntN(100)
		dst := make([]byte, MaxCropLen(src, ow, oh, 3))
		for k := range dst {
			dst[k] = 0xA5
		}
		cr, err := DecodeCrop(dst, data, src, ow, oh, 3)
		if err != nil {
			t.Fatalf("%v -> %dx%d: %v", src, oh, ow, err)
		}
		for k := cr.W * cr.H * 3; k < len(dst); k++ {
			if dst[k] != 0xA5 {
				t.Fatalf("%v -> %dx%d: crop %+v wrote byte %d of dst", src, oh, ow, cr, k)
			}
		}
		if cr.Scale < 8 && (cr.X1-cr.X0 < float64(ow) || cr.Y1-cr.Y0 < float64(oh)) {
			t.Fatalf("%v -> %dx%d: crop %+v is smaller than the output", src, oh, ow, cr)
		}
		if cr.Scale != CropScale(src, ow, oh) || cr.W*cr.H*3 > len(dst) {
			t.Fatalf("%v -> %dx%d: crop %+v, scale %d, bound %d bytes", src, oh, ow, cr, CropScale(src, ow, oh), len(dst))
		}
	}
}

// TestDecodeCropErrors: bad arguments and bad streams are errors saying
// what is wrong; damaged streams never crash or write past dst.
func TestDecodeCropErrors(t *testing.T) {
	const iw, ih = 64, 48
	data, err := Encode(nil, natural(iw, ih, 3, 2), iw, ih, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	all := image.Rect(0, 0, iw, ih)
	big := make([]byte, iw*ih*3)
	crop := func(dst, data []byte, src image.Rectangle, c int) error {
		_, err := DecodeCrop(dst, data, src, 0, 0, c)
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"outside", crop(big, data, image.Rect(60, 0, 70, 10), 3), "outside the 48x64 image"},
		{"negative", crop(big, data, image.Rect(-1, 0, 10, 10), 3), "outside"},
		{"empty region", crop(big, data, image.Rect(5, 5, 5, 10), 3), "empty"},
		{"short dst", crop(make([]byte, 100), data, all, 3), "needs 9216"},
		{"nil dst", crop(nil, data, all, 1), "needs 3072"},
		{"2 channels", crop(big, data, all, 2), "channels"},
		{"empty data", crop(big, nil, all, 3), "empty"},
		{"garbage", crop(big, []byte("not a jpeg"), all, 3), "jpeg"},
		{"truncated", crop(big, data[:len(data)/2], all, 3), "jpeg"},
		{"no SOS", crop(big, data[:300], all, 3), "jpeg"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, tc.err, tc.want)
		}
	}
	if err := crop(make([]byte, 10), data, all, 3); !errors.Is(err, ErrDstTooSmall) {
		t.Errorf("short dst: %v does not wrap ErrDstTooSmall", err)
	}
	// Damaged copies: an error or pixels, never a crash, never a write
	// past the bytes the crop reports.
	restart, err := EncodeWith(nil, natural(iw, ih, 3, 2), iw, ih, 3, EncodeOptions{Quality: 90, RestartsPerRow: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 600 {
		bad := bytes.Clone(data)
		if i%2 == 1 {
			bad = bytes.Clone(restart)
		}
		for range 1 + r.IntN(4) {
			bad[r.IntN(len(bad))] = byte(r.IntN(256))
		}
		if i%3 == 0 {
			bad = bad[:r.IntN(len(bad))]
		}
		dst := make([]byte, len(big)+64)
		for k := range dst {
			dst[k] = 0xA5
		}
		cr, err := DecodeCrop(dst[:len(big)], bad, image.Rect(r.IntN(20), r.IntN(20), 40+r.IntN(24), 30+r.IntN(18)), r.IntN(40), r.IntN(40), 1+2*r.IntN(2))
		if err == nil && cr.W*cr.H*3 > len(big) {
			t.Fatalf("damaged stream %d: crop %+v larger than dst", i, cr)
		}
		for _, v := range dst[len(big):] {
			if v != 0xA5 {
				t.Fatalf("damaged stream %d: wrote past dst", i)
			}
		}
	}
}

// TestDecodeCropConcurrent decodes crops from several goroutines at once
// (the decompressor pool); run with -race.
func TestDecodeCropConcurrent(t *testing.T) {
	data, err := Encode(nil, natural(120, 90, 3, 9), 120, 90, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	src := image.Rect(13, 7, 101, 77)
	want := make([]byte, MaxCropLen(src, 40, 30, 3))
	if _, err := DecodeCrop(want, data, src, 40, 30, 3); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got := make([]byte, len(want))
			for range 50 {
				if _, err := DecodeCrop(got, data, src, 40, 30, 3); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, want) {
					errs <- errDiffer
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzDecodeCrop feeds arbitrary streams and rectangles: DecodeCrop must
// return an error or a crop that fits dst, never crash.
func FuzzDecodeCrop(f *testing.F) {
	data, err := Encode(nil, natural(40, 30, 3, 1), 40, 30, 3, 80)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, 3, 2, 30, 25, 10, 10)
	restart, err := EncodeWith(nil, natural(40, 30, 3, 1), 40, 30, 3, EncodeOptions{Quality: 80, RestartsPerRow: 3})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(restart, 17, 9, 30, 25, 4, 4)
	f.Fuzz(func(t *testing.T, data []byte, x0, y0, x1, y1, ow, oh int) {
		if len(data) == 0 || x1-x0 > 4096 || y1-y0 > 4096 {
			return
		}
		dst := make([]byte, 64*64*3)
		cr, err := DecodeCrop(dst, data, image.Rect(x0, y0, x1, y1), ow, oh, 3)
		if err == nil && cr.W*cr.H*3 > len(dst) {
			t.Fatalf("crop %+v larger than dst", cr)
		}
	})
}
