package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// TestNormalizeKernel: Normalize's plain Go Run gives the formula's value
// on every pixel, and its Kernel description, compiled by gojit over the
// decoded batch, gives the same values on every sample's own region.
func TestNormalizeKernel(t *testing.T) {
	path := writeTestFile(t, 40, false)
	mean, std := []float32{127.5, 63.75, 31.875}, []float32{51, 76.5, 102}
	l, err := NewLoader(path, Config{BatchSize: 40, Workers: 2, NoCompile: true, Fields: map[string][]Op{
		"img": {Normalize(mean, std, gojit.Float32)}, "vec": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	raw, err := NewLoader(path, Config{BatchSize: 40, Workers: 2, Fields: map[string][]Op{"img": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	// The kernel description, traced and compiled over the whole batch.
	st, _ := raw.State("img")
	d, err := Normalize(mean, std, gojit.Float32).Declare(st, nil)
	if err != nil || d.Kernel == nil || d.Kernel.Trace == nil {
		t.Fatalf("Normalize declares %+v, %v; want a kernel description", d, err)
	}
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return d.Kernel.Trace(x, nil, nil, nil) })
	if err != nil {
		t.Fatal(err)
	}
	var compiled []float32
	collect(t, raw.Epoch(context.Background(), 0), func(b *Batch) {
		outs, err := f.Call(b.Field("img"))
		if err != nil {
			t.Fatal(err)
		}
		compiled = outs[0].Float32()
	})
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		got := b.Field("img").Float32()
		for j, i := range b.Indices() {
			h, w := imgDims(i)
			for y := range h {
				for x := range w {
					for c := range 3 {
						want := (float32(pixel(i, y, x, c)) - mean[c]) / std[c]
						g := got[j*8*8*3+(y*w+x)*3+c]
						// Run multiplies by 1/std: within an ulp or two.
						if math.Abs(float64(g-want)) > 1e-6*math.Abs(float64(want))+1e-7 {
							t.Fatalf("sample %d [%d,%d,%d]: Run gives %v, want %v", i, y, x, c, g, want)
						}
						// The kernel sees the padded [8, 8, 3] layout: sample j's
						// packed element k sits at the same offset there.
						k := compiled[j*8*8*3+(y*w+x)*3+c]
						if math.Abs(float64(k-want)) > 1e-6*math.Abs(float64(want))+1e-7 {
							t.Fatalf("sample %d [%d,%d,%d]: kernel gives %v, Run %v", i, y, x, c, k, want)
						}
					}
				}
			}
		}
	})
	fixed := State{DType: gojit.Uint8, Shape: []int{4, 3}, Compilable: true}
	if _, err := Normalize([]float32{0, 0}, []float32{1, 1}, gojit.Float32).Declare(fixed, nil); err == nil {
		t.Fatal("Normalize with 2 channels accepted a [4 3] array")
	}
}

// TestRandomFlipRate: RandomHorizontalFlip(0) never flips, RandomHorizontalFlip(1) always
// mirrors.
func TestRandomFlipRate(t *testing.T) {
	path := writeTestFile(t, 30, false)
	for _, p := range []float32{0, 1} {
		l, err := NewLoader(path, Config{BatchSize: 30, Fields: map[string][]Op{"img": {RandomHorizontalFlip(float64(p))}}})
		if err != nil {
			t.Fatal(err)
		}
		collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
			for j, i := range b.Indices() {
				v, _ := b.Sample("img", j)
				h, w := imgDims(i)
				for y := range h {
					for x := range w {
						sx := x
						if p == 1 {
							sx = w - 1 - x
						}
						if v.Data[(y*w+x)*3] != pixel(i, y, sx, 0) {
							t.Fatalf("RandomHorizontalFlip(%v) sample %d pixel (%d,%d) = %d, want source (%d,%d)", p, i, y, x, v.Data[(y*w+x)*3], y, sx)
						}
					}
				}
			}
		})
		l.Close()
	}
}

