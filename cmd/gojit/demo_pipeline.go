package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// pipelineDemo is the figures of the demo's dataset part: a synthetic
// image dataset written with package dataset and one epoch loaded with
// package pipeline.
type pipelineDemo struct {
	Samples   int     `json:"samples"`
	Size      int     `json:"image_side"`
	FileBytes int64   `json:"file_bytes"`
	WriteNs   int64   `json:"write_ns"`
	LoadNs    int64   `json:"load_ns"` // NewLoader + one epoch
	Batches   int     `json:"batches"`
	Workers   int     `json:"workers"`
	PerSecond float64 `json:"samples_per_second"`
	Checked   int     `json:"samples_checked"`
	Bad       int     `json:"samples_wrong"` // a loaded image or label differs from what was written
	Missing   int     `json:"samples_missing"`
}

// demoPixel is the synthetic image of sample i: a gradient offset by i,
// so every loaded sample can be checked against its index.
func demoPixel(i, y, x, c int) uint8 { return uint8(i + 3*y + 5*x + 7*c) }

// demoImageSide gives sample i's size: between 24 and 32 pixels a side,
// so the loader deals with variable-size images.
func demoImageSide(i int) (h, w int) { return 24 + i%9, 32 - i%7 }

// demoPipeline writes n synthetic RGB images with labels to a temporary
// file, loads one shuffled epoch and checks every sample.
func demoPipeline(n int) (*pipelineDemo, error) {
	dir, err := os.MkdirTemp("", "gojit-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "images.gojit")
	d := &pipelineDemo{Samples: n, Size: 32, Workers: runtime.GOMAXPROCS(0)}

	start := time.Now()
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Channels: 3, MaxRes: d.Size}),
		dataset.Int("label"),
	}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		return nil, err
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			h, wd := demoImageSide(i)
			img := image.NewRGBA(image.Rect(0, 0, wd, h))
			for y := range h {
				for x := range wd {
					for c := range 3 {
						img.Pix[y*img.Stride+4*x+c] = demoPixel(i, y, x, c)
					}
					img.Pix[y*img.Stride+4*x+3] = 255
				}
			}
			if !yield(i, dataset.Sample{"image": img, "label": int64(i % 10)}) {
				return
			}
		}
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	d.WriteNs = int64(time.Since(start))
	if fi, err := os.Stat(path); err == nil {
		d.FileBytes = fi.Size()
	}

	start = time.Now()
	l, err := pipeline.NewLoader(path, pipeline.Config{BatchSize: 64, Order: pipeline.Random, Seed: 1, BatchesAhead: 2})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	seen := make([]bool, n)
	for batch, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			return nil, err
		}
		d.Batches++
		labels := batch.Field("label").Int64()
		for j, i := range batch.Indices() {
			d.Checked++
			seen[i] = true
			img, _ := batch.Sample("image", j)
			h, wd := demoImageSide(i)
			ok := labels[j] == int64(i%10) && len(img.Shape) == 3 && img.Shape[0] == h && img.Shape[1] == wd && img.Shape[2] == 3
			for y := 0; ok && y < h; y++ {
				for x := 0; ok && x < wd; x++ {
					for c := range 3 {
						ok = ok && img.Data[(y*wd+x)*3+c] == demoPixel(i, y, x, c)
					}
				}
			}
			if !ok {
				d.Bad++
			}
		}
	}
	d.LoadNs = int64(time.Since(start))
	for _, s := range seen {
		if !s {
			d.Missing++
		}
	}
	d.PerSecond = float64(d.Checked) / time.Duration(d.LoadNs).Seconds()
	return d, nil
}

// ok reports whether every sample came back as written.
func (d *pipelineDemo) ok() bool { return d.Bad == 0 && d.Missing == 0 && d.Checked == d.Samples }

// printPipelineDemo writes the dataset part of the text report.
func printPipelineDemo(w io.Writer, d *pipelineDemo) {
	section(w, "6. A dataset and one epoch through the loader")
	fmt.Fprintf(w, "  Wrote %d synthetic RGB images (24..32 x 26..32 pixels, raw) with labels: %.1f KiB in %s\n",
		d.Samples, float64(d.FileBytes)/1024, fmtDur(time.Duration(d.WriteNs)))
	fmt.Fprintf(w, "  Loaded one Random epoch: %d batches of 64 on %d workers in %s (%.0f samples/s, NewLoader included)\n",
		d.Batches, d.Workers, fmtDur(time.Duration(d.LoadNs)), d.PerSecond)
	verdict := "every image and label as written, each sample once"
	if !d.ok() {
		verdict = fmt.Sprintf("MISMATCH: %d wrong, %d missing of %d", d.Bad, d.Missing, d.Samples)
	}
	fmt.Fprintf(w, "  Checked %d samples: %s.\n", d.Checked, verdict)
}

// demoPipelineSamples is the size of the demo's dataset.
const demoPipelineSamples = 2000
