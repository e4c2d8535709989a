package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"

	"github.com/gojit/gojit/cmd/gojit/internal/synthimg"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/jpeg"
)

// synthOpts are `gojit dataset synth-jpeg`'s settings.
type synthOpts struct {
	dir      string
	n        int
	size     int
	exact    bool
	quality  int
	seed     uint64
	encoding string
	out      string
	workers  int
	progress bool
}

// synthFileName is image i's file name in the set's directory.
func synthFileName(i int) string { return fmt.Sprintf("%05d.jpg", i) }

// datasetSynth is `gojit dataset synth-jpeg DIR [flags]`.
func datasetSynth(args []string, stdout, stderr io.Writer) int {
	fs := actionFlags("synth-jpeg", "DIR [--n N] [--size 256] [--quality 90] [--seed S] [--encoding jpeg|raw] [--exact] [--out FILE]",
		"Write N synthetic natural-looking RGB JPEGs (gradients, shapes, edges, mild noise; short side 224/256..320/256 of --size,\n"+
			"aspect 3:4..4:3, 4:2:0) named 00000.jpg... into DIR with labels.csv (file,label,width,height), and a dataset file of them\n"+
			"(by default DIR/images.gojit; its JPEG bytes are the files' bytes). The set is a function of --seed", stderr)
	o := synthOpts{}
	fs.IntVar(&o.n, "n", 1000, "number of images")
	fs.IntVar(&o.size, "size", 256, "nominal image size")
	fs.BoolVar(&o.exact, "exact", false, "make every image exactly size by size")
	fs.IntVar(&o.quality, "quality", 90, "JPEG quality, 1 to 100")
	seed := fs.Int64("seed", 1, "seed of the set")
	fs.StringVar(&o.encoding, "encoding", "jpeg", "the dataset's image encoding: jpeg (the files' bytes) or raw (their pixels)")
	fs.StringVar(&o.out, "out", "", "the dataset file (default DIR/images.gojit)")
	fs.IntVar(&o.workers, "workers", 0, "workers (0: one per CPU)")
	if code := parseAction(fs, args, &o.dir, stderr); code >= 0 {
		return code
	}
	o.seed = uint64(*seed)
	switch {
	case o.n < 1:
		fmt.Fprintf(stderr, "gojit dataset synth-jpeg: --n %d, want at least 1\n", o.n)
		return exitUsage
	case o.quality < 1 || o.quality > 100:
		fmt.Fprintf(stderr, "gojit dataset synth-jpeg: --quality %d, want 1 to 100\n", o.quality)
		return exitUsage
	case o.encoding != "jpeg" && o.encoding != "raw":
		fmt.Fprintf(stderr, "gojit dataset synth-jpeg: --encoding %q: want jpeg or raw\n", o.encoding)
		return exitUsage
	case o.workers < 0:
		fmt.Fprintf(stderr, "gojit dataset synth-jpeg: --workers must be at least 0\n")
		return exitUsage
	}
	if o.out == "" {
		o.out = filepath.Join(o.dir, "images.gojit")
	}
	o.progress = true
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	checked, err := writeSynth(ctx, o)
	if err != nil {
		return fail(stderr, "dataset synth-jpeg", err)
	}
	fmt.Fprintf(stdout, "wrote %d JPEGs and labels.csv to %s and %s", o.n, o.dir, o.out)
	if checked > 0 {
		fmt.Fprintf(stdout, " (its JPEG bytes are the files', all %d checked)", checked)
	}
	fmt.Fprintln(stdout)
	return exitOK
}

// synthRow is what labels.csv records of one image.
type synthRow struct{ label, w, h int }

// writeSynth draws the set, writes the files, labels.csv and the dataset,
// and with JPEG encoding checks that the dataset stores the files' bytes;
// it returns the number of samples so checked.
func writeSynth(ctx context.Context, o synthOpts) (int, error) {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return 0, err
	}
	opt := synthimg.Options{Size: o.size, Exact: o.exact}
	if _, err := synthimg.Draw(o.seed, 0, opt); err != nil {
		return 0, err
	}
	enc := dataset.JPEG
	if o.encoding == "raw" {
		enc = dataset.Raw
	}
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Encoding: enc, Quality: o.quality, Channels: 3}),
		dataset.Int("label"),
	}}
	wopts := []dataset.WriteOption{dataset.WithTotal(o.n), dataset.WithProgress(o.progress)}
	if o.workers > 0 {
		wopts = append(wopts, dataset.WithWorkers(o.workers))
	}
	w, err := dataset.Create(o.out, schema, wopts...)
	if err != nil {
		return 0, err
	}
	rows := make([]synthRow, o.n) // each written by its own sample's load
	samples := func(yield func(int, dataset.Sample) bool) {
		for i := range o.n {
			load := func() (image.Image, error) {
				img, err := synthimg.Draw(o.seed, i, opt)
				if err != nil {
					return nil, err
				}
				// The writer encodes the same pixels with the same encoder
				// and quality, which gives the same bytes (checked below).
				data, err := jpeg.Encode(nil, img.Pix, img.W, img.H, 3, o.quality)
				if err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(o.dir, synthFileName(i)), data, 0o644); err != nil {
					return nil, err
				}
				rows[i] = synthRow{img.Label, img.W, img.H}
				return rgbaOf(img), nil
			}
			if !yield(i, dataset.Sample{"image": load, "label": int64(synthimg.Label(o.seed, i))}) {
				return
			}
		}
	}
	if err := w.Write(ctx, samples); err != nil {
		w.Close()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	if err := writeSynthLabels(filepath.Join(o.dir, "labels.csv"), rows); err != nil {
		return 0, err
	}
	if enc != dataset.JPEG {
		return 0, nil
	}
	return checkSynthBytes(o.out, o.dir)
}

// rgbaOf wraps an image's RGB pixels as an opaque *image.RGBA.
func rgbaOf(img *synthimg.Image) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, img.W, img.H))
	for i, j := 0, 0; i < len(img.Pix); i, j = i+3, j+4 {
		m.Pix[j], m.Pix[j+1], m.Pix[j+2], m.Pix[j+3] = img.Pix[i], img.Pix[i+1], img.Pix[i+2], 255
	}
	return m
}

func writeSynthLabels(path string, rows []synthRow) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write([]string{"file", "label", "width", "height"})
	for i, r := range rows {
		cw.Write([]string{synthFileName(i), strconv.Itoa(r.label), strconv.Itoa(r.w), strconv.Itoa(r.h)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return writeAtomic(path, b.Bytes())
}

// checkSynthBytes checks that every sample's stored JPEG is its file's
// bytes and returns the number checked.
func checkSynthBytes(path, dir string) (int, error) {
	r, err := dataset.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var raw []byte
	for i := range r.Len() {
		raw, _, err = r.AppendRaw(raw[:0], i, 0)
		if err != nil {
			return i, err
		}
		file, err := os.ReadFile(filepath.Join(dir, synthFileName(i)))
		if err != nil {
			return i, err
		}
		if !bytes.Equal(raw, file) {
			return i, fmt.Errorf("%s: sample %d's JPEG (%d bytes) differs from %s (%d bytes): the encoder is not deterministic in this build",
				path, i, len(raw), synthFileName(i), len(file))
		}
	}
	return r.Len(), nil
}