// TestJPEGAndGrayscale: JPEG and one-channel images decode through
// ImageDecoder to the shapes and (within JPEG's loss) the pixels written.
func TestJPEGAndGrayscale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "img.gojit")
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("jpg", dataset.ImageOptions{Encoding: dataset.JPEG, Channels: 3, Quality: 95}),
		dataset.Image("gray", dataset.ImageOptions{Channels: 1}),
	}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	grayOf := func(i int) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, 10+i, 7))
		for k := range g.Pix {
			g.Pix[k] = uint8(20 * i)
		}
		return g
	}
	rgbOf := func(i int) *image.RGBA {
		m := image.NewRGBA(image.Rect(0, 0, 16, 8+8*i))
		for y := range m.Bounds().Dy() {
			for x := range 16 {
				m.Set(x, y, color.RGBA{uint8(40 * i), 128, 200, 255})
			}
		}
		return m
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range 4 {
			if !yield(i, dataset.Sample{"jpg": rgbOf(i), "gray": grayOf(i)}) {
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
	l, err := NewLoader(path, Config{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, _ := l.State("gray"); st.Shape[2] != 1 || st.Shape[1] != 13 || st.Shape[0] != 7 {
		t.Fatalf("gray state %s, want the largest image, [<=7 <=13 <=1]", st)
	}
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		for j, i := range b.Indices() {
			g, _ := b.Sample("gray", j)
			if g.Shape[0] != 7 || g.Shape[1] != 10+i || g.Shape[2] != 1 {
				t.Fatalf("gray %d shape %v", i, g.Shape)
			}
			for _, p := range g.Data {
				if p != uint8(20*i) {
					t.Fatalf("gray %d pixel %d, want %d", i, p, 20*i)
				}
			}
			c, _ := b.Sample("jpg", j)
			if c.Shape[0] != 8+8*i || c.Shape[1] != 16 || c.Shape[2] != 3 {
				t.Fatalf("jpg %d shape %v", i, c.Shape)
			}
			// A flat colour survives JPEG within a few levels.
			for k, p := range c.Data {
				want := []int{40 * i, 128, 200}[k%3]
				if d := int(p) - want; d < -6 || d > 6 {
					t.Fatalf("jpg %d byte %d = %d, want about %d", i, k, p, want)
				}
			}
		}
	})
}

// panicOp panics on every sample.
type panicOp struct{}

func (panicOp) Name() string { return "panicky" }
func (panicOp) Declare(in State, _ []State) (Decl, error) {
	return Decl{Out: in, Run: func(*Sample) error { panic("boom") }}, nil
}

// growOp claims a shape larger than its memory.
type growOp struct{}

func (growOp) Name() string { return "grow" }
func (growOp) Declare(in State, _ []State) (Decl, error) {
	return Decl{Out: in, Run: func(s *Sample) error { s.Out.Shape[0] = 9; return nil }}, nil
}

// TestOpMisbehaviour: a panicking op and one exceeding its declared shape
// give errors naming the sample, not crashes.
func TestOpMisbehaviour(t *testing.T) {
	path := writeTestFile(t, 10, false)
	for _, c := range []struct {
		op   Op
		want string
	}{{panicOp{}, "panic: boom"}, {growOp{}, "produced shape [9 4]"}} {
		l, err := NewLoader(path, Config{BatchSize: 3, Fields: map[string][]Op{"boxes": {c.op}}})
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for _, err := range l.Epoch(context.Background(), 0) {
			got = err
		}
		var se *SampleError
		if !errors.As(got, &se) || !strings.Contains(got.Error(), c.want) || !strings.Contains(got.Error(), "sample 0") {
			t.Fatalf("%s: error %v, want one for sample 0 containing %q", c.op.Name(), got, c.want)
		}
		l.Close()
	}
}

// TestEpochExclusiveAndClose: a second Epoch during one is refused; Close
// during an epoch stops it.
func TestEpochExclusiveAndClose(t *testing.T) {
	path := writeTestFile(t, 40, false)
	l, err := NewLoader(path, Config{BatchSize: 2, Workers: 2, Fields: map[string][]Op{"vec": {slowOp{}}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var last error
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 1 {
			for _, err := range l.Epoch(context.Background(), 1) {
				if err == nil || !strings.Contains(err.Error(), "another epoch") {
					t.Fatalf("nested Epoch: %v", err)
				}
			}
			l.Close() // from inside the loop: cancels, releases when the loop returns
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("epoch after Close: %d batches, error %v; want it stopped with context.Canceled", n, last)
	}
	if _, _, err := l.r.AppendRaw(nil, 0, 0); !errors.Is(err, dataset.ErrClosed) {
		t.Fatalf("the file is still open after the closed epoch's loop returned: %v", err)
	}
	for _, err := range l.Epoch(context.Background(), 2) {
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("after Close: %v", err)
		}
	}
}

// TestCloseFromAnotherGoroutine: Close while the loop runs elsewhere
// stops the epoch; once the loop returns, no goroutine is left and the
// file is closed.
func TestCloseFromAnotherGoroutine(t *testing.T) {
	path := writeTestFile(t, 40, false)
	before := runtime.NumGoroutine()
	l, err := NewLoader(path, Config{BatchSize: 2, Workers: 2, Fields: map[string][]Op{"vec": {slowOp{}}}})
	if err != nil {
		t.Fatal(err)
	}
	first, closed := make(chan struct{}), make(chan struct{})
	go func() { <-first; l.Close(); close(closed) }()
	n := 0
	var last error
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 1 {
			close(first)
			<-closed // Close has cancelled the epoch: the next item is the error
		}
	}
	if !errors.Is(last, context.Canceled) || n != 1 {
		t.Fatalf("%d of 20 batches, error %v; want the epoch stopped after 1 with context.Canceled", n, last)
	}
	if g := goroutinesDownTo(before); g > before {
		t.Fatalf("%d goroutines after Close, %d before", g, before)
	}
	if _, _, err := l.r.AppendRaw(nil, 0, 0); !errors.Is(err, dataset.ErrClosed) {
		t.Fatalf("the file is still open: %v", err)
	}
}

// TestIndicesSubset: a subset with a repeated index, sharded over more
// ranks than samples.
func TestIndicesSubset(t *testing.T) {
	path := writeTestFile(t, 20, false)
	count := map[int]int{}
	pads := 0
	for rank := range 4 {
		l, err := NewLoader(path, Config{BatchSize: 1, Indices: []int{7, 3, 7}, Rank: rank, WorldSize: 4, Order: Random, Fields: map[string][]Op{"id": nil}})
		if err != nil {
			t.Fatal(err)
		}
		collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
			if b.Padding(0) {
				pads++
			} else {
				count[b.Indices()[0]]++
			}
			if b.Field("id").Int64()[0] != int64(b.Indices()[0]) {
				t.Fatal("id does not match the index")
			}
		})
		l.Close()
	}
	if count[7] != 2 || count[3] != 1 || len(count) != 2 || pads != 1 {
		t.Fatalf("counts %v and %d padding, want 7 twice, 3 once, 1 padding", count, pads)
	}
}

// TestDamagedPage: a flipped byte in a data page is reported by the loader
// as an error naming the file, the sample and the checksum, not loaded.
func TestDamagedPage(t *testing.T) {
	path := writeRawFile(t, t.TempDir(), 64, 1000, dataset.MinPageSize)
	r, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := r.SamplePages(40)
	n := r.NumPages()
	r.Close()
	// The data pages are the file's last n pages: damage sample 40's.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-(n-first)*dataset.MinPageSize+10] ^= 0xFF
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader(path, Config{BatchSize: 8, Workers: 2, Fields: map[string][]Op{"x": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got error
	batches := 0
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			got = err
			break
		}
		batches++
	}
	var se *SampleError
	if !errors.As(got, &se) || !errors.Is(got, dataset.ErrChecksum) || !strings.Contains(got.Error(), path) || se.Index/8 != 40/8 || batches != 40/8 {
		t.Fatalf("after %d batches: %v; want a checksum error naming %s and a sample of batch %d", batches, got, path, 40/8)
	}
	t.Log(got)
}

// TestDecoderBounds: BytesDecoderMax and ImageDecoderMax bound a field
// without scanning it; a larger sample is an error naming it.
func TestDecoderBounds(t *testing.T) {
	path := writeTestFile(t, 12, false) // blob i holds 2*(i%6) bytes
	l, err := NewLoader(path, Config{BatchSize: 12, Fields: map[string][]Op{"blob": {BytesDecoderMax(20)}}})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := l.State("blob"); st.Shape[0] != 20 {
		t.Fatalf("blob state %s, want [<=20]", st)
	}
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		for j, i := range b.Indices() {
			if v, _ := b.Sample("blob", j); string(v.Data) != strings.Repeat("ab", i%6) {
				t.Fatalf("blob %d = %q", i, v.Data)
			}
		}
	})
	l.Close()
	l, err = NewLoader(path, Config{BatchSize: 12, Fields: map[string][]Op{"blob": {BytesDecoderMax(5)}}})
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range l.Epoch(context.Background(), 0) {
		got = err
	}
	if got == nil || !strings.Contains(got.Error(), "sample 3,") || !strings.Contains(got.Error(), "6 bytes stored, more than the maximum of 5") {
		t.Fatalf("error %v, want sample 3's 6 bytes over the maximum of 5", got)
	}
	l.Close()
}

