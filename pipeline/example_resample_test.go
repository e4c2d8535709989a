package pipeline_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"

	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// ExampleAntialias shrinks a 12x12 image of one-pixel vertical stripes
// (white, black, white, ...) to 4x4, three times smaller. Bilinear
// sampling lands on single columns and keeps full-contrast stripes that
// are not in the image (aliasing); Antialias averages each output
// pixel's footprint, as torchvision's and PIL's resize do, and gives grey.
func ExampleAntialias() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "stripes.gojit")
	schema := dataset.Schema{Fields: []dataset.Field{dataset.Image("image", dataset.ImageOptions{Channels: 1})}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		img := image.NewGray(image.Rect(0, 0, 12, 12))
		for k := range img.Pix {
			if k%2 == 0 {
				img.Pix[k] = 255
			}
		}
		yield(0, dataset.Sample{"image": img})
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, opts := range [][]pipeline.CropOption{nil, {pipeline.Antialias()}} {
		l, err := pipeline.NewLoader(path, pipeline.Config{BatchSize: 1, Fields: map[string][]pipeline.Op{
			"image": {pipeline.CenterCropJPEG(4, 1, opts...)},
		}})
		if err != nil {
			fmt.Println(err)
			return
		}
		for b, err := range l.Epoch(context.Background(), 0) {
			if err != nil {
				fmt.Println(err)
				break
			}
			fmt.Println("first row:", b.Field("image").Uint8()[:4])
		}
		l.Close()
	}
	// Output:
	// first row: [0 255 0 255]
	// first row: [128 142 113 128]
}
