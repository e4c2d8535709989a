package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

// TestDeterministicAcrossWorkers writes the same samples with 1, 2 and 7
// workers and compares the files byte for byte.
func TestDeterministicAcrossWorkers(t *testing.T) {
	t.Run("every kind", func(t *testing.T) { checkDeterministic(t, testSchema(), testSample) })
	// JPEG and downscaling, with samples of very different sizes.
	schema := Schema{Fields: []Field{Image("j", ImageOptions{Encoding: JPEG, MaxRes: 40, Quality: 80}), Int("i")}}
	t.Run("jpeg", func(t *testing.T) {
		checkDeterministic(t, schema, func(i int) Sample {
			return Sample{"j": smooth(10+(i*37)%90, 10+(i*53)%70, i%4 == 0), "i": i}
		})
	})
}

func checkDeterministic(t *testing.T, schema Schema, gen func(int) Sample) {
	dir := t.TempDir()
	var first []byte
	for _, workers := range []int{1, 2, 7} {
		path := filepath.Join(dir, "w.ds")
		writeFile(t, path, schema, 97, gen, WithWorkers(workers), WithPageSize(MinPageSize))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkPadding(t, path, b)
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatalf("%d workers: file differs from the 1-worker file", workers)
		}
	}
}

// checkPadding checks that every byte of the data pages of the file at
// path (contents b) that no sample's allocation covers is zero: the
// writer reuses page and sample buffers and must not leak old bytes into
// gaps.
func checkPadding(t *testing.T, path string, b []byte) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	covered := make([]bool, len(b))
	for i := 0; i < len(r.alloc); i += allocSize {
		off, n := le.Uint64(r.alloc[i:]), le.Uint64(r.alloc[i+8:])
		for j := off; j < off+n; j++ {
			covered[j] = true
		}
	}
	for j := r.h.dataOff; j < r.h.dataOff+r.h.pageCount*uint64(r.h.pageSize); j++ {
		if !covered[j] && b[j] != 0 {
			t.Fatalf("byte %d (page %d) is %d outside every sample's data, want 0", j, (j-r.h.dataOff)/uint64(r.h.pageSize), b[j])
		}
	}
}

// TestSpansPages writes samples larger than a page between small ones and
// checks the page rules: small samples inside one page, large ones on their
// own run of pages, and nothing else on those pages.
func TestSpansPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.ds")
	size := func(i int) int { return []int{100, 3 * MinPageSize / 2, 10, 3000, 3000, 2*MinPageSize + 1, 0, 7}[i%8] }
	gen := func(i int) Sample {
		b := make([]byte, size(i))
		for j := range b {
			b[j] = byte(i + j*31)
		}
		return Sample{"b": b, "i": i}
	}
	schema := Schema{Fields: []Field{Bytes("b"), Int("i")}}
	writeFile(t, path, schema, 24, gen, WithWorkers(2), WithPageSize(MinPageSize))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	owner := map[int]int{} // page -> large sample using it
	var spans [][2]int
	for i := range r.Len() {
		s, err := r.Sample(i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s["b"].([]byte), gen(i)["b"].([]byte)) || s["i"] != int64(i) {
			t.Fatalf("sample %d differs", i)
		}
		first, n := r.SamplePages(i)
		wantN := (size(i) + MinPageSize - 1) / MinPageSize
		if size(i) > 0 && size(i) <= MinPageSize {
			wantN = 1
		}
		if n != wantN {
			t.Errorf("sample %d (%d bytes): %d pages, want %d", i, size(i), n, wantN)
		}
		if n > 1 {
			for p := first; p < first+n; p++ {
				owner[p] = i
			}
		}
		if n > 0 {
			spans = append(spans, [2]int{i, first})
		}
	}
	for _, s := range spans {
		if o, ok := owner[s[1]]; ok && o != s[0] {
			t.Errorf("sample %d shares page %d with the large sample %d", s[0], s[1], o)
		}
	}
	// 100 and the 10 after the first large sample cannot share its pages;
	// 10, 3000 fit in one page, the next 3000 starts a new one.
	if r.NumPages() < 8 {
		t.Errorf("%d pages, want at least 8", r.NumPages())
	}
}

