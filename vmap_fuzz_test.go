package gojit_test

import (
	"slices"
	"testing"

	"github.com/gojit/gojit"
)

// FuzzVmap writes a random one-parameter program with the builder of
// FuzzCompiledVsInterpreter and checks gojit.Vmap of it on a batch of
// three samples against the program compiled on its own and run on each
// sample: the same error, or results of the same dtype and shape, equal
// within the program's precision (exact values bit for bit).
func FuzzVmap(f *testing.F) {
	f.Add([]byte{0, 4, 5, 1, 0, 2, 0, 5, 0, 0x02})
	f.Add([]byte{0, 4, 6, 9, 6, 0, 1, 1, 2, 1, 6, 0, 2, 3, 1, 4, 2, 1, 0, 0, 6, 0, 6, 1, 0, 0, 6, 0, 0, 1})
	f.Add([]byte{0, 3, 5, 11, 7, 0, 0, 0, 5, 2, 0, 0x01})
	f.Add([]byte{0, 5, 6, 13, 7, 0, 2, 0, 1, 7, 0, 3, 1, 2, 5, 1, 2, 1, 2, 0})
	f.Add([]byte{0, 4, 5, 1, 7, 4, 0, 0, 1, 0, 7, 4, 0, 0, 2, 0, 1, 7, 5, 0, 1, 4, 2, 0, 7, 4, 1, 3, 5, 3, 7, 5, 2, 0, 0, 1})
	f.Add([]byte{0, 4, 5, 1, 0xD8, 3, 1, 0, 2, 0xDA, 1, 2, 0, 1, 0xDC, 0, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		data = append([]byte{0}, data[1:]...) // one parameter
		args, fn, specs, _ := fuzzProgram(data)
		x := args[0]
		if slices.Contains(x.Shape(), 40000) {
			return // the large shape: three samples of it are slow, not different
		}
		// The program's first result, of one sample.
		one := func(x *gojit.Tensor) *gojit.Tensor {
			return fn.(func(*gojit.Tensor) []*gojit.Tensor)(x)[0]
		}
		// Three samples: x and two others of its dtype and shape, stacked.
		samples := []*gojit.Array{x, randArray(x.DType(), 7, 0.2, x.Shape()...), randArray(x.DType(), 8, 0.2, x.Shape()...)}
		stack, err := gojit.Compile(func(a, b, c *gojit.Tensor) *gojit.Tensor {
			s := append([]int{1}, a.Shape()...)
			return gojit.Concat(0, a.Reshape(s...), b.Reshape(s...), c.Reshape(s...))
		})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := stack.Call(samples[0], samples[1], samples[2])
		if err != nil {
			t.Fatal(err)
		}
		vm, err := gojit.Compile(gojit.Vmap(one))
		if err != nil {
			t.Fatal(err)
		}
		got, verr := vm.Call(batch[0])
		ref, err := gojit.Compile(one)
		if err != nil {
			t.Fatal(err)
		}
		var per []*gojit.Array
		var perr error
		for _, s := range samples {
			o, err := ref.Call(s)
			if err != nil {
				perr = err
				break
			}
			per = append(per, o[0])
		}
		switch {
		case verr != nil && perr != nil:
			return // the same program fails both ways (messages may differ: a batched index)
		case verr != nil || perr != nil:
			t.Fatalf("vmap error %v, per-sample error %v", verr, perr)
		}
		want, err := stack.Call(per[0], per[1], per[2])
		if err != nil {
			t.Fatal(err)
		}
		s := (*specs)[0]
		g, w := got[0], want[0]
		if g.DType() != w.DType() || !slices.Equal(g.Shape(), w.Shape()) {
			t.Fatalf("vmap gives %s%v, per sample %s%v", g.DType(), g.Shape(), w.DType(), w.Shape())
		}
		if s.chaos || s.bound != nil {
			return // precision the program does not pin down
		}
		if d := diffArrays(g, w, s.tol); d != "" {
			t.Errorf("vmap differs from per sample: %s", d)
		}
	})
}
