package jpeg

import (
	"bytes"
	"errors"
	"image/color"
	stdjpeg "image/jpeg"
	"math"
	"strings"
	"testing"
)

// smooth returns w*h*c pixels of a smooth pattern (JPEG keeps it within
// a few levels).
func smooth(w, h, c int) []byte {
	pix := make([]byte, w*h*c)
	for y := range h {
		for x := range w {
			for k := range c {
				v := 128 + 60*math.Sin(float64(x)/9+float64(k)) + 50*math.Cos(float64(y)/7)
				pix[(y*w+x)*c+k] = uint8(v)
			}
		}
	}
	return pix
}

func meanAbsDiff(a, b []byte) float64 {
	s := 0
	for i := range a {
		d := int(a[i]) - int(b[i])
		s += max(d, -d)
	}
	return float64(s) / float64(len(a))
}

// TestRoundTrip encodes gray and RGB pixels, checks Header, decodes them
// and compares with the source and with Go's image/jpeg decoding the same
// stream (an independent decoder).
func TestRoundTrip(t *testing.T) {
	for _, c := range []int{1, 3} {
		const w, h = 45, 30
		src := smooth(w, h, c)
		data, err := Encode([]byte("prefix"), src, w, h, c, 95)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("prefix")) {
			t.Fatal("Encode did not append to dst")
		}
		data = data[len("prefix"):]
		gw, gh, gray, err := Header(data)
		if err != nil || gw != w || gh != h || gray != (c == 1) {
			t.Errorf("c=%d: Header = %d, %d, %v, %v; want %d, %d, %v", c, gw, gh, gray, err, w, h, c == 1)
		}
		got := make([]byte, w*h*c)
		if err := Decode(got, data, w, h, c); err != nil {
			t.Fatal(err)
		}
		if d := meanAbsDiff(got, src); d > 2 {
			t.Errorf("c=%d: decoded pixels differ from the source by %.2f per channel", c, d)
		}
		img, err := stdjpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("c=%d: image/jpeg cannot decode the stream: %v", c, err)
		}
		ref := make([]byte, 0, w*h*c)
		for y := range h {
			for x := range w {
				if c == 1 {
					ref = append(ref, color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y)
				} else {
					r, g, b, _ := img.At(x, y).RGBA()
					ref = append(ref, uint8(r>>8), uint8(g>>8), uint8(b>>8))
				}
			}
		}
		if d := meanAbsDiff(got, ref); d > 3 { // chroma upsampling differs
			t.Errorf("c=%d: %s differs from image/jpeg by %.2f per channel", c, Backend, d)
		}
	}
}

// TestGrayAsRGB decodes a gray JPEG into three channels: each pixel's
// three values are equal and match the one-channel decode.
func TestGrayAsRGB(t *testing.T) {
	const w, h = 20, 11
	data, err := Encode(nil, smooth(w, h, 1), w, h, 1, 90)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]byte, w*h)
	rgb := make([]byte, w*h*3)
	if err := Decode(g, data, w, h, 1); err != nil {
		t.Fatal(err)
	}
	if err := Decode(rgb, data, w, h, 3); err != nil {
		t.Fatal(err)
	}
	for i, v := range g {
		if p := rgb[3*i : 3*i+3]; int(p[0])-int(v) > 1 || int(v)-int(p[0]) > 1 || p[0] != p[1] || p[1] != p[2] {
			t.Fatalf("pixel %d: gray %d, RGB %v", i, v, p)
		}
	}
}

// TestErrors feeds bad arguments and bad streams; each must be an error
// saying what is wrong, never a crash or a write past dst.
func TestErrors(t *testing.T) {
	const w, h = 16, 8
	data, err := Encode(nil, smooth(w, h, 3), w, h, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		err     error
		wantSub string
	}{
		{"Encode short pixels", func() error { _, err := Encode(nil, make([]byte, 5), w, h, 3, 90); return err }(), "bytes for"},
		{"Decode wrong size", Decode(make([]byte, 8*8*3), data, 8, 8, 3), "image is 8x16"},
		{"Decode short dst", Decode(make([]byte, 10), data, w, h, 3), "destination"},
		{"Decode 2 channels", Decode(make([]byte, w*h*2), data, w, h, 2), "destination"},
		{"Decode truncated", Decode(make([]byte, w*h*3), data[:len(data)/2], w, h, 3), "jpeg"},
		{"Decode empty", Decode(make([]byte, w*h*3), nil, w, h, 3), "jpeg"},
		{"Decode garbage", Decode(make([]byte, w*h*3), []byte("not a jpeg at all"), w, h, 3), "jpeg"},
		{"Header garbage", func() error { _, _, _, err := Header([]byte("nope")); return err }(), "jpeg"},
		{"Header empty", func() error { _, _, _, err := Header(nil); return err }(), "empty"},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.Contains(c.err.Error(), c.wantSub) {
			t.Errorf("%s: error %q does not mention %q", c.name, c.err, c.wantSub)
		}
	}
}

// TestConcurrent decodes from several goroutines at once (the handle
// pools of the libjpeg-turbo build); run with -race.
func TestConcurrent(t *testing.T) {
	const w, h = 32, 24
	src := smooth(w, h, 3)
	data, err := Encode(nil, src, w, h, 3, 90)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, w*h*3)
	if err := Decode(want, data, w, h, 3); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			got := make([]byte, w*h*3)
			for range 50 {
				if err := Decode(got, data, w, h, 3); err != nil {
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
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

var errDiffer = errors.New("concurrent decode differs from a single one")
