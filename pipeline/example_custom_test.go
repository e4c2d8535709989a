package pipeline_test

import (
	"context"
	"fmt"
	"image"
	"log"
	"os"
	"path/filepath"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/pipeline"
)

// Custom ops: a TensorOp written with gojit's tensor operations over one
// sample (here, inverting an image; a second argument would receive the
// sample's random key), batched and fused by gojit into the compiled
// stage with the crop's resampling, and a FuncOp in plain Go (here, each
// image's mean, a Float64 scalar), which runs in a plain Go stage after
// it.
func Example_customOps() {
	dir, err := os.MkdirTemp("", "custom")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gray.gojit")
	w, err := dataset.Create(path, dataset.Schema{Fields: []dataset.Field{
		dataset.Image("img", dataset.ImageOptions{Channels: 1}),
	}}, dataset.WithProgress(false))
	if err != nil {
		log.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range 3 {
			g := image.NewGray(image.Rect(0, 0, 4, 4))
			for k := range g.Pix {
				g.Pix[k] = uint8(10*i + k) // mean 10*i + 7.5
			}
			if !yield(i, dataset.Sample{"img": g}) {
				return
			}
		}
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		log.Fatal(err)
	}

	invert := func(x *gojit.Tensor) *gojit.Tensor { return gojit.Scalar(255).Sub(x) }
	mean := pipeline.FuncOp("mean",
		func(in pipeline.State) (pipeline.State, error) {
			return pipeline.State{DType: gojit.Float64, Shape: []int{}, Compilable: true}, nil
		},
		func(s *pipeline.Sample) error {
			sum := 0
			for _, v := range s.In.Uint8() {
				sum += int(v)
			}
			s.Out.Float64()[0] = float64(sum) / float64(len(s.In.Data))
			return nil
		})
	l, err := pipeline.NewLoader(path, pipeline.Config{BatchSize: 3, Fields: map[string][]pipeline.Op{
		"img": {pipeline.CenterCropJPEG(4, 1), pipeline.TensorOp(invert), mean},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	// With LLVM, l.Stages() lists a plain Go stage (the crop's decode), a
	// compiled one (the crop's resampling and invert, one function per
	// batch) and, in a second pass, a plain Go one (mean). A TensorOp
	// that cannot be batched would run per sample, and its stage's Notes
	// would say why; here there is none.
	for _, s := range l.Stages() {
		for _, note := range s.Notes {
			fmt.Println(note)
		}
	}
	for b, err := range l.Epoch(context.Background(), 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Field("img").Float64()) // 255 - (10*i + 7.5)
	}
	// Output:
	// [247.5 237.5 227.5]
}
