package gojit_test

import (
	"fmt"
	"log"

	"github.com/gojit/gojit"
)

// Vmap turns a function over one sample into one over a batch: here each
// row is centred on its own mean.
func ExampleVmap() {
	centre := func(x *gojit.Tensor) *gojit.Tensor { return x.Sub(x.Mean()) } // x: one row
	f, err := gojit.Compile(gojit.Vmap(centre))
	if err != nil {
		log.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32([]float32{1, 2, 3, 10, 20, 30}, 2, 3))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out[0].Shape(), out[0].Float32())
	// Output:
	// [2 3] [-1 0 1 -10 0 10]
}
