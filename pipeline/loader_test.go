package pipeline

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"iter"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// The test file's samples are functions of their index, so every value
// the loader yields is checked against these, not against the reader.
func imgDims(i int) (h, w int)   { return 1 + i%5, 1 + (i/5)%4 }
func pixel(i, y, x, c int) uint8 { return uint8(i*7 + y*31 + x*17 + c*5) }
func nBoxes(i int) int           { return i % 4 }
func boxValue(i, b, k int) float32 {
	return float32(i) + float32(b)/4 + float32(k)/16
}

type testImage struct{ i int }

func (t testImage) ColorModel() color.Model { return color.RGBAModel }
func (t testImage) Bounds() image.Rectangle {
	h, w := imgDims(t.i)
	return image.Rect(0, 0, w, h)
}
func (t testImage) At(x, y int) color.Color {
	return color.RGBA{pixel(t.i, y, x, 0), pixel(t.i, y, x, 1), pixel(t.i, y, x, 2), 255}
}

func testSchema(json bool) dataset.Schema {
	s := dataset.Schema{Fields: []dataset.Field{
		dataset.Int("id"),
		dataset.Float("half"),
		dataset.Image("img", dataset.ImageOptions{Channels: 3, MaxRes: 8}),
		dataset.NDArrayVar("boxes", gojit.Float32, 3, 4),
		dataset.NDArray("vec", gojit.Uint8, 8),
		dataset.Bytes("blob"),
	}}
	if json {
		s.Fields = append(s.Fields, dataset.JSON("meta"))
	}
	return s
}

func testSample(i int, json bool) dataset.Sample {
	boxes := make([]float32, nBoxes(i)*4)
	for b := range nBoxes(i) {
		for k := range 4 {
			boxes[b*4+k] = boxValue(i, b, k)
		}
	}
	vec := make([]uint8, 8)
	for k := range vec {
		vec[k] = uint8(i + k)
	}
	s := dataset.Sample{
		"id": int64(i), "half": float64(i) / 2, "img": testImage{i},
		"boxes": gojit.FromFloat32(boxes, nBoxes(i), 4),
		"vec":   gojit.FromUint8(vec),
		"blob":  strings.Repeat("ab", i%6),
	}
	if json {
		s["meta"] = map[string]any{"i": i}
	}
	return s
}

// writeTestFile writes n samples with a small page size, so that the
// file has many pages.
func writeTestFile(t testing.TB, n int, json bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.gojit")
	w, err := dataset.Create(path, testSchema(json), dataset.WithPageSize(dataset.MinPageSize), dataset.WithProgress(false))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			if !yield(i, testSample(i, json)) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkSample compares sample j of a batch with the generating functions.
func checkSample(t *testing.T, b *Batch, j int, json bool) {
	t.Helper()
	i := b.Indices()[j]
	fail := func(field string, got, want any) {
		t.Helper()
		t.Fatalf("epoch %d batch %d sample %d (index %d) field %s: got %v, want %v", b.Epoch(), b.Number(), j, i, field, got, want)
	}
	if v := b.Field("id").Int64()[j]; v != int64(i) {
		fail("id", v, i)
	}
	if v := b.Field("half").Float64()[j]; v != float64(i)/2 {
		fail("half", v, float64(i)/2)
	}
	h, w := imgDims(i)
	img := b.Field("img")
	if !slices.Equal(img.Shape(), []int{b.Len(), 8, 8, 3}) {
		fail("img shape", img.Shape(), []int{b.Len(), 8, 8, 3})
	}
	if sh := b.Shapes("img").Int32()[j*3 : j*3+3]; !slices.Equal(sh, []int32{int32(h), int32(w), 3}) {
		fail("img own shape", sh, []int{h, w, 3})
	}
	row := img.Uint8()[j*8*8*3 : (j+1)*8*8*3]
	for y := range h {
		for x := range w {
			for c := range 3 {
				if got := row[(y*w+x)*3+c]; got != pixel(i, y, x, c) {
					fail(fmt.Sprintf("img[%d,%d,%d]", y, x, c), got, pixel(i, y, x, c))
				}
			}
		}
	}
	for k, v := range row[h*w*3:] {
		if v != 0 {
			fail(fmt.Sprintf("img padding byte %d", k), v, 0)
		}
	}
	bx := b.Field("boxes").Float32()[j*12 : (j+1)*12]
	if sh := b.Shapes("boxes").Int32()[j*2 : j*2+2]; !slices.Equal(sh, []int32{int32(nBoxes(i)), 4}) {
		fail("boxes own shape", sh, []int{nBoxes(i), 4})
	}
	for k := range 12 {
		want := float32(0)
		if k < nBoxes(i)*4 {
			want = boxValue(i, k/4, k%4)
		}
		if bx[k] != want {
			fail(fmt.Sprintf("boxes element %d", k), bx[k], want)
		}
	}
	vec := b.Field("vec").Uint8()[j*8 : (j+1)*8]
	for k, v := range vec {
		if v != uint8(i+k) {
			fail("vec", vec, i)
		}
	}
	blob, _ := b.Sample("blob", j)
	if string(blob.Data) != strings.Repeat("ab", i%6) {
		fail("blob", string(blob.Data), strings.Repeat("ab", i%6))
	}
	if json {
		m, ok := b.Values("meta")[j].(map[string]any)
		if !ok || m["i"] != float64(i) {
			fail("meta", b.Values("meta")[j], i)
		}
	}
}

func collect(t *testing.T, seq iter.Seq2[*Batch, error], each func(*Batch)) int {
	t.Helper()
	n := 0
	for b, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		each(b)
		n++
	}
	return n
}

