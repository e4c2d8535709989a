package gojit_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gojit/gojit"
)

// A dynamic batch axis: one kernel serves every batch size.
func ExampleWithDynamicDim() {
	f, _ := gojit.Compile(func(x, w *gojit.Tensor) *gojit.Tensor {
		return x.Mul(w).Sum(1) // one dot product per row
	}, gojit.WithDynamicDim(0, 0))
	w := gojit.FromFloat32([]float32{1, 2, 3}, 3)
	for _, batch := range [][]float32{
		{1, 1, 1},
		{1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 2, 2},
	} {
		out, err := f.Call(gojit.FromFloat32(batch, len(batch)/3, 3), w)
		if err != nil {
			panic(err)
		}
		fmt.Println(out[0].Shape(), out[0].Float32())
	}
	// Output:
	// [1] [6]
	// [4] [1 2 3 12]
}

// A two-layer perceptron over a batch of any size: one kernel for every
// batch size, the matmuls included.
func ExampleWithDynamicDim_mlp() {
	mlp := func(x, w1, b1, w2, b2 *gojit.Tensor) *gojit.Tensor {
		h := x.MatMul(w1).Add(b1).Relu()
		return h.MatMul(w2).Add(b2).Relu()
	}
	f, _ := gojit.Compile(mlp, gojit.WithDynamicDim(0, 0)) // argument 0, axis 0: the batch
	w1 := gojit.FromFloat32([]float32{1, -1, 0, 2, 1, -1}, 2, 3)
	b1 := gojit.FromFloat32([]float32{0, 1, 0}, 3)
	w2 := gojit.FromFloat32([]float32{1, 0, 2, 1, -1, 1}, 3, 2)
	b2 := gojit.FromFloat32([]float32{0, -1}, 2)
	for _, x := range [][]float32{
		{1, 2},
		{1, 2, 3, 4, -1, 0},
	} {
		out, err := f.Call(gojit.FromFloat32(x, len(x)/2, 2), w1, b1, w2, b2)
		if err != nil {
			panic(err)
		}
		fmt.Println(out[0].Shape(), out[0].Float32())
	}
	// Output:
	// [1 2] [9 1]
	// [3 2] [9 1 15 1 4 1]
}

// FuncStats.LastMiss says why the latest call traced and compiled.
func ExampleFunc_Stats() {
	f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Exp() })
	f.Call(gojit.New(gojit.Float32, 32, 128))
	fmt.Println(f.Stats().LastMiss)
	f.Call(gojit.New(gojit.Float32, 64, 128))
	fmt.Println(f.Stats().LastMiss)
	// Output:
	// first call
	// arg 0 shape [32,128] → [64,128]
}

// ConfigureCache chooses the disk cache's directory and the in-memory
// limits; CacheStats reports what the cache did.
func ExampleConfigureCache() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	err := gojit.ConfigureCache(gojit.CacheConfig{
		Dir:        filepath.Join(dir, "gojit"),
		MaxEntries: 100,
		Logger:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println("disk cache off:", err)
	}
	defer gojit.ConfigureCache(gojit.CacheConfig{})
	fmt.Println(gojit.CacheStats().DiskDir == filepath.Join(dir, "gojit"))
	// Output: true
}
