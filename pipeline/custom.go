package pipeline

import (
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gojit/gojit"
)

// FuncOp returns an op that runs fn, a plain Go function, on each sample
// (FFCV users' own operations, in Go): fn reads s.In and writes s.Out,
// drawing any random numbers from s.Rand() so that batches stay the same
// whatever the workers. out declares the output's state from the input's
// (its memory is allocated from it); a nil out means the op works in
// place, keeping its input's state. A FuncOp runs in a plain Go stage, on
// the workers.
func FuncOp(name string, out func(in State) (State, error), fn func(s *Sample) error) Op {
	return funcOp{name: name, out: out, fn: fn}
}

type funcOp struct {
	name string
	out  func(State) (State, error)
	fn   func(*Sample) error
}

func (f funcOp) Name() string { return f.name }

func (f funcOp) Declare(in State, _ []State) (Decl, error) {
	if f.fn == nil {
		return Decl{}, fmt.Errorf("FuncOp %q has a nil function", f.name)
	}
	if in.Stored != nil {
		return Decl{}, fmt.Errorf("FuncOp %q follows no decoder", f.name)
	}
	if f.out == nil {
		return Decl{Out: in, Run: f.fn}, nil
	}
	o, err := f.out(in)
	if err != nil {
		return Decl{}, err
	}
	if o.GoValue {
		return Decl{Out: o, Memory: &Alloc{GoValue: true}, Run: f.fn}, nil
	}
	return Decl{Out: o, Memory: &Alloc{DType: o.DType, Shape: slices.Clone(o.Shape)}, Run: f.fn}, nil
}

// TensorOp returns an op computed by fn, a function over one sample's
// value written with gojit's tensor operations and compiled by gojit (as
// FFCV users write their own operations with Numba): fn is
//
//	func(x *gojit.Tensor) *gojit.Tensor
//
// or, for an op that draws random numbers,
//
//	func(x, key *gojit.Tensor) *gojit.Tensor
//
// where key is the sample's random key (gojit's Int32 [2] Philox key, to
// use with gojit.Uniform, Bernoulli, SplitKey...), derived from the
// loader's seed, the op's position, the sample and the epoch, so that
// batches stay the same whatever the workers. The input must be a
// fixed-size array (after a resized crop, for instance); the output's
// dtype and shape are what fn returns for it.
//
// fn is traced once, for the input's shape, when the loader is made, and
// its graph is batched (a leading batch axis on every value that depends
// on the sample, constants broadcast): the op is then a compiled op,
// fused into the compiled stage with the built-in ops around it, one
// function per batch. The values fn computes from the key alone run per
// sample before the stage and reach it as per-sample inputs, so the
// random numbers are the ones the per-sample path draws, bit for bit.
// When an op of fn has no batching rule (a While whose condition depends
// on the sample, see docs/pipeline.md), fn runs compiled on its own on each
// sample in a plain Go stage, as it does with Config.NoCompile; the reason
// is in Loader.Stages (Stage.Notes) and logged once with log/slog.
func TensorOp(fn any) Op {
	name := "TensorOp"
	if v := reflect.ValueOf(fn); v.Kind() == reflect.Func && !v.IsNil() {
		if f := runtime.FuncForPC(v.Pointer()); f != nil {
			name = f.Name()
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				name = name[i+1:]
			}
		}
	}
	return tensorOp{name: name, fn: fn, logged: new(sync.Once)}
}

type tensorOp struct {
	name string
	fn   any
	// logged: the reason the op is not fused is logged once, however
	// many loaders use it.
	logged *sync.Once
}

func (t tensorOp) Name() string { return t.name }

var (
	tensorPtr = reflect.TypeFor[*gojit.Tensor]()
)