// TestCancel cancels a write midway: Write returns the context's error,
// no file appears under the final name and no temporary file remains.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.ds")
	w, err := Create(path, testSchema(), WithWorkers(3), WithPageSize(MinPageSize))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	seq := func(yield func(int, Sample) bool) {
		for i := 0; ; i++ {
			if i == 50 {
				cancel()
			}
			if !yield(i, testSample(i)) {
				return
			}
		}
	}
	before := runtime.NumGoroutine()
	err = w.Write(ctx, seq)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write: %v, want context.Canceled", err)
	}
	// A worker that has signalled its WaitGroup may not have exited yet:
	// give the count a moment to settle before calling it a leak.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before {
		t.Errorf("%d goroutines after the cancelled Write, %d before", after, before)
	}
	if err2 := w.Close(); !errors.Is(err2, context.Canceled) {
		t.Errorf("Close after a cancelled Write: %v", err2)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("directory holds %v after a cancelled write", entries)
	}
}

// TestBadSamples checks that each bad sample is refused with an error
// naming the file, the sample index, the field and the problem, and that
// no file is left behind.
func TestBadSamples(t *testing.T) {
	schema := Schema{Fields: []Field{Int("n"), NDArrayVar("v", gojit.Float32, 3), NDArray("a", gojit.Int32, 2), Image("img", ImageOptions{Channels: 3}), JSON("j")}}
	good := func() Sample {
		return Sample{"n": 1, "v": gojit.FromFloat32([]float32{1}, 1), "a": gojit.FromInt32([]int32{1, 2}, 2),
			"img": testImage("rgba", 2, 2, 0), "j": 1}
	}
	cases := []struct {
		name  string
		edit  func(Sample)
		field string
		want  string
	}{
		{"missing", func(s Sample) { delete(s, "n") }, "n", "missing"},
		{"unknown", func(s Sample) { s["zz"] = 1 }, "zz", "no such field"},
		{"int type", func(s Sample) { s["n"] = "x" }, "n", "want an integer"},
		{"too large", func(s Sample) { s["v"] = gojit.FromFloat32(make([]float32, 4), 4) }, "v", "larger than the declared maximum"},
		{"ndim", func(s Sample) { s["v"] = gojit.FromFloat32(make([]float32, 4), 2, 2) }, "v", "dimensions"},
		{"dtype", func(s Sample) { s["a"] = gojit.FromFloat32([]float32{1, 2}, 2) }, "a", "dtype f32"},
		{"shape", func(s Sample) { s["a"] = gojit.FromInt32([]int32{1, 2, 3}, 3) }, "a", "shape [3]"},
		{"image type", func(s Sample) { s["img"] = []byte{1} }, "img", "want an image.Image"},
		{"empty image", func(s Sample) { s["img"] = image.NewRGBA(image.Rect(0, 0, 0, 3)) }, "img", "empty image"},
		{"json", func(s Sample) { s["j"] = func() {} }, "j", "unsupported type"},
		{"raw json", func(s Sample) { s["j"] = json.RawMessage("{") }, "j", "not valid JSON"},
		{"loader", func(s Sample) {
			s["img"] = func() (image.Image, error) { return nil, errors.New("cat.png does not decode") }
		}, "img", "cat.png does not decode"},
		{"uint64", func(s Sample) { s["n"] = uint64(1 << 63) }, "n", "overflows int64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "bad.ds")
			w, err := Create(path, schema, WithWorkers(2))
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(context.Background(), samplesOf(10, func(i int) Sample {
				s := good()
				if i == 7 {
					c.edit(s)
				}
				return s
			}))
			var de *Error
			if !errors.As(err, &de) || de.Sample != 7 || de.Field != c.field || de.Path != path || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want sample 7, field %q, %q", err, c.field, c.want)
			}
			if !errors.Is(err, ErrSample) {
				t.Errorf("error %v is not ErrSample", err)
			}
			w.Close()
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("directory holds %v after a failed write", entries)
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		schema Schema
		opts   []WriteOption
		want   string
	}{
		{Schema{}, nil, "no fields"},
		{Schema{Fields: []Field{Int("a"), Float("a")}}, nil, "used twice"},
		{Schema{Fields: []Field{Int("")}}, nil, "empty name"},
		{Schema{Fields: []Field{NDArray("x", gojit.Float32, make([]int, 9)...)}}, nil, "9 dimensions"},
		{Schema{Fields: []Field{NDArrayVar("x", gojit.Float32)}}, nil, "at least one dimension"},
		{Schema{Fields: []Field{Image("x", ImageOptions{Encoding: JPEG, Channels: 4})}}, nil, "no alpha"},
		{Schema{Fields: []Field{Image("x", ImageOptions{Channels: 2})}}, nil, "channels 2"},
		{Schema{Fields: []Field{Int("a")}}, []WriteOption{WithPageSize(5000)}, "power of two"},
		{Schema{Fields: []Field{Int("a")}}, []WriteOption{WithWorkers(0)}, "at least 1"},
	}
	for _, c := range cases {
		_, err := Create(filepath.Join(dir, "x.ds"), c.schema, c.opts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create(%v): %v, want %q", c.schema, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("directory holds %v", entries)
	}
}

// TestMultipleWrites appends in two calls and reads back in order; an
// empty dataset is valid too.
func TestMultipleWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.ds")
	w, err := Create(path, testSchema(), WithPageSize(MinPageSize))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Write(ctx, samplesOf(5, testSample)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, samplesOf(4, func(i int) Sample { return testSample(i + 5) })); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 9 {
		s, err := r.Sample(i)
		if err != nil {
			t.Fatal(err)
		}
		checkSample(t, s, i)
	}
	empty := filepath.Join(t.TempDir(), "e.ds")
	w, _ = Create(empty, testSchema())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Len() != 0 || r2.NumPages() != 0 {
		t.Errorf("empty file: %d samples, %d pages", r2.Len(), r2.NumPages())
	}
}