// declOp declares whatever it is given, to test NewLoader's checks.
type declOp struct {
	name string
	d    func(in State) Decl
}

func (o declOp) Name() string                              { return o.name }
func (o declOp) Declare(in State, _ []State) (Decl, error) { return o.d(in), nil }

// TestDeclarationChecks: declarations that would corrupt batch memory are
// refused by NewLoader, naming the field, the op and the problem.
func TestDeclarationChecks(t *testing.T) {
	path := writeTestFile(t, 5, false)
	run := func(*Sample) error { return nil }
	cases := []struct {
		d    func(in State) Decl
		want string
	}{
		{func(in State) Decl { o := in; o.DType = gojit.Int32; return Decl{Out: o, Run: run} }, "changes the dtype"},
		{func(in State) Decl { o := in; o.Shape = []int{9, 4}; return Decl{Out: o, Run: run} }, "larger than its input"},
		{func(in State) Decl { o := in; o.Shape = []int{12}; return Decl{Out: o, Run: run} }, "changes the rank"},
		{func(in State) Decl {
			return Decl{Out: in, Memory: &Alloc{DType: gojit.Float32, Shape: []int{2, 4}}, Run: run}
		}, "too small"},
		{func(in State) Decl {
			return Decl{Out: in, Memory: &Alloc{DType: gojit.Int64, Shape: in.Shape}, Run: run}
		}, "another dtype or rank"},
		{func(in State) Decl { return Decl{Out: in} }, "neither a Run function nor a Kernel"},
		{func(in State) Decl { o := in; o.GoValue = true; return Decl{Out: o, Run: run} }, "between a Go value and an array"},
	}
	for i, c := range cases {
		_, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{"boxes": {declOp{fmt.Sprint("bad", i), c.d}}}})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf(`field "boxes": op 1 (bad%d)`, i)) {
			t.Errorf("case %d: %v, want an error naming the op and containing %q", i, err, c.want)
		}
	}
}

