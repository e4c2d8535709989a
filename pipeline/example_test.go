package pipeline_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// scale is a user op: it converts a u8 image to float32 in [0, 1], into
// memory of its own.
type scale struct{}

func (scale) Name() string { return "scale" }

func (scale) Declare(in pipeline.State, _ []pipeline.State) (pipeline.Decl, error) {
	if in.DType != gojit.Uint8 {
		return pipeline.Decl{}, fmt.Errorf("want u8 pixels, got %s", in)
	}
	out := in
	out.DType = gojit.Float32
	return pipeline.Decl{
		Out:    out,
		Memory: &pipeline.Alloc{DType: gojit.Float32, Shape: in.Shape},
		Run: func(s *pipeline.Sample) error {
			dst := s.Out.Float32()
			for i, p := range s.In.Uint8() {
				dst[i] = float32(p) / 255
			}
			copy(s.Out.Shape, s.In.Shape)
			return nil
		},
	}, nil
}

// pixels is the label as a reference op: the decoded image's pixel count.
type pixels struct{}

func (pixels) Name() string         { return "pixels" }
func (pixels) Refs() []pipeline.Ref { return []pipeline.Ref{{Field: "image", Step: 1}} }
func (pixels) Declare(in pipeline.State, _ []pipeline.State) (pipeline.Decl, error) {
	out := pipeline.State{DType: gojit.Int64, Shape: []int{}}
	return pipeline.Decl{Out: out, Memory: &pipeline.Alloc{DType: gojit.Int64, Shape: []int{}},
		Run: func(s *pipeline.Sample) error {
			img := s.Refs[0]
			s.Out.Int64()[0] = int64(img.Shape[0] * img.Shape[1])
			return nil
		}}, nil
}

// Example writes a dataset of 6 grayscale images of different sizes and
// loads it in batches of 4 on rank 1 of 2: each rank gets 3 samples.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "images.gojit")

	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Channels: 1, MaxRes: 4}),
		dataset.Int("label"),
	}}
	w, err := dataset.Create(path, schema, dataset.WithProgress(false))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range 6 {
			img := image.NewGray(image.Rect(0, 0, 1+i%4, 1+i%3)) // w x h
			for k := range img.Pix {
				img.Pix[k] = uint8(51 * (k % 6))
			}
			img.Set(0, 0, color.Gray{255})
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

	// A field the file does not have is reported by name.
	if _, err := pipeline.NewLoader(path, pipeline.Config{BatchSize: 4, Fields: map[string][]pipeline.Op{"size": nil}}); err != nil {
		fmt.Println(strings.ReplaceAll(err.Error(), path, "images.gojit"))
	}

	// The image scaled to [0, 1]; the label replaced by the image's pixel
	// count, read through a reference to the decoded image.
	l, err := pipeline.NewLoader(path, pipeline.Config{
		BatchSize: 4, Workers: 2, Order: pipeline.Random, Seed: 42,
		Rank: 1, WorldSize: 2,
		Fields: map[string][]pipeline.Op{
			"image": {scale{}},
			"label": {pixels{}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	st, _ := l.State("image")
	fmt.Println("image:", st)
	for batch, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("batch", batch.Number(), "samples", batch.Indices(), "shape", batch.Field("image").Shape())
		for j := range batch.Len() {
			v, _ := batch.Sample("image", j)
			fmt.Printf("  sample %d: %v pixels=%d first=%.0f\n", batch.Indices()[j], v.Shape,
				batch.Field("label").Int64()[j], v.Float32()[0])
		}
	}
	// Output:
	// pipeline: images.gojit: Config.Fields names "size", which the file does not have (its fields: "image", "label")
	// image: f32[<=4 <=4 <=1]
	// batch 0 samples [5 1 0] shape [3 4 4 1]
	//   sample 5: [3 2 1] pixels=6 first=1
	//   sample 1: [2 2 1] pixels=4 first=1
	//   sample 0: [1 1 1] pixels=1 first=1
}
