package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// writeImages writes an RGB PNG, a grayscale PNG and a GIF into dir and a
// labels CSV naming them, and returns the CSV's path.
func writeImages(t *testing.T, dir string) string {
	t.Helper()
	rgb := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for i := range rgb.Pix {
		rgb.Pix[i] = uint8(i * 3)
		if i%4 == 3 {
			rgb.Pix[i] = 255
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 10, 30))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i)
	}
	pal := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.RGBA{200, 10, 10, 255}})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 2)
	}
	save := func(name string, enc func(*os.File) error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := enc(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	save("a.png", func(f *os.File) error { return png.Encode(f, rgb) })
	save("g.png", func(f *os.File) error { return png.Encode(f, gray) })
	save("p.gif", func(f *os.File) error { return gif.Encode(f, pal, nil) })
	csv := filepath.Join(dir, "labels.csv")
	if err := os.WriteFile(csv, []byte("file,label\na.png,3\ng.png,7\np.gif,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return csv
}

func TestDatasetFromImages(t *testing.T) {
	dir := t.TempDir()
	csv := writeImages(t, dir)
	out := filepath.Join(dir, "img.ds")
	code, stdout, stderr := gojitRun(t, "dataset", "write", "--from-images", dir, "--labels", csv, "--out", out, "--max-res", "16", "--quality", "95", "--workers", "2")
	if code != exitOK {
		t.Fatalf("write exited %d: %s", code, stderr)
	}
	wantContains(t, "write", stdout, "wrote 3 samples")
	r, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wantSizes := [][3]int{{8, 16, 3}, {16, 5, 1}, {8, 8, 3}} // h, w, c after --max-res 16
	for i, want := range wantSizes {
		s, err := r.Sample(i)
		if err != nil {
			t.Fatal(err)
		}
		img := s["image"].(image.Image)
		b := img.Bounds()
		_, gray := img.(*image.Gray)
		c := 3
		if gray {
			c = 1
		}
		if got := [3]int{b.Dy(), b.Dx(), c}; got != want {
			t.Errorf("sample %d: image %v, want %v", i, got, want)
		}
		if s["label"] != []int64{3, 7, 1}[i] {
			t.Errorf("sample %d: label %v", i, s["label"])
		}
	}
	// The GIF's red and black checkerboard survives JPEG at quality 95
	// within a small error (JPEG is lossy; 4:2:0 smears colour edges).
	s, _ := r.Sample(2)
	if c := color.RGBAModel.Convert(s["image"].(image.Image).At(1, 0)).(color.RGBA); c.R < 100 {
		t.Errorf("GIF pixel (1,0) = %v, want red", c)
	}

	code, stdout, _ = gojitRun(t, "dataset", "info", out)
	wantContains(t, "info", stdout, "samples    3", "image", "jpeg, source channels, max 16, quality 95", "largest [16 ", "label")
	if code != exitOK {
		t.Errorf("info exited %d", code)
	}
	code, stdout, _ = gojitRun(t, "dataset", "info", "--json", out)
	var info struct {
		Samples int `json:"samples"`
		Fields  []struct {
			Name, Kind, Encoding string
			MaxRes               int   `json:"max_res"`
			MaxShape             []int `json:"max_shape"`
			MaxBytes             int   `json:"max_bytes"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil || code != exitOK {
		t.Fatalf("info --json: %v, exit %d:\n%s", err, code, stdout)
	}
	if info.Samples != 3 || len(info.Fields) != 2 || info.Fields[0].Encoding != "jpeg" || info.Fields[0].MaxRes != 16 || info.Fields[1].Kind != "int" {
		t.Errorf("info --json = %+v", info)
	}
	// The recorded maxima against the images read back.
	wantMax, wantBytes := []int{0, 0, 0}, 0
	for i := range 3 {
		raw, m, err := r.AppendRaw(nil, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		for j := range wantMax {
			wantMax[j] = max(wantMax[j], m.Shape[j])
		}
		wantBytes = max(wantBytes, len(raw))
	}
	if f := info.Fields[0]; !slices.Equal(f.MaxShape, wantMax) || f.MaxBytes != wantBytes {
		t.Errorf("info --json: image maxima %v, %d bytes; the samples have %v, %d", f.MaxShape, f.MaxBytes, wantMax, wantBytes)
	}
	code, stdout, _ = gojitRun(t, "dataset", "verify", out)
	if code != exitOK {
		t.Errorf("verify exited %d", code)
	}
	wantContains(t, "verify", stdout, "ok (3 samples, 1 page verified)")

	// Damage one byte of the first data page: verify fails with exit 1.
	b, _ := os.ReadFile(out)
	b[dataset.DefaultPageSize+100] ^= 0x40
	bad := filepath.Join(dir, "bad.ds")
	os.WriteFile(bad, b, 0o644)
	code, _, stderr = gojitRun(t, "dataset", "verify", bad)
	if code != exitFail {
		t.Errorf("verify of a damaged file exited %d", code)
	}
	wantContains(t, "verify stderr", stderr, "is damaged", "page 0", "checksum mismatch")
}

func TestDatasetWriteErrors(t *testing.T) {
	dir := t.TempDir()
	writeImages(t, dir)
	out := filepath.Join(dir, "x.ds")
	os.WriteFile(filepath.Join(dir, "missing.csv"), []byte("file,label\na.png,1\nnope.png,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "badlabel.csv"), []byte("label,file\n1,a.png\nx,g.png\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nohead.csv"), []byte("name,y\na.png,1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.csv"), []byte("file,label\na.png,1\nbroken.png,2\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--from-images", dir, "--labels", filepath.Join(dir, "missing.csv"), "--out", out}, exitFail, "missing.csv:3: image nope.png: no such file"},
		{[]string{"--from-images", dir, "--labels", filepath.Join(dir, "badlabel.csv"), "--out", out}, exitFail, `badlabel.csv:3: label "x" is not an integer`},
		{[]string{"--from-images", dir, "--labels", filepath.Join(dir, "nohead.csv"), "--out", out}, exitFail, "nohead.csv:1: the header"},
		{[]string{"--from-images", dir, "--labels", filepath.Join(dir, "broken.csv"), "--out", out}, exitFail, "sample 1: field \"image\": bad sample: " + filepath.Join(dir, "broken.csv") + ":3: image " + filepath.Join(dir, "broken.png") + " does not decode"},
		{[]string{"--from-images", dir, "--out", out}, exitUsage, "needs --labels"},
		{[]string{"--labels", "x", "--out", out}, exitUsage, "exactly one of"},
		{[]string{"--from-npy", "x.npy"}, exitUsage, "--out is required"},
		{[]string{"--from-npy", filepath.Join(dir, "a.png"), "--out", out}, exitFail, "not a valid .npy file"},
	}
	for _, c := range cases {
		code, _, stderr := gojitRun(t, append([]string{"dataset", "write"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("dataset write %v: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("dataset write %v left %s", c.args, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 9 {
		t.Errorf("directory holds %d entries, want the 9 inputs (a temporary file left?)", len(entries))
	}
	for _, args := range [][]string{{"dataset"}, {"dataset", "frob"}, {"dataset", "info"}, {"dataset", "info", "a", "b"}} {
		if code, _, _ := gojitRun(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, stderr := gojitRun(t, "dataset", "write", "-h"); code != exitOK || !strings.Contains(stderr, "--from-npy X.npy") {
		t.Errorf("dataset write -h: exit %d, %s", code, stderr)
	}
	if code, stdout, _ := gojitRun(t, "help", "dataset"); code != exitOK || !strings.Contains(stdout, "verify  FILE") {
		t.Errorf("help dataset: exit %d, %s", code, stdout)
	}
	code, _, stderr := gojitRun(t, "dataset", "info", filepath.Join(dir, "a.png"))
	if code != exitFail || !strings.Contains(stderr, "bad magic") {
		t.Errorf("info of a PNG: exit %d, %s", code, stderr)
	}
}

// npyFile builds a .npy file by hand, as NumPy writes it (version 1.0,
// header padded with spaces to a multiple of 64 bytes, ending in \n).
func npyFile(descr string, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(append(b, h...), data...)
}

func TestDatasetFromNPY(t *testing.T) {
	dir := t.TempDir()
	const n = 5
	x := make([]float32, n*2*3)
	for i := range x {
		x[i] = float32(i) * 0.5
	}
	xb, _ := binary.Append(nil, binary.LittleEndian, x)
	y := []int64{4, 3, 2, 1, 0}
	yb, _ := binary.Append(nil, binary.LittleEndian, y)
	os.WriteFile(filepath.Join(dir, "x.npy"), npyFile("<f4", []int{n, 2, 3}, xb), 0o644)
	os.WriteFile(filepath.Join(dir, "y.npy"), npyFile("<i8", []int{n}, yb), 0o644)
	out := filepath.Join(dir, "n.ds")
	if code, _, stderr := gojitRun(t, "dataset", "write", "--from-npy", filepath.Join(dir, "x.npy"), "--labels", filepath.Join(dir, "y.npy"), "--out", out); code != exitOK {
		t.Fatalf("write: %s", stderr)
	}
	r, err := dataset.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != n {
		t.Fatalf("Len %d", r.Len())
	}
	for i := range n {
		s, err := r.Sample(i)
		if err != nil {
			t.Fatal(err)
		}
		a := s["x"].(*gojit.Array)
		if !reflect.DeepEqual(a.Shape(), []int{2, 3}) || !reflect.DeepEqual(a.Float32(), x[i*6:(i+1)*6]) || s["label"] != y[i] {
			t.Errorf("sample %d: x %v label %v", i, a, s["label"])
		}
	}
	// Bad inputs: Fortran order, big-endian, a size mismatch, labels of
	// the wrong length.
	fo := npyFile("<f4", []int{n, 2, 3}, xb)
	copy(fo[10:], strings.Replace(string(fo[10:80]), "False", "True ", 1))
	os.WriteFile(filepath.Join(dir, "fo.npy"), fo, 0o644)
	os.WriteFile(filepath.Join(dir, "be.npy"), npyFile(">f4", []int{n, 2, 3}, xb), 0o644)
	os.WriteFile(filepath.Join(dir, "short.npy"), npyFile("<f4", []int{n, 2, 3}, xb[:len(xb)-4]), 0o644)
	f8 := make([]byte, 8*3)
	binary.LittleEndian.PutUint64(f8, math.Float64bits(1))
	os.WriteFile(filepath.Join(dir, "y3.npy"), npyFile("<f8", []int{3}, f8), 0o644)
	for _, c := range []struct{ x, y, want string }{
		{"fo.npy", "", "only C order"},
		{"be.npy", "", "big-endian"},
		{"short.npy", "", "116 data bytes, shape [5 2 3] of f32 needs 120"},
		{"x.npy", "y3.npy", "want 5 labels"},
	} {
		args := []string{"dataset", "write", "--from-npy", filepath.Join(dir, c.x), "--out", out + "2"}
		if c.y != "" {
			args = append(args, "--labels", filepath.Join(dir, c.y))
		}
		if code, _, stderr := gojitRun(t, args...); code != exitFail || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %s; want %q", c.x, code, stderr, c.want)
		}
	}
}

// FuzzReadNPY feeds damaged .npy files to the reader: errors are fine,
// panics are not, and an accepted array's data matches its shape.
func FuzzReadNPY(f *testing.F) {
	xb := make([]byte, 4*6)
	f.Add(npyFile("<f4", []int{3, 2}, xb))
	f.Add(npyFile("|b1", []int{0}, nil))
	f.Add(npyFile("<i8", []int{}, make([]byte, 8)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := readNPY(path)
		if err != nil {
			return
		}
		n := a.dtype.Size()
		for _, d := range a.shape {
			n *= d
		}
		if n != len(a.data) {
			t.Fatalf("shape %v of %s with %d data bytes", a.shape, a.dtype, len(a.data))
		}
		if len(a.shape) > 0 && a.shape[0] > 0 {
			a.at(a.shape[0] - 1)
		}
	})
}
