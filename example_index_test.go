package gojit_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gojit/gojit"
)

// Take gathers rows of a table: an embedding lookup. Negative indices
// count from the end; an index out of range is an error naming the op,
// the line that traced it, the index and where it is.
func ExampleTensor_Take() {
	lookup, err := gojit.Compile(func(table, ids *gojit.Tensor) *gojit.Tensor {
		return table.Take(ids, 0)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	table := gojit.FromFloat32([]float32{0, 0.5, 1, 1.5, 2, 2.5}, 3, 2)
	out, err := lookup.Call(table, gojit.FromInt32([]int32{2, 0, -1}, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Float32())
	_, err = lookup.Call(table, gojit.FromInt32([]int32{2, 3, 0}, 3))
	fmt.Println(errors.Is(err, gojit.ErrIndexOutOfRange))
	msg := err.Error() // from the file:line on (the directory differs between checkouts)
	fmt.Println(msg[strings.Index(msg, "example_index_test.go"):])
	// Output:
	// [2 2.5 0 0.5 2 2.5]
	// true
	// example_index_test.go:16: Take: index 3 at indices[1] is out of range for axis 0 of size 3 (valid: -3 to 2)
}

// Random augmentation of a batch of images: each sample is flipped left to
// right with probability 1/2 and its brightness scaled by a factor in
// [0.8, 1.2). The draws come from one key per batch and depend only on the
// sample's index: the first two samples of a batch of four get the same
// augmentation as a batch of those two alone, on any number of threads.
func Example_randomAugmentation() {
	augment, err := gojit.Compile(func(key, images *gojit.Tensor) *gojit.Tensor {
		s := images.Shape() // [batch, height, width]
		b, w := s[0], s[2]
		keys := gojit.SplitKey(key, 2)
		flip := gojit.Bernoulli(keys.Take(gojit.Scalar(0), 0), gojit.Scalar(0.5), b, 1, 1)
		gain := gojit.Uniform(keys.Take(gojit.Scalar(1), 0), gojit.Float32, b, 1, 1).Mul(gojit.Scalar(0.4)).Add(gojit.Scalar(0.8))
		reversed := gojit.Iota(gojit.Int32, 0, w).Neg().Add(gojit.Scalar(float64(w - 1)))
		flipped := gojit.Where(flip, images.Take(reversed, 2), images)
		return flipped.Mul(gain)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	key := gojit.RandomKey(2026)
	// Four 1x3 "images" whose pixels are 1, 2, 3.
	px := []float32{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}
	four, err := augment.Call(key, gojit.FromFloat32(px, 4, 1, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	two, err := augment.Call(key, gojit.FromFloat32(px[:6], 2, 1, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 4 {
		fmt.Printf("sample %d: %.3f\n", i, four[0].Float32()[3*i:3*i+3])
	}
	fmt.Println("first two alone:", fmt.Sprintf("%.3f", two[0].Float32()))
	// Output:
	// sample 0: [0.955 1.909 2.864]
	// sample 1: [0.909 1.818 2.727]
	// sample 2: [2.915 1.943 0.972]
	// sample 3: [3.121 2.081 1.040]
	// first two alone: [0.955 1.909 2.864 0.909 1.818 2.727]
}

// ScatterAdd with duplicate indices: a histogram of bucket numbers.
func ExampleTensor_ScatterAdd() {
	hist, err := gojit.Compile(func(buckets *gojit.Tensor) *gojit.Tensor {
		return gojit.Full(gojit.Int32, 0, 4).ScatterAdd(buckets, gojit.Scalar(1), 0)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := hist.Call(gojit.FromInt64([]int64{0, 3, 3, 1, 3, -1}, 6))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Int32())
	// Output:
	// [1 1 0 4]
}

// TakeAlongAxis picks one element per row: here each row's largest value,
// through its ArgMax.
func ExampleTensor_TakeAlongAxis() {
	best, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		i := x.ArgMax(1).Reshape(-1, 1)
		return x.TakeAlongAxis(i, 1).Reshape(-1)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := best.Call(gojit.FromFloat32([]float32{3, 9, 1, 7, 2, 8}, 2, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Float32())
	// Output:
	// [9 8]
}

// DynamicSlice cuts a window at offsets known only at run time; offsets
// past the edge are clamped, so the window always fits.
func ExampleTensor_DynamicSlice() {
	crop, err := gojit.Compile(func(img, top, left *gojit.Tensor) *gojit.Tensor {
		return img.DynamicSlice([]*gojit.Tensor{top, left}, []int{2, 2})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	img := gojit.FromUint8([]uint8{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}, 3, 4)
	for _, at := range [][2]int32{{1, 1}, {5, -2}} {
		out, err := crop.Call(img, gojit.ScalarArray(float64(at[0]), gojit.Int32), gojit.ScalarArray(float64(at[1]), gojit.Int32))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(at, out[0].Uint8())
	}
	// Output:
	// [1 1] [11 12 21 22]
	// [5 -2] [10 11 20 21]
}

// Uniform draws depend only on the key and the position: a longer draw
// extends a shorter one, and RandomInt and Normal are drawn from keys
// split from it.
func ExampleUniform() {
	draw, err := gojit.Compile(func(key *gojit.Tensor, n int) []*gojit.Tensor {
		keys := gojit.SplitKey(key, 2)
		return []*gojit.Tensor{
			gojit.Uniform(key, gojit.Float32, n),
			gojit.RandomInt(keys.Take(gojit.Scalar(0), 0), 1, 7, gojit.Int32, n),
			gojit.Normal(keys.Take(gojit.Scalar(1), 0), gojit.Float64, n),
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	key := gojit.RandomKey(1)
	for _, n := range []int{3, 5} {
		out, err := draw.Call(key, n)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%.4f %v %.4f\n", out[0].Float32(), out[1].Int32(), out[2].Float64())
	}
	// Output:
	// [0.8903 0.8947 0.5857] [1 2 4] [-0.1799 1.1907 0.2564]
	// [0.8903 0.8947 0.5857 0.7113 0.6720] [1 2 4 4 1] [-0.1799 1.1907 0.2564 -0.3266 -1.5708]
}
