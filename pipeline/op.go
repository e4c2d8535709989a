package pipeline

import (
	"fmt"
	"hash/fnv"
	"slices"
	"unsafe"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/philox"
)

// State describes a field's value at one point of its pipeline, for every
// sample at once: what an op receives and what it declares it produces
// (FFCV's pipeline state).
type State struct {
	// DType is the element type of an array value.
	DType gojit.DType
	// Shape is a sample's shape; with Variable, the maximum along each
	// dimension. A scalar has an empty shape.
	Shape []int
	// Variable means samples may have any shape of len(Shape) dimensions
	// no larger than Shape; each sample's own shape travels beside it.
	Variable bool
	// Compilable means the value is a dense array in batch memory that a
	// compiled stage may read. Decoders of array fields produce compilable
	// values, and so does every compiled op; a Go value is never
	// compilable.
	Compilable bool
	// Side is how many float32 side values travel with each sample's
	// array (Value.Side): values a plain Go op computes beside its output
	// for the ops after it, such as the crop box of a decoder that decoded
	// only the region around it. They reach a compiled op through its
	// Kernel's Draw (Sample.In.Side).
	Side int
	// GoValue means the value is a Go value (Value.Go), not an array:
	// decoded JSON, for instance. DType and Shape are then unused.
	GoValue bool
	// Stored, when non-nil, means the value is the field's stored bytes,
	// not yet decoded: the input of a field's first op, its decoder.
	Stored *dataset.Field
}

// Elems returns the number of elements of the (maximum) shape.
func (s State) Elems() int {
	n := 1
	for _, d := range s.Shape {
		n *= d
	}
	return n
}

// String shows the state as, for example, "u8[<=64 <=64 3]" or "go".
func (s State) String() string {
	switch {
	case s.Stored != nil:
		return fmt.Sprintf("stored %s %q", s.Stored.Kind, s.Stored.Name)
	case s.GoValue:
		return "go"
	}
	str := s.DType.String() + "["
	for i, d := range s.Shape {
		if i > 0 {
			str += " "
		}
		if s.Variable {
			str += "<="
		}
		str += fmt.Sprint(d)
	}
	return str + "]"
}

// Alloc is the memory an op needs for its output, per sample: an array of
// DType and Shape (the maximum shape for variable-size values), or one Go
// value with GoValue. The loader allocates it BatchSize times in each of
// its batch slots, once, when it is created (FFCV's allocation query).
type Alloc struct {
	DType   gojit.DType
	Shape   []int
	GoValue bool
}