func (t tensorOp) Declare(in State, _ []State) (Decl, error) {
	ft := reflect.TypeOf(t.fn)
	if ft == nil || ft.Kind() != reflect.Func || ft.NumIn() < 1 || ft.NumIn() > 2 || ft.NumOut() != 1 || ft.Out(0) != tensorPtr ||
		ft.In(0) != tensorPtr || ft.NumIn() == 2 && ft.In(1) != tensorPtr {
		return Decl{}, fmt.Errorf("TensorOp %q: fn is %T; want func(x *gojit.Tensor) *gojit.Tensor or func(x, key *gojit.Tensor) *gojit.Tensor", t.name, t.fn)
	}
	switch {
	case in.Stored != nil || in.GoValue:
		return Decl{}, fmt.Errorf("TensorOp %q: want a decoded array, got %s", t.name, in)
	case in.Variable:
		return Decl{}, fmt.Errorf("TensorOp %q: want a fixed-size array, got the variable-size %s (crop or resize first)", t.name, in)
	}
	random := ft.NumIn() == 2
	f, err := gojit.Compile(t.fn)
	if err != nil {
		return Decl{}, fmt.Errorf("TensorOp %q: %w", t.name, err)
	}
	// The output's dtype and shape: fn's result on a sample of zeros
	// (compiling it now, so an error in fn shows when the loader is made).
	probe := []any{gojit.New(in.DType, in.Shape...)}
	if random {
		probe = append(probe, gojit.RandomKey(0))
	}
	outs, err := f.Call(probe...)
	if err != nil {
		return Decl{}, fmt.Errorf("TensorOp %q on %s: %w", t.name, in, err)
	}
	o := outs[0]
	if !validDType(o.DType()) {
		return Decl{}, fmt.Errorf("TensorOp %q returns %s, which a batch cannot hold", t.name, o.DType())
	}
	out := State{DType: o.DType(), Shape: o.Shape(), Compilable: true}
	run := func(s *Sample) error {
		x, err := arrayOf(s.In.DType, s.In.Data, s.In.Shape)
		if err != nil {
			return err
		}
		y, err := arrayOf(out.DType, s.Out.Data, out.Shape)
		if err != nil {
			return err
		}
		args := []any{x}
		if random {
			r := s.Rand()
			args = append(args, gojit.FromInt32([]int32{int32(r.Uint32()), int32(r.Uint32())}, 2))
		}
		if err := f.CallInto([]*gojit.Array{y}, args...); err != nil {
			return err
		}
		copy(s.Out.Shape, out.Shape)
		return nil
	}
	d := Decl{Out: out, Memory: &Alloc{DType: out.DType, Shape: slices.Clone(out.Shape)}, Run: run}
	k, err := t.tensorKernel(f, probe, out)
	if err != nil {
		d.Note = fmt.Sprintf("runs per sample, not fused: %v", err)
		t.logged.Do(func() {
			slog.Info("pipeline: a TensorOp runs per sample in a plain Go stage, not fused into the compiled stage", "op", t.name, "reason", err)
		})
		return d, nil
	}
	d.Kernel = k
	return d, nil
}

// arrayOf wraps a value's bytes (without copying) as a gojit array.
func arrayOf(dt gojit.DType, data []byte, shape []int) (*gojit.Array, error) {
	n := dt.Size()
	for _, d := range shape {
		n *= d
	}
	data = data[:n]
	p := unsafe.Pointer(unsafe.SliceData(data))
	switch dt {
	case gojit.Uint8:
		return gojit.FromUint8(data, shape...), nil
	case gojit.Bool:
		return gojit.FromBool(unsafe.Slice((*bool)(p), n), shape...), nil
	case gojit.Int32:
		return gojit.FromInt32(unsafe.Slice((*int32)(p), n/4), shape...), nil
	case gojit.Int64:
		return gojit.FromInt64(unsafe.Slice((*int64)(p), n/8), shape...), nil
	case gojit.Float16:
		return gojit.FromFloat16(unsafe.Slice((*gojit.F16)(p), n/2), shape...), nil
	case gojit.Float32:
		return gojit.FromFloat32(unsafe.Slice((*float32)(p), n/4), shape...), nil
	case gojit.Float64:
		return gojit.FromFloat64(unsafe.Slice((*float64)(p), n/8), shape...), nil
	}
	return nil, fmt.Errorf("no array of %s", dt)
}
