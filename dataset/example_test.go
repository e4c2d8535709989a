package dataset_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"log"
	"os"
	"path/filepath"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// Example writes a small dataset of images, labels and variable-size box
// arrays, then reads it back.
func Example() {
	dir, err := os.MkdirTemp("", "dataset-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "train.ds")

	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Encoding: dataset.Raw, Channels: 1}),
		dataset.Int("label"),
		dataset.NDArrayVar("boxes", gojit.Float32, 10, 4),
	}}
	w, err := dataset.Create(path, schema, dataset.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	samples := func(yield func(int, dataset.Sample) bool) {
		for i := range 3 {
			img := image.NewGray(image.Rect(0, 0, 4+i, 2))
			img.SetGray(0, 0, color.Gray{Y: uint8(100 + i)})
			boxes := make([]float32, 4*i) // i boxes
			for j := range boxes {
				boxes[j] = float32(j)
			}
			s := dataset.Sample{"image": img, "label": i * 10, "boxes": gojit.FromFloat32(boxes, i, 4)}
			if !yield(i, s) {
				return
			}
		}
	}
	if err := w.Write(context.Background(), samples); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := dataset.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for i := range r.Len() {
		s, err := r.Sample(i)
		if err != nil {
			log.Fatal(err)
		}
		img := s["image"].(*image.Gray)
		boxes := s["boxes"].(*gojit.Array)
		fmt.Println(i, s["label"], img.Bounds().Size(), img.GrayAt(0, 0).Y, boxes.Shape())
	}
	// Output:
	// 0 0 (4,2) 100 [0 4]
	// 1 10 (5,2) 101 [1 4]
	// 2 20 (6,2) 102 [2 4]
}

// ExampleReader_AppendRawInto reads one field's stored bytes without
// decoding and without allocating, as a loader does.
func ExampleReader_AppendRawInto() {
	dir, _ := os.MkdirTemp("", "dataset-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "emb.ds")
	schema := dataset.Schema{Fields: []dataset.Field{dataset.NDArray("emb", gojit.Uint8, 2, 2)}}
	w, _ := dataset.Create(path, schema)
	w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		yield(0, dataset.Sample{"emb": gojit.FromUint8([]uint8{1, 2, 3, 4}, 2, 2)})
	})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := dataset.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 0, 1024)
	meta := dataset.FieldMeta{Shape: make([]int, 0, dataset.MaxDims)}
	field, _ := r.Schema().Index("emb")
	buf, err = r.AppendRawInto(buf[:0], 0, field, &meta)
	if err != nil {
		log.Fatal(err)
	}
	first, n := r.SamplePages(0)
	fmt.Println(buf, meta.Shape, meta.Size, first, n)
	// Output: [1 2 3 4] [2 2] 4 0 1
}

// ExampleReader_Maxima sizes a buffer for any sample of a variable-size
// field from the maxima the file records, without reading the samples.
func ExampleReader_Maxima() {
	dir, _ := os.MkdirTemp("", "dataset-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "img.ds")
	schema := dataset.Schema{Fields: []dataset.Field{
		dataset.Image("image", dataset.ImageOptions{Channels: 3}),
		dataset.Bytes("caption"),
	}}
	w, _ := dataset.Create(path, schema)
	w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		_ = yield(0, dataset.Sample{"image": image.NewRGBA(image.Rect(0, 0, 8, 3)), "caption": "a wide one"}) &&
			yield(1, dataset.Sample{"image": image.NewRGBA(image.Rect(0, 0, 2, 5)), "caption": "tall"})
	})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := dataset.Open(path) // checks the maxima against every sample's metadata
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	img, caption := r.Maxima(0), r.Maxima(1)
	fmt.Println("image", img.Shape, img.Size, "bytes")
	fmt.Println("caption", caption.Shape, caption.Size, "bytes")
	// Output:
	// image [5 8 3] 72 bytes
	// caption [10] 10 bytes
}
