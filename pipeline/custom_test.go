package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestTensorOpRandom: a TensorOp drawing from its key gives, for each
// sample, what the same function compiled on its own gives with the key
// replayed from the sample's Rand, and the same batches with 1 and 2
// workers; a function of the wrong type or a variable-size input is
// refused.
func TestTensorOpRandom(t *testing.T) {
	path := writeImageFile(t, 10)
	jitter := func(x, key *gojit.Tensor) *gojit.Tensor {
		return x.Cast(gojit.Float32).Mul(gojit.Uniform(key, gojit.Float32, 8, 8, 3))
	}
	crop, err := NewLoader(path, Config{BatchSize: 5, Seed: 9, Fields: map[string][]Op{"raw": {CenterCropJPEG(8, 1)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer crop.Close()
	crops := map[int][]byte{}
	collect(t, crop.Epoch(context.Background(), 3), func(b *Batch) {
		for j, i := range b.Indices() {
			v, _ := b.Sample("raw", j)
			crops[i] = append([]byte{}, v.Data...)
		}
	})
	ref, err := gojit.Compile(jitter)
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, workers := range []int{1, 2} {
		l, err := NewLoader(path, Config{BatchSize: 5, Seed: 9, Workers: workers, Fields: map[string][]Op{"raw": {CenterCropJPEG(8, 1), TensorOp(jitter)}}})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := epochBytes(t, l, 3, "raw")
		if first == nil {
			first = got
			collect(t, l.Epoch(context.Background(), 3), func(b *Batch) {
				for j, i := range b.Indices() {
					var r Rand
					r.reset(opKey(9, "raw", 1), i, 3)
					key := gojit.FromInt32([]int32{int32(r.Uint32()), int32(r.Uint32())}, 2)
					want, err := ref.Call(gojit.FromUint8(crops[i], 8, 8, 3), key)
					if err != nil {
						t.Fatal(err)
					}
					v, _ := b.Sample("raw", j)
					for k, x := range v.Float32() {
						if x != want[0].Float32()[k] {
							t.Fatalf("sample %d element %d: %v, want %v", i, k, x, want[0].Float32()[k])
						}
					}
				}
			})
		} else if string(got) != string(first) {
			t.Fatal("TensorOp's batches differ between 1 and 2 workers")
		}
		l.Close()
	}
	for _, c := range []struct {
		ops  []Op
		want string
	}{
		{[]Op{CenterCropJPEG(8, 1), TensorOp(func(x *gojit.Tensor) int { return 0 })}, "want func(x *gojit.Tensor)"},
		{[]Op{TensorOp(func(x *gojit.Tensor) *gojit.Tensor { return x })}, "fixed-size"},
	} {
		_, err := NewLoader(path, Config{BatchSize: 5, Fields: map[string][]Op{"raw": c.ops}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error containing %q", err, c.want)
		}
	}
}