// TestCloseFails removes the directory before Close: the rename fails,
// Close says so naming the file, and nothing is left behind.
func TestCloseFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.ds")
	w, err := Create(path, testSchema(), WithPageSize(MinPageSize))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), samplesOf(5, testSample)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	err = w.Close()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Close: %v, want an error naming %s", err, path)
	}
	if err2 := w.Close(); err2 != err {
		t.Errorf("second Close: %v, want the first error again", err2)
	}
	if err := w.Write(context.Background(), samplesOf(1, testSample)); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists again: %v", dir, err)
	}
	if _, err := Create(filepath.Join(dir, "y.ds"), testSchema()); err == nil || !strings.Contains(err.Error(), "y.ds") {
		t.Errorf("Create in a missing directory: %v", err)
	}
}

// TestSilentWithoutTerminal writes with the progress bar on while
// standard error is a pipe: nothing may appear on it.
func TestSilentWithoutTerminal(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = pw
	writeFile(t, filepath.Join(t.TempDir(), "q.ds"), testSchema(), 30, testSample, WithProgress(true), WithTotal(30))
	os.Stderr = saved
	pw.Close()
	var got bytes.Buffer
	got.ReadFrom(pr)
	if got.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal standard error", got.String())
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.ds")
	if _, err := Open(missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open of a missing file: %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open of a directory: %v", err)
	}
}

