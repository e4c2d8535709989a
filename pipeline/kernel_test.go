package pipeline

import (
	"context"
	"fmt"
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
	mean, std := []float32{127.5, 63.75, 31.875}, []float32{51, 76.5, 102}
	var ref []byte
	for _, workers := range []int{1, 2} {
		l, err := NewLoader(path, Config{BatchSize: 20, Workers: workers, Seed: 3, Order: Random, Fields: map[string][]Op{
			"img":   {RandomHorizontalFlip(0.5), kernelOnly{Normalize(mean, std, gojit.Float32)}},
			"boxes": nil,
			"vec":   {brightnessVec{}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		goRef, err := NewLoader(path, Config{BatchSize: 20, Workers: 1, Seed: 3, Order: Random, Fields: map[string][]Op{
			"img": {RandomHorizontalFlip(0.5), Normalize(mean, std, gojit.Float32)},
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
	path := writeTestFile(t, 5, true)
	for _, c := range []struct {
		field string
		ops   []Op
		want  string
	}{
		{"img", []Op{kernelOnly{RandomHorizontalFlip(1)}}, "neither a Run function nor a Kernel"},
		{"meta", []Op{JSONDecoder(), kernelOnly{Normalize([]float32{0}, []float32{1}, gojit.Float32)}}, "want a decoded array"},
		{"img", []Op{ImageDecoder(), goValueOp{}, kernelOnly{brightness{}}}, "not compilable"},
	} {
		_, err := NewLoader(path, Config{BatchSize: 2, Fields: map[string][]Op{c.field: c.ops}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.ops, err, c.want)
		}
	}
}

// goValueOp turns its input into a Go value (its shape).
type goValueOp struct{}

func (goValueOp) Name() string { return "goValue" }
func (goValueOp) Declare(in State, _ []State) (Decl, error) {
	return Decl{Out: State{GoValue: true}, Memory: &Alloc{GoValue: true}, Run: func(s *Sample) error {
		s.Out.Go = append([]int{}, s.In.Shape...)
		return nil
	}}, nil
}

// TestStagesMixed: compiled stages anywhere in a pipeline — a compiled op
// followed by plain Go ops and another compiled stage, a plain Go op
// reading a compiled value of another field, a compiled op reading a
// plain Go value — give what the same ops give run in plain Go
// (NoCompile), with 1 and 2 workers, and the stages and passes are the
// ones expected.
func TestStagesMixed(t *testing.T) {
	path := writeTestFile(t, 45, false)
	mean, std := []float32{127.5, 63.75, 31.875}, []float32{51, 76.5, 102}
	fields := func() map[string][]Op {
		return map[string][]Op{
			// compiled (brightness) -> Go (flip) -> compiled (normalize)
			"img": {ImageDecoder(), brightnessGo{}, RandomHorizontalFlip(0.5), Normalize(mean, std, gojit.Float32)},
			// a Go op reading img's final, compiled value
			"id": {areaOp{0}},
		}
	}
	var ref []byte
	for _, c := range []struct {
		workers   int
		noCompile bool
	}{{1, true}, {1, false}, {2, false}} {
		l, err := NewLoader(path, Config{BatchSize: 20, Workers: c.workers, Seed: 3, Order: Random, Fields: fields(), NoCompile: c.noCompile})
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, sg := range l.Stages() {
			kinds = append(kinds, fmt.Sprintf("%s:%d-%d:%v:%d", sg.Field, sg.From, sg.To, sg.Compiled, sg.Pass))
		}
		want := "img:0-1:false:0 id:0-1:false:0 img:1-2:true:0 img:2-3:false:1 img:3-4:true:1 id:1-2:false:2"
		if c.noCompile || gojit.LLVMVersion() == "" { // without LLVM, as NoCompile
			want = "img:0-4:false:0 id:0-2:false:0"
		}
		if got := strings.Join(kinds, " "); got != want {
			t.Errorf("workers %d noCompile %v: stages %s, want %s", c.workers, c.noCompile, got, want)
		}
		got, _ := epochBytes(t, l, 1, "img", "id")
		if ref == nil {
			ref = got
		} else if !closeFloats(got, ref) {
			t.Errorf("workers %d noCompile %v: batches differ from plain Go", c.workers, c.noCompile)
		}
		l.Close()
	}
}

// closeFloats compares two byte strings of batches as float32s within a
// relative 1e-6 (the bytes of int fields and shapes compare exactly
// through their float32 bit patterns, which are then equal).
func closeFloats(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	fa, fb := view[float32](a), view[float32](b)
	for i := range fa {
		if fa[i] != fb[i] && math.Abs(float64(fa[i]-fb[i])) > 1e-6*math.Abs(float64(fb[i]))+1e-7 {
			return false
		}
	}
	return true
}

// brightnessGo is brightness with a plain Go Run too, so it can be
// compiled or not.
type brightnessGo struct{}

func (brightnessGo) Name() string { return "brightness" }
func (brightnessGo) Declare(in State, _ []State) (Decl, error) {
	d, err := brightness{}.Declare(in, nil)
	d.Run = func(s *Sample) error {
		f := 0.5 + s.Rand().Float32()
		for i, v := range s.In.Uint8() {
			s.Out.Float32()[i] = float32(v) * f
		}
		copy(s.Out.Shape, s.In.Shape)
		return nil
	}
	return d, err
}

// compileKernel compiles one op's Kernel on its own: its arguments are
// the batch, the samples' shapes and, if it has any, its per-sample
// inputs.
func compileKernel(k *Kernel) (*gojit.Func, error) {
	if k.PerSample > 0 {
		return gojit.Compile(func(x, shapes, params *gojit.Tensor) *gojit.Tensor { return k.Trace(x, shapes, params, nil) })
	}
	return gojit.Compile(func(x, shapes *gojit.Tensor) *gojit.Tensor { return k.Trace(x, shapes, nil, nil) })
}
