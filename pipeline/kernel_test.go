package pipeline

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// kernelOnly declares what its op declares without the Run function, so
// the loader runs the op's Kernel over the batch.
type kernelOnly struct{ Op }

func (k kernelOnly) Declare(in State, refs []State) (Decl, error) {
	d, err := k.Op.Declare(in, refs)
	d.Run = nil
	return d, err
}

// brightness is a kernel-only op with a per-sample random input: each
// image is multiplied by its own factor in [0.5, 1.5).
type brightness struct{}

func (brightness) Name() string { return "brightness" }
func (brightness) Declare(in State, _ []State) (Decl, error) {
	out := in
	out.DType = gojit.Float32
	return Decl{Out: out, Memory: &Alloc{DType: gojit.Float32, Shape: in.Shape}, Kernel: &Kernel{
		Name: "brightness", PerSample: 1,
		Draw: func(s *Sample, dst []float32) { dst[0] = 0.5 + s.Rand().Float32() },
		Trace: func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
			b := x.Shape()[0]
			return x.Cast(gojit.Float32).Mul(params.Reshape(b, 1, 1, 1))
		},
	}}, nil
}

// TestKernelOnlyOps: ops with only a Kernel run as one gojit kernel per
// batch at the end of a field's pipeline; their results agree with the
// plain Go reference on every sample's region, their per-sample draws come
// from the sample's Rand, and the content is the same with 1 or 2 workers.
func TestKernelOnlyOps(t *testing.T) {
	path := writeTestFile(t, 45, false) // batches of 20: the last has 5
	mean, std := []float32{0.5, 0.25, 0.125}, []float32{0.2, 0.3, 0.4}
	var ref []byte
	for _, workers := range []int{1, 2} {
		l, err := NewLoader(path, Config{BatchSize: 20, Workers: workers, Seed: 3, Order: Random, Fields: map[string][]Op{
			"img":   {RandomFlip(0.5), kernelOnly{Normalize(1.0/255, mean, std)}},
			"boxes": nil,
			"vec":   {brightnessVec{}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		goRef, err := NewLoader(path, Config{BatchSize: 20, Workers: 1, Seed: 3, Order: Random, Fields: map[string][]Op{
			"img": {RandomFlip(0.5), Normalize(1.0/255, mean, std)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		var want [][]float32
		collect(t, goRef.Epoch(context.Background(), 1), func(b *Batch) {
			want = append(want, append([]float32{}, b.Field("img").Float32()...))
		})
		var got []byte
		k := 0
		collect(t, l.Epoch(context.Background(), 1), func(b *Batch) {
			img := b.Field("img").Float32()
			if len(img) != b.Len()*8*8*3 {
				t.Fatalf("batch %d: %d elements, want %d", b.Number(), len(img), b.Len()*8*8*3)
			}
			for j, i := range b.Indices() {
				h, w := imgDims(i)
				if sh := b.Shapes("img").Int32()[j*3 : j*3+3]; sh[0] != int32(h) || sh[1] != int32(w) {
					t.Fatalf("sample %d shape %v, want [%d %d 3]", i, sh, h, w)
				}
				for e := range h * w * 3 {
					g, r := img[j*192+e], want[k][j*192+e]
					if math.Abs(float64(g-r)) > 1e-6*math.Abs(float64(r))+1e-7 {
						t.Fatalf("batch %d sample %d element %d: kernel %v, Go %v", b.Number(), i, e, g, r)
					}
				}
				// The per-sample factor: Draw's value for this sample.
				var r Rand
				r.reset(opKey(3, "vec", 1), i, 1)
				f := 0.5 + r.Float32()
				for e, v := range b.Field("vec").Float32()[j*8 : j*8+8] {
					if v != float32(uint8(i+e))*f {
						t.Fatalf("sample %d vec[%d] = %v, want %v", i, e, v, float32(uint8(i+e))*f)
					}
				}
			}
			got = append(got, bytesOf(b.Field("img"))...)
			got = append(got, bytesOf(b.Field("vec"))...)
			k++
		})
		if k != 3 {
			t.Fatalf("%d batches, want 3", k)
		}
		if ref == nil {
			ref = got
		} else if string(ref) != string(got) {
			t.Fatal("kernel results differ between 1 and 2 workers")
		}
		l.Close()
		goRef.Close()
	}
}

// brightnessVec is brightness for the [8] vector field.
type brightnessVec struct{}

func (brightnessVec) Name() string { return "brightness" }
func (brightnessVec) Declare(in State, _ []State) (Decl, error) {
	d, err := brightness{}.Declare(in, nil)
	d.Kernel.Trace = func(x, _, params *gojit.Tensor, _ []*gojit.Tensor) *gojit.Tensor {
		return x.Cast(gojit.Float32).Mul(params)
	}
	return d, err
}

// TestKernelOnlyRefused: kernel-only ops the loader cannot run are refused
// with a reason.
func TestKernelOnlyRefused(t *testing.T) {
	path := writeTestFile(t, 5, false)
	for _, c := range []struct {
		ops  []Op
		want string
	}{
		{[]Op{kernelOnly{Normalize(1, []float32{0, 0, 0}, []float32{1, 1, 1})}, RandomFlip(1)}, "plain Go ops follow it"},
		{[]Op{kernelOnly{RandomFlip(1)}}, "neither a Run function nor a Kernel"},
	} {
		_, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{"img": c.ops}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.ops, err, c.want)
		}
	}
	// A plain Go op cannot read a value a kernel computes later.
	_, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{
		"img": {kernelOnly{Normalize(1, []float32{0, 0, 0}, []float32{1, 1, 1})}}, "id": {areaOp{0}}}})
	if err == nil || !strings.Contains(err.Error(), "which a kernel computes") {
		t.Errorf("reference to a kernel's value: %v", err)
	}
}