// FuzzWriteRead writes samples of sizes the fuzzer picks (around the page
// size and its multiples) with 1 to 3 workers, then reads every one back
// and compares it; Open checks the placement rules on the way.
func FuzzWriteRead(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, uint8(1))
	f.Add([]byte{255, 255, 1, 128, 200, 0, 7}, uint8(2))
	f.Add([]byte{16, 16, 16, 16, 16, 16}, uint8(3))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, spec []byte, workers uint8) {
		if len(spec) > 64 {
			spec = spec[:64]
		}
		// Each byte b gives a size: b*b/4 + b (0 to 16,510 bytes, so
		// samples below, at and above one and several 4 KiB pages).
		size := func(i int) int { b := int(spec[i]); return b*b/4 + b }
		gen := func(i int) Sample {
			d := make([]byte, size(i))
			for j := range d {
				d[j] = byte(i*7 + j)
			}
			return Sample{"d": d, "n": i}
		}
		schema := Schema{Fields: []Field{Int("n"), Bytes("d")}}
		path := filepath.Join(dir, "fw.ds")
		writeFile(t, path, schema, len(spec), gen, WithWorkers(1+int(workers)%3), WithPageSize(MinPageSize))
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Len() != len(spec) {
			t.Fatalf("Len %d, want %d", r.Len(), len(spec))
		}
		for i := range spec {
			s, err := r.Sample(i)
			if err != nil {
				t.Fatal(err)
			}
			if s["n"] != int64(i) || !bytes.Equal(s["d"].([]byte), gen(i)["d"].([]byte)) {
				t.Fatalf("sample %d (%d bytes) differs", i, size(i))
			}
		}
		if err := r.Verify(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGatheredPagesSameBytes writes pages of large samples (raw images,
// written from the samples' buffers with pwritev) mixed with small ones
// of odd sizes (alignment gaps) and samples larger than a page, with 1, 2
// and 7 workers, gathered and assembled, and checks that every file is the
// same byte for byte, that the gaps and page tails read as zeros and that
// every sample reads back.
func TestGatheredPagesSameBytes(t *testing.T) {
	schema := Schema{Fields: []Field{Image("image", ImageOptions{Channels: 3}), Bytes("b"), Int("label")}}
	gen := func(i int) Sample {
		b := make([]byte, (i*131)%3000)
		if i%17 == 0 {
			b = make([]byte, 70000+i) // more than a page
		}
		for j := range b {
			b[j] = byte(i + j)
		}
		return Sample{"image": testImage("rgba", 16+i%48, 16+(i*7)%48, i), "b": b, "label": i}
	}
	dir := t.TempDir()
	var first []byte
	for _, off := range []bool{true, false} {
		for _, workers := range []int{1, 2, 7} {
			noGather = off
			path := filepath.Join(dir, "g.ds")
			writeFile(t, path, schema, 157, gen, WithWorkers(workers), WithPageSize(64<<10))
			noGather = false
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkPadding(t, path, b)
			if first == nil {
				first = b
				r, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 157 {
					s, err := r.Sample(i)
					if err != nil {
						t.Fatal(err)
					}
					if want := gen(i)["b"].([]byte); !bytes.Equal(s["b"].([]byte), want) {
						t.Fatalf("sample %d: bytes field differs", i)
					}
				}
				r.Close()
			} else if !bytes.Equal(first, b) {
				t.Fatalf("%d workers, assembled=%v: file differs from the first", workers, off)
			}
		}
	}
}

// TestWriteFailure makes the write of one page fail, with pages of large
// samples (written from their buffers) and of small ones (assembled), on
// 1, 2 and 7 workers: Write must return an error naming the file and the
// page, leave nothing under the final name or the temporary one, and
// leave no goroutine behind.
func TestWriteFailure(t *testing.T) {
	defer func() { failPage = -1 }()
	for _, big := range []bool{true, false} {
		for _, workers := range []int{1, 2, 7} {
			dir := t.TempDir()
			path := filepath.Join(dir, "fail.ds")
			schema := Schema{Fields: []Field{Bytes("b")}}
			gen := func(i int) Sample {
				n := 100
				if big {
					n = 5000
				}
				return Sample{"b": make([]byte, n+i%7)}
			}
			before := runtime.NumGoroutine()
			failPage = 2
			w, err := Create(path, schema, WithWorkers(workers), WithPageSize(64<<10), WithProgress(false))
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(context.Background(), func(yield func(int, Sample) bool) {
				for i := range 2000 {
					if !yield(i, gen(i)) {
						return
					}
				}
			})
			failPage = -1
			if err == nil || !strings.Contains(err.Error(), "writing page 2") || !strings.Contains(err.Error(), path) {
				t.Fatalf("big=%v workers=%d: Write returned %v, want an error naming %s and page 2", big, workers, err, path)
			}
			if cerr := w.Close(); cerr == nil {
				t.Fatalf("big=%v workers=%d: Close after a failed Write returned nil", big, workers)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("big=%v workers=%d: %d files left in the directory, want none", big, workers, len(ents))
			}
			waitGoroutines(t, before)
		}
	}
}

// waitGoroutines waits up to 2 s for the goroutine count to fall back to
// at most n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, want at most %d", runtime.NumGoroutine(), n)
}
