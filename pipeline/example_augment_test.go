package pipeline_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// Example_augment loads four flat-coloured RGB images with their labels:
// each image is shifted by up to a pixel, has a 2x2 square cut out,
// its brightness, contrast and saturation jittered, and is mixed with its
// partner in the batch (position j with n-1-j); its label becomes the
// soft target mixed with the same weight. Where the cutout and the shift
// leave the colour alone, a pixel is lambda*own + (1-lambda)*partner's.
func Example_augment() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "images.gojit")
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Channels: 3, MaxRes: 6}),
		dataset.Int("label"),
	}}
	colours := []color.RGBA{{200, 0, 0, 255}, {0, 200, 0, 255}, {0, 0, 200, 255}, {100, 100, 100, 255}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i, c := range colours {
			img := image.NewRGBA(image.Rect(0, 0, 6, 6))
			for k := 0; k < len(img.Pix); k += 4 {
				img.Pix[k], img.Pix[k+1], img.Pix[k+2], img.Pix[k+3] = c.R, c.G, c.B, c.A
			}
			if !yield(i, dataset.Sample{"image": img, "label": int64(i)}) {
				return
			}
		}
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		fmt.Println(err)
		return
	}

	l, err := pipeline.NewLoader(path, pipeline.Config{
		BatchSize: 4, Seed: 1,
		Fields: map[string][]pipeline.Op{
			"image": {
				pipeline.RandomTranslate(1, [3]uint8{0, 0, 0}),
				pipeline.Cutout(2, [3]uint8{128, 128, 128}),
				pipeline.ColorJitter(0.2, 0.2, 0.2),
				pipeline.ImageMixup(0.4), // cross-sample: a kernel over the batch
			},
			"label": {pipeline.LabelMixup(0.4, 4)},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	for _, f := range l.Fields() {
		st, _ := l.State(f)
		fmt.Println(f, st)
	}
	for batch, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			fmt.Println(err)
			return
		}
		labels := batch.Field("label").Float32()
		px := batch.Field("image").Uint8()
		for j, i := range batch.Indices() {
			c := px[j*6*6*3+(3*6+3)*3:][:3] // pixel (3, 3)
			fmt.Printf("sample %d: label %.3f pixel (3,3) %v\n", i, labels[j*4:j*4+4], c)
		}
	}
	// Output:
	// image u8[<=6 <=6 <=3]
	// label f32[4]
	// sample 0: label [0.777 0.000 0.000 0.223] pixel (3,3) [199 19 19]
	// sample 1: label [0.000 0.024 0.976 0.000] pixel (3,3) [3 8 166]
	// sample 2: label [0.000 0.976 0.024 0.000] pixel (3,3) [7 204 11]
	// sample 3: label [0.223 0.000 0.000 0.777] pixel (3,3) [117 65 65]
}