// TestSequentialIndicesOrder: Sequential keeps the order of Indices, on
// every rank, epoch after epoch.
func TestSequentialIndicesOrder(t *testing.T) {
	path := writeTestFile(t, 12, false)
	idx := []int{5, 2, 9, 0, 11, 7, 3}
	var got []int
	for rank := range 2 {
		l, err := NewLoader(path, Config{BatchSize: 3, Indices: idx, Rank: rank, WorldSize: 2, Fields: map[string][]Op{"id": nil}})
		if err != nil {
			t.Fatal(err)
		}
		for e := range 2 {
			var mine []int
			collect(t, l.Epoch(context.Background(), e), func(b *Batch) { mine = append(mine, b.Indices()...) })
			if e == 0 {
				got = append(got, mine...)
			} else if !slices.Equal(mine, got[rank*4:rank*4+4]) {
				t.Fatalf("rank %d epoch 1: %v, epoch 0 gave %v", rank, mine, got[rank*4:rank*4+4])
			}
		}
		l.Close()
	}
	if want := append(slices.Clone(idx), idx[0]); !slices.Equal(got, want) {
		t.Fatalf("ranks' samples %v, want %v (Indices, then the first repeated as padding)", got, want)
	}
}

// TestNoBatches: DropLast with fewer samples per rank than a batch gives
// an empty epoch, promptly.
func TestNoBatches(t *testing.T) {
	path := writeTestFile(t, 5, false)
	l, err := NewLoader(path, Config{BatchSize: 8, DropLast: true, Fields: map[string][]Op{"id": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n := collect(t, l.Epochs(context.Background(), 0, 3), func(*Batch) {}); n != 0 || l.Len() != 0 {
		t.Fatalf("%d batches (Len %d), want 0", n, l.Len())
	}
}

// TestMaximaFromFile: a field without a declared bound gets its buffer
// size from the maxima the file records, without reading any sample: a
// damaged data page does not stop NewLoader (the old whole-field scan
// read it), and is reported when the epoch reads it.
func TestMaximaFromFile(t *testing.T) {
	path := writeTestFile(t, 12, false) // blob i holds 2*(i%6) bytes: at most 10
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k := bytes.Index(b, []byte(strings.Repeat("ab", 5)))
	if k < 0 {
		t.Fatal("sample 5's blob not found in the file")
	}
	b[k] = 'X'
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader(path, Config{BatchSize: 12, Fields: map[string][]Op{"blob": nil}})
	if err != nil {
		t.Fatalf("NewLoader read a sample's data: %v", err)
	}
	defer l.Close()
	if st, _ := l.State("blob"); !slices.Equal(st.Shape, []int{10}) {
		t.Fatalf("blob state %s, want [<=10] from the file's maxima", st)
	}
	var got error
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			got = err
		}
	}
	if !errors.Is(got, dataset.ErrChecksum) {
		t.Fatalf("epoch over a damaged page: %v, want a checksum error", got)
	}
}

// TestTruncatedWhileLoading truncates the memory-mapped file under a
// loader: the epoch ends with an error naming the file and a sample
// (dataset.ErrTruncated), not a SIGBUS that kills the process.
func TestTruncatedWhileLoading(t *testing.T) {
	path := writeRawFile(t, t.TempDir(), 64, 1000, dataset.MinPageSize) // 4 samples a page
	l, err := NewLoader(path, Config{BatchSize: 8, Workers: 2, Fields: map[string][]Op{"x": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Keep the header's page and the first 8 data pages (samples 0-31).
	if err := os.Truncate(path, 9*dataset.MinPageSize); err != nil {
		t.Fatal(err)
	}
	var got error
	batches := 0
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			got = err
			break
		}
		batches++
	}
	var se *SampleError
	if !errors.As(got, &se) || !errors.Is(got, dataset.ErrTruncated) || !strings.Contains(got.Error(), path) || se.Index < 32 || batches != 4 {
		t.Fatalf("after %d batches: %v; want a truncation error naming %s and a sample from 32 on after 4 batches", batches, got, path)
	}
	t.Log(got)
}