// Bytes returns the size of one sample's allocation (0 for a Go value).
func (a Alloc) Bytes() int {
	if a.GoValue {
		return 0
	}
	n := a.DType.Size()
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Decl is what an op declares for a given input state: its output state,
// its memory, and how it runs.
type Decl struct {
	// Out is the state of the op's output.
	Out State
	// Memory is the per-sample memory the output is written to; nil means
	// the op works in place, in its input's memory (which must then be
	// large enough for Out).
	Memory *Alloc
	// Run is the op as plain Go over one sample.
	Run func(s *Sample) error
	// Kernel, when non-nil, describes the op for the stage compiler, which
	// fuses consecutive compiled ops of a field into one function per
	// batch. An op with a Kernel is compiled when its input is
	// Compilable (and Config.NoCompile is not set); its Run, when given
	// too, is then the reference the kernel is tested against, and what
	// runs otherwise. An op without Run must be compiled.
	Kernel *Kernel
	// Split, when non-nil, is the op cut in two for the stage compiler: a
	// plain Go part and a compiled part that is fused into the stage after
	// it. A decoder that decodes only the region a crop needs and leaves
	// the resampling to the compiled stage is one (RandomResizedCropJPEG).
	// The loader runs the two parts instead of Run unless
	// Config.NoCompile is set; Run stays the plain Go reference.
	Split *Split
	// Note, when not empty, says how the op runs where that is not what
	// its kind suggests: why a TensorOp runs per sample in a plain Go
	// stage rather than fused into a compiled one, for instance. Loader's
	// Stages and Code show it.
	Note string
}

// Split is an op cut into a plain Go part and a compiled part (see
// Decl.Split).
type Split struct {
	// Run is the plain Go part: it writes the intermediate value (of state
	// Mid, in Memory) and its side values (Mid.Side of them, in
	// Sample.Out.Side), which the compiled part's Draw reads.
	Run    func(s *Sample) error
	Mid    State
	Memory Alloc
	// Kernel is the compiled part, from the intermediate value to the
	// op's declared output; its Name names the part in dumps.
	Kernel *Kernel
}

// Kernel describes a compilable op for the stage compiler: a function
// that records the op over the whole batch with gojit's tensor operations,
// and the per-sample values it needs as kernel inputs. The stage compiler
// calls the Trace functions of a stage's ops one after the other, each on
// the previous one's result, and compiles the composition into one
// function: values between two ops of a stage never reach memory.
type Kernel struct {
	// Name identifies the op in dumps and in the compile cache's key.
	Name string
	// Params are the op's static parameters, part of the cache key.
	Params []float64
	// PerSample is how many float32 values Draw fills per sample (random
	// choices, crop boxes); they reach Trace as a [batch, PerSample] tensor.
	PerSample int
	// Draw fills one sample's kernel inputs, drawing random values from
	// s.Rand() exactly as Run does, so compiled and plain Go agree. It runs
	// with the plain Go ops, before the stage: s.In.Shape is the shape of
	// the op's input for this sample, s.In.Side the side values of the
	// value that enters the op's stage, s.In.Data must not be read (the
	// value is computed later, in the stage), and s.Out is empty.
	Draw func(s *Sample, dst []float32)
	// Trace records the op: x is the batch [batch, Shape...] of the input
	// state's maximum shape, shapes the [batch, rank] Int32 tensor of each
	// sample's own shape (for a variable-size input; a compiled op's
	// variable-size output keeps its input's shape), params the per-sample
	// values ([batch, PerSample], nil without them), refs the referenced
	// values in the order of Refs. It returns the batch output, of the
	// declared output's dtype and [batch, Shape...].
	Trace func(x, shapes, params *gojit.Tensor, refs []*gojit.Tensor) *gojit.Tensor
	// Mirror, when non-nil, mirrors the op's output left to right by
	// rewriting one sample's per-sample inputs in place (a resized crop
	// swaps its box's left and right edges). A RandomHorizontalFlip that
	// follows the op in a stage is then folded into it: it costs nothing
	// in the compiled function.
	Mirror func(params []float32)

	// hflip marks RandomHorizontalFlip's kernel, whose params[0] is 1 for
	// a sample to mirror.
	hflip bool
}

// Op is one step of a field's pipeline. The first op of a field is its
// decoder: its input state has Stored set and its Run reads Sample.Raw and
// Sample.Meta. Later ops transform the previous op's output.
type Op interface {
	// Name names the op in errors and dumps.
	Name() string
	// Declare returns the op's output state, its memory and its code for
	// the given input state and the states of the values it references
	// (see Referrer), or an error if it cannot take that input. It is
	// called once, by NewLoader (FFCV's declare_state_and_memory).
	Declare(in State, refs []State) (Decl, error)
}

// Referrer is an Op that reads other fields' values (FFCV's RefNode): a
// label op reading the image's decoded size, for instance. The loader runs
// the referenced fields' pipelines first for each sample and hands the
// values to Run in Sample.Refs, in the order of Refs.
type Referrer interface {
	Refs() []Ref
}

// RandSharer is an Op whose random draws must equal another op's: image
// and label mixup, for instance, draw the same mixing weight for a sample.
// Ops that return the same non-empty RandStream draw the same numbers from
// Sample.Rand for the same sample and epoch, whatever field or position
// they are at; an empty RandStream keeps the op's own stream.
type RandSharer interface {
	RandStream() string
}

// Ref names another field's value: its value after the first Step ops of
// its pipeline (Step 1 is the decoded value), or its final value when Step
// is 0. A referenced value must not be changed in place by a later op of
// its field; NewLoader reports it if it would be.
type Ref struct {
	Field string
	Step  int
}

// Sample is what an op's Run sees for one sample.
type Sample struct {
	// Index is the sample's index in the file; Epoch the epoch.
	Index, Epoch int
	// Raw and Meta are the field's stored bytes and metadata (decoders
	// only; Raw is valid only during Run).
	Raw  []byte
	Meta dataset.FieldMeta
	// In is the op's input; for a decoder it is empty.
	In Value
	// Out is where the op writes: Out.Data spans the declared memory (for
	// an in-place op, the input's memory) and Out.Shape has the output's
	// rank; Run sets its entries to the sample's shape. An op producing a
	// Go value sets Out.Go instead.
	Out Value
	// Refs are the referenced values, in the order of the op's Refs.
	Refs []Value

	rand Rand
}

// Rand returns the sample's random generator for this op: Philox-4x32-10
// keyed by (seed, field, op position) with counter (block, sample index,
// epoch), so its draws depend on nothing else (not on workers or timing).
func (s *Sample) Rand() *Rand { return &s.rand }

// Value is one sample's value: an array (DType, Shape, Data) or a Go
// value.
type Value struct {
	DType gojit.DType
	Shape []int
	// Data holds the elements in row-major order, packed: the sample's
	// prod(Shape) elements come first, whatever the maximum shape.
	Data []byte
	Go   any
	// Side holds the value's side values (State.Side of them).
	Side []float32
}

// Elems returns prod(Shape).
func (v Value) Elems() int {
	n := 1
	for _, d := range v.Shape {
		n *= d
	}
	return n
}

func view[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

// Uint8 returns Data as bytes. Float32, Float64, Int32, Int64 view Data
// as elements of that type (the memory is allocated with the value's
// dtype, so it is aligned for it).
func (v Value) Uint8() []uint8 { return v.Data }

// Float32 views Data as float32 elements.
func (v Value) Float32() []float32 { return view[float32](v.Data) }

// Float64 views Data as float64 elements.
func (v Value) Float64() []float64 { return view[float64](v.Data) }

// Int32 views Data as int32 elements.
func (v Value) Int32() []int32 { return view[int32](v.Data) }

// Int64 views Data as int64 elements.
func (v Value) Int64() []int64 { return view[int64](v.Data) }

// Rand is a sample's stream of random numbers (see Sample.Rand).
type Rand struct {
	key           philox.Key
	sample, epoch uint32
	block         uint64
	buf           [4]uint32
	used          int
}

func (r *Rand) reset(key philox.Key, sample, epoch int) {
	*r = Rand{key: key, sample: uint32(sample), epoch: uint32(epoch), used: 4}
}

// Uint32 returns the next random word.
func (r *Rand) Uint32() uint32 {
	if r.used == 4 {
		r.buf = philox.Block(philox.Counter{uint32(r.block), uint32(r.block >> 32), r.sample, r.epoch}, r.key)
		r.block++
		r.used = 0
	}
	w := r.buf[r.used]
	r.used++
	return w
}

// Float32 returns a float32 in [0, 1) (philox.Float32 of the next word).
func (r *Rand) Float32() float32 { return philox.Float32(r.Uint32()) }

// Intn returns an int in [0, n) for n > 0 (0 otherwise), with a bias
// below n/2^32.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(uint64(r.Uint32()) * uint64(n) >> 32)
}

// opKey derives the Philox key of the op at position pos of field's
// pipeline from the seed: the first two words of the block at counter
// (pos, FNV-1a(field), 0xFFFFFFFE, 0xFFFFFFFF), a counter the shuffles
// (fourth word 1 to 3) never use.
func opKey(seed int64, field string, pos int) philox.Key {
	h := fnv.New32a()
	h.Write([]byte(field))
	w := philox.Block(philox.Counter{uint32(pos), h.Sum32(), 0xFFFFFFFE, 0xFFFFFFFF}, philox.KeyOf(seed))
	return philox.Key{w[0], w[1]}
}

// checkDecl checks what an op declared against its input; compiled says
// the op will run as part of a compiled stage.
func checkDecl(in State, d Decl, compiled bool) error {
	if d.Out.Stored != nil {
		return fmt.Errorf("declares a stored (undecoded) output")
	}
	if d.Out.Side < 0 {
		return fmt.Errorf("declares %d side values", d.Out.Side)
	}
	if compiled {
		return checkCompiled(in, d)
	}
	if d.Run == nil {
		switch {
		case d.Kernel == nil || d.Kernel.Trace == nil:
			return fmt.Errorf("declares neither a Run function nor a Kernel with a Trace function")
		case in.Stored != nil:
			return fmt.Errorf("has only a Kernel but its input is the stored field: a decoder needs a Run function")
		default:
			return fmt.Errorf("has only a Kernel but its input %s is not compilable (a Go value, or the output of a plain Go op that does not declare it Compilable)", in)
		}
	}
	if d.Memory == nil {
		if in.Stored != nil {
			return fmt.Errorf("works in place but its input is the stored field, which has no memory")
		}
		if d.Out.GoValue != in.GoValue {
			return fmt.Errorf("works in place but changes between a Go value and an array")
		}
		if !d.Out.GoValue && d.Out.Elems()*d.Out.DType.Size() > in.Elems()*in.DType.Size() {
			return fmt.Errorf("works in place but its output %s is larger than its input %s", d.Out, in)
		}
		if !d.Out.GoValue && len(d.Out.Shape) != len(in.Shape) {
			return fmt.Errorf("works in place but changes the rank from %d to %d", len(in.Shape), len(d.Out.Shape))
		}
		if !d.Out.GoValue && d.Out.DType != in.DType {
			return fmt.Errorf("works in place but changes the dtype from %s to %s", in.DType, d.Out.DType)
		}
		if d.Out.Side != in.Side {
			return fmt.Errorf("works in place but changes the side values from %d to %d", in.Side, d.Out.Side)
		}
		return nil
	}
	if d.Memory.GoValue != d.Out.GoValue {
		return fmt.Errorf("declares memory %v that does not match its output %s", *d.Memory, d.Out)
	}
	if !d.Out.GoValue {
		if !validDType(d.Memory.DType) {
			return fmt.Errorf("declares memory of invalid dtype %d", d.Memory.DType)
		}
		for _, x := range d.Memory.Shape {
			if x < 0 {
				return fmt.Errorf("declares memory of negative shape %v", d.Memory.Shape)
			}
		}
		if d.Memory.Bytes() < d.Out.Elems()*d.Out.DType.Size() {
			return fmt.Errorf("declares memory %s%v too small for its output %s", d.Memory.DType, d.Memory.Shape, d.Out)
		}
		if len(d.Memory.Shape) != len(d.Out.Shape) || d.Memory.DType != d.Out.DType {
			return fmt.Errorf("declares memory %s%v of another dtype or rank than its output %s", d.Memory.DType, d.Memory.Shape, d.Out)
		}
	}
	return nil
}

// checkSplit checks an op's Split.
func checkSplit(in State, d Decl) error {
	sp := d.Split
	switch {
	case sp.Run == nil || sp.Kernel == nil || sp.Kernel.Trace == nil:
		return fmt.Errorf("declares a Split without a Run function or a Kernel with a Trace function")
	case sp.Mid.GoValue || sp.Memory.GoValue:
		return fmt.Errorf("declares a Split whose intermediate is a Go value")
	case !sp.Mid.Compilable:
		return fmt.Errorf("declares a Split whose intermediate %s is not compilable", sp.Mid)
	case len(sp.Memory.Shape) != len(sp.Mid.Shape) || sp.Memory.DType != sp.Mid.DType || sp.Memory.Bytes() < sp.Mid.Elems()*sp.Mid.DType.Size():
		return fmt.Errorf("declares Split memory %s%v that does not hold its intermediate %s", sp.Memory.DType, sp.Memory.Shape, sp.Mid)
	}
	return checkCompiled(sp.Mid, Decl{Out: d.Out, Kernel: sp.Kernel})
}

// checkCompiled checks an op that runs in a compiled stage: the stage
// compiler allocates the memory of its output when it needs it, from the
// declared output state.
func checkCompiled(in State, d Decl) error {
	k := d.Kernel
	switch {
	case in.GoValue || d.Out.GoValue:
		return fmt.Errorf("is a compiled op over a Go value")
	case !validDType(d.Out.DType):
		return fmt.Errorf("declares an output of invalid dtype %d", d.Out.DType)
	case d.Out.Variable && len(d.Out.Shape) != len(in.Shape):
		return fmt.Errorf("is a compiled op with a variable-size output of another rank than its input: each sample keeps its input's shape")
	case d.Out.Side != 0:
		return fmt.Errorf("is a compiled op declaring side values, which only plain Go ops produce")
	case k.PerSample < 0 || (k.PerSample > 0) != (k.Draw != nil):
		return fmt.Errorf("is a compiled op with PerSample %d and Draw %v: want both or neither", k.PerSample, k.Draw != nil)
	}
	for _, x := range d.Out.Shape {
		if x < 0 {
			return fmt.Errorf("declares a negative output shape %v", d.Out.Shape)
		}
	}
	return nil
}

func validDType(dt gojit.DType) bool {
	return slices.Contains([]gojit.DType{gojit.Bool, gojit.Uint8, gojit.Int32, gojit.Int64, gojit.Float16, gojit.Float32, gojit.Float64}, dt)
}