// TestLoaderRoundTrip loads every field kind through the default
// decoders and checks every value, for every order.
func TestLoaderRoundTrip(t *testing.T) {
	const n = 103
	path := writeTestFile(t, n, true)
	for _, order := range []Order{Sequential, Random, QuasiRandom} {
		l, err := NewLoader(path, Config{BatchSize: 10, Workers: 2, Order: order, Seed: 5, OpenPages: 2})
		if err != nil {
			t.Fatal(err)
		}
		var seen []int
		nb := collect(t, l.Epoch(context.Background(), 1), func(b *Batch) {
			for j := range b.Len() {
				checkSample(t, b, j, true)
			}
			seen = append(seen, b.Indices()...)
		})
		if nb != 11 || l.Len() != 11 {
			t.Fatalf("%v: %d batches (Len %d), want 11", order, nb, l.Len())
		}
		if order == Sequential && !slices.IsSorted(seen) {
			t.Fatalf("Sequential order is not sorted: %v", seen)
		}
		slices.Sort(seen)
		for i, x := range seen {
			if x != i {
				t.Fatalf("%v: epoch visited %v, want each of 0..%d once", order, seen, n-1)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// flipOp is a random op as a user would write it: it flips a
// variable-size image horizontally in place with probability 1/2.
type flipOp struct{}

func (flipOp) Name() string { return "flip" }
func (flipOp) Declare(in State, _ []State) (Decl, error) {
	if in.DType != gojit.Uint8 || len(in.Shape) != 3 {
		return Decl{}, fmt.Errorf("want a u8 [h w c] image, got %s", in)
	}
	return Decl{Out: in, Run: func(s *Sample) error {
		if s.Rand().Uint32()&1 == 0 {
			return nil
		}
		h, w, c := s.In.Shape[0], s.In.Shape[1], s.In.Shape[2]
		px := s.Out.Data
		for y := range h {
			for x := range w / 2 {
				for k := range c {
					a, b := (y*w+x)*c+k, (y*w+w-1-x)*c+k
					px[a], px[b] = px[b], px[a]
				}
			}
		}
		return nil
	}}, nil
}

// areaOp is a reference op (FFCV's RefNode): the label becomes
// id*1000 + the decoded image's height*width.
// step is the image's step it reads (0: its final value).
type areaOp struct{ step int }

func (areaOp) Name() string  { return "area" }
func (a areaOp) Refs() []Ref { return []Ref{{Field: "img", Step: a.step}} }
func (areaOp) Declare(in State, refs []State) (Decl, error) {
	if len(refs) != 1 || len(refs[0].Shape) != 3 {
		return Decl{}, fmt.Errorf("want one image reference, got %v", refs)
	}
	out := State{DType: gojit.Int64, Shape: []int{}, Compilable: true}
	return Decl{Out: out, Memory: &Alloc{DType: gojit.Int64, Shape: []int{}}, Run: func(s *Sample) error {
		s.Out.Int64()[0] = s.In.Int64()[0]*1000 + int64(s.Refs[0].Shape[0]*s.Refs[0].Shape[1])
		return nil
	}}, nil
}

// epochBytes returns every batch's bytes of the given fields, and the
// sample indices.
func epochBytes(t *testing.T, l *Loader, epoch int, fields ...string) ([]byte, []int) {
	var out []byte
	var idx []int
	collect(t, l.Epoch(context.Background(), epoch), func(b *Batch) {
		idx = append(idx, b.Indices()...)
		for _, f := range fields {
			out = append(out, bytesOf(b.Field(f))...)
			out = append(out, bytesOf(b.Shapes(f))...)
		}
	})
	return out, idx
}

// TestDeterminism: the batches' content (shuffle, random flips, the
// reference op) is the same with 1, 2 or 8 workers and any BatchesAhead,
// differs between epochs, and repeats for the same epoch.
func TestDeterminism(t *testing.T) {
	path := writeTestFile(t, 97, false)
	fields := map[string][]Op{"img": {flipOp{}}, "id": {areaOp{0}}}
	var ref []byte
	var refIdx []int
	for _, order := range []Order{Random, QuasiRandom} {
		ref = nil
		for _, workers := range []int{1, 2, 8} {
			for _, ahead := range []int{0, 1, 3} {
				l, err := NewLoader(path, Config{BatchSize: 7, Workers: workers, BatchesAhead: ahead, Order: order, Seed: 11, Fields: fields})
				if err != nil {
					t.Fatal(err)
				}
				got, idx := epochBytes(t, l, 3, "img", "id")
				if ref == nil {
					ref, refIdx = got, idx
					other, _ := epochBytes(t, l, 4, "img", "id")
					if slices.Equal(other, ref) {
						t.Fatalf("%v: epochs 3 and 4 have the same content", order)
					}
					again, _ := epochBytes(t, l, 3, "img", "id")
					if !slices.Equal(again, ref) {
						t.Fatalf("%v: epoch 3 run twice differs", order)
					}
				} else if !slices.Equal(got, ref) || !slices.Equal(idx, refIdx) {
					t.Fatalf("%v with %d workers, %d batches ahead: content differs from 1 worker, 0 ahead", order, workers, ahead)
				}
				l.Close()
			}
		}
	}
	// The reference op saw the decoded image, and the flips happened: some
	// images differ from their stored pixels, mirrored.
	l, err := NewLoader(path, Config{BatchSize: 97, Workers: 2, Seed: 11, Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	flipped := 0
	collect(t, l.Epoch(context.Background(), 0), func(b *Batch) {
		for j, i := range b.Indices() {
			h, w := imgDims(i)
			if got := b.Field("id").Int64()[j]; got != int64(i*1000+h*w) {
				t.Fatalf("sample %d: area label %d, want %d", i, got, i*1000+h*w)
			}
			v, _ := b.Sample("img", j)
			same, mirrored := true, true
			for y := range h {
				for x := range w {
					for c := range 3 {
						p := v.Data[(y*w+x)*3+c]
						same = same && p == pixel(i, y, x, c)
						mirrored = mirrored && p == pixel(i, y, w-1-x, c)
					}
				}
			}
			if !same && !mirrored {
				t.Fatalf("sample %d: image neither stored nor mirrored", i)
			}
			if !same {
				flipped++
			}
		}
	})
	if flipped < 20 || flipped > 60 {
		t.Fatalf("%d of 97 images flipped, want about half", flipped)
	}
}

// TestDistributedCoverage: for every order, the ranks' batches together
// hold every sample exactly once plus the documented padding, and every
// rank has the same number of samples.
func TestDistributedCoverage(t *testing.T) {
	const n, world = 50, 3
	path := writeTestFile(t, n, false)
	for _, order := range []Order{Sequential, Random, QuasiRandom} {
		for _, dropLast := range []bool{false, true} {
			count := map[int]int{}
			pads := 0
			for rank := range world {
				l, err := NewLoader(path, Config{BatchSize: 4, Workers: 2, Order: order, Seed: 1, Rank: rank, WorldSize: world, DropLast: dropLast, OpenPages: 1,
					Fields: map[string][]Op{"id": nil}})
				if err != nil {
					t.Fatal(err)
				}
				if l.Samples() != 17 || l.Padding() != 1 {
					t.Fatalf("rank %d: %d samples, padding %d; want 17 and 1", rank, l.Samples(), l.Padding())
				}
				got := 0
				collect(t, l.Epoch(context.Background(), 2), func(b *Batch) {
					for j, i := range b.Indices() {
						if b.Field("id").Int64()[j] != int64(i) {
							t.Fatalf("id %d at index %d", b.Field("id").Int64()[j], i)
						}
						if b.Padding(j) {
							pads++
						} else {
							count[i]++
						}
						got++
					}
				})
				want := 17
				if dropLast {
					want = 16
				}
				if got != want {
					t.Fatalf("%v rank %d: %d samples, want %d", order, rank, got, want)
				}
				l.Close()
			}
			if dropLast {
				continue // the dropped tails lose samples, by design
			}
			if len(count) != n || pads != 1 {
				t.Fatalf("%v: %d distinct samples and %d padding, want %d and 1", order, len(count), pads, n)
			}
			for i, c := range count {
				if c != 1 {
					t.Fatalf("%v: sample %d loaded %d times", order, i, c)
				}
			}
		}
	}
}

// TestSteadyStateAllocations: after the first epoch, a batch allocates
// nothing; an epoch allocates a fixed amount (goroutines, channels),
// whatever its number of batches.
func TestSteadyStateAllocations(t *testing.T) {
	path := writeTestFile(t, 400, false)
	mallocs := func(batch int) float64 {
		l, err := NewLoader(path, Config{BatchSize: batch, Workers: 2, BatchesAhead: 1, Order: Random, Fields: map[string][]Op{
			"id": nil, "half": nil, "img": {flipOp{}}, "boxes": nil, "vec": nil, "blob": nil}})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		collect(t, l.Epoch(context.Background(), 0), func(*Batch) {}) // warm up the workers' buffers
		return testing.AllocsPerRun(5, func() {
			for _, err := range l.Epoch(context.Background(), 1) {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	few, many := mallocs(100), mallocs(2) // 4 and 200 batches
	perBatch := (many - few) / 196
	t.Logf("allocations per epoch: %.0f with 4 batches, %.0f with 200: %.3f per batch", few, many, perBatch)
	if perBatch > 0.05 {
		t.Fatalf("%.3f allocations per batch in the steady state (%.0f per epoch of 4 batches, %.0f of 200)", perBatch, few, many)
	}
}

// slowOp sleeps, so that cancellation finds the workers busy.
type slowOp struct{}

func (slowOp) Name() string { return "slow" }
func (slowOp) Declare(in State, _ []State) (Decl, error) {
	return Decl{Out: in, Run: func(*Sample) error { time.Sleep(2 * time.Millisecond); return nil }}, nil
}

// TestCancelNoLeak: cancelling the context mid-epoch ends the loop with
// the context's error and leaves no goroutine behind; so does a break.
func TestCancelNoLeak(t *testing.T) {
	path := writeTestFile(t, 200, false)
	l, err := NewLoader(path, Config{BatchSize: 4, Workers: 4, BatchesAhead: 3, Fields: map[string][]Op{"vec": {slowOp{}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	var last error
	for b, err := range l.Epoch(ctx, 0) {
		if err != nil {
			last = err
			continue
		}
		if batches++; batches == 2 {
			cancel()
		}
		_ = b
	}
	if !errors.Is(last, context.Canceled) || batches != 2 {
		t.Fatalf("after cancel: %d batches, error %v; want 2 and context.Canceled", batches, last)
	}
	if g := goroutinesDownTo(before); g > before {
		t.Fatalf("%d goroutines after the cancelled epoch, %d before", g, before)
	}
	for range l.Epoch(context.Background(), 1) {
		break
	}
	if g := goroutinesDownTo(before); g > before {
		t.Fatalf("%d goroutines after a break, %d before", g, before)
	}
	// The loader still works, and Close releases it.
	if nb := collect(t, l.Epoch(context.Background(), 2), func(*Batch) {}); nb != 50 {
		t.Fatalf("%d batches after cancellations, want 50", nb)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, err := range l.Epoch(context.Background(), 3) {
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Epoch after Close: %v, want ErrClosed", err)
		}
	}
}

// goroutinesDownTo returns the goroutine count once it is at most n, or
// after a second. The loop waits for the loader's goroutines to call
// Done; each may still need a moment to exit after that.
func goroutinesDownTo(n int) int {
	g := runtime.NumGoroutine()
	for i := 0; i < 100 && g > n; i++ {
		time.Sleep(10 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	return g
}

// failOp fails on one sample.
type failOp struct{ bad int }

func (failOp) Name() string { return "fail" }
func (f failOp) Declare(in State, _ []State) (Decl, error) {
	return Decl{Out: in, Run: func(s *Sample) error {
		if s.Index == f.bad {
			return errors.New("this sample is bad")
		}
		return nil
	}}, nil
}

// TestErrors: errors name the file, the sample and what is wrong.
func TestErrors(t *testing.T) {
	path := writeTestFile(t, 30, false)
	l, err := NewLoader(path, Config{BatchSize: 4, Workers: 2, Fields: map[string][]Op{"vec": {failOp{17}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			got = err
		}
	}
	var se *SampleError
	if !errors.As(got, &se) || se.Index != 17 || se.Field != "vec" || !strings.Contains(got.Error(), path) || !strings.Contains(got.Error(), "this sample is bad") {
		t.Fatalf("error %v, want a SampleError naming %s, sample 17, field vec", got, path)
	}
	l.Close()
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{BatchSize: 0}, "BatchSize 0"},
		{Config{BatchSize: 1, Rank: 2, WorldSize: 2}, "Rank 2 of WorldSize 2"},
		{Config{BatchSize: 1, Indices: []int{3, 30}}, "Indices[1] = 30 is out of range"},
		{Config{BatchSize: 1, Fields: map[string][]Op{"nope": nil}}, `names "nope"`},
		{Config{BatchSize: 1, Fields: map[string][]Op{"vec": {flipOp{}}}}, "want a u8 [h w c] image"},
		{Config{BatchSize: 1, Fields: map[string][]Op{"id": {areaOp{1}}}}, `references field "img", which is not loaded`},
		{Config{BatchSize: 1, Fields: map[string][]Op{"id": {areaOp{1}}, "img": {flipOp{}}}}, "rewrites in place"},
		{Config{BatchSize: 1, Fields: map[string][]Op{"vec": {ImageDecoder()}}}, "cannot decode a ndarray field"},
	}
	for _, c := range cases {
		_, err := NewLoader(path, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("NewLoader(%+v): %v, want an error naming the file and containing %q", c.cfg, err, c.want)
		}
	}
}

// TestEpochsWithoutPause: Epochs gives, batch for batch, what separate
// Epoch calls give, with Batch.Epoch telling each batch's epoch.
func TestEpochsWithoutPause(t *testing.T) {
	path := writeTestFile(t, 53, false)
	l, err := NewLoader(path, Config{BatchSize: 8, Workers: 2, BatchesAhead: 2, Order: QuasiRandom, OpenPages: 1, Seed: 9,
		Fields: map[string][]Op{"img": {RandomHorizontalFlip(0.5)}, "id": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var want []byte
	for e := 2; e < 5; e++ {
		b, _ := epochBytes(t, l, e, "img", "id")
		want = append(want, b...)
	}
	var got []byte
	var epochs []int
	collect(t, l.Epochs(context.Background(), 2, 3), func(b *Batch) {
		epochs = append(epochs, b.Epoch())
		got = append(got, bytesOf(b.Field("img"))...)
		got = append(got, bytesOf(b.Shapes("img"))...)
		got = append(got, bytesOf(b.Field("id"))...)
		got = append(got, bytesOf(b.Shapes("id"))...)
	})
	if len(epochs) != 21 || epochs[0] != 2 || epochs[6] != 2 || epochs[7] != 3 || epochs[20] != 4 {
		t.Fatalf("batch epochs %v, want 7 each of 2, 3, 4", epochs)
	}
	if !slices.Equal(got, want) {
		t.Fatal("Epochs(2, 3) differs from Epoch(2), Epoch(3), Epoch(4)")
	}
}
