package pipeline

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gojit/gojit"
)

// A stage is a run of consecutive ops of one field that run the same way:
// plain Go ops, one sample at a time on the workers, or compiled ops,
// fused by the stage compiler into one gojit function called once per
// batch (its loops split across threads by the engine).
type stage struct {
	index          int // in Loader.stages
	plan, from, to int // the plan's steps[from:to]
	compiled       bool
	phase          int

	// A compiled stage's inputs: the value before it (buffer in), its
	// shapes, the per-sample inputs of its ops (pars, step indices) and
	// the values its ops reference from outside it (refs); its outputs
	// are the steps in outs, each in its own buffer.
	in   int
	pars []int // steps whose per-sample inputs the function reads
	npar int   // per-sample inputs of the stage: columns of one array
	refs []refLoc
	outs []int
	fn   *gojit.Func
}

// Stage describes one stage of a field's pipeline (see Loader.Stages).
type Stage struct {
	// Index is the stage's position in Loader.Stages, the argument of
	// Loader.Code.
	Index int
	// Field is the field whose ops the stage runs; From and To the
	// positions of its first op and one past its last in the field's
	// pipeline (0 is the decoder).
	Field    string
	From, To int
	// Ops names the stage's ops.
	Ops []string
	// Compiled reports a compiled stage; the others run plain Go ops.
	Compiled bool
	// Pass is the pass of the batch the stage runs in: a batch runs every
	// plain Go stage of pass 0 on each sample, then the compiled stages of
	// pass 0, then pass 1.
	Pass int
	// Notes say how some of the stage's ops run, as "op 2 (name): note":
	// why a TensorOp runs per sample rather than fused, for instance.
	Notes []string
}

// buildStages cuts the plans into stages, in the order they run.
func (l *Loader) buildStages() error {
	var all []stage
	for pi := range l.plans {
		p := &l.plans[pi]
		for k := 0; k < len(p.steps); {
			e := k + 1
			c := p.steps[k].kernel != nil
			for e < len(p.steps) && (p.steps[e].kernel != nil) == c && p.steps[e].phase == p.steps[k].phase {
				e++
			}
			all = append(all, stage{plan: pi, from: k, to: e, compiled: c, phase: p.steps[k].phase})
			k = e
		}
	}
	// Run order: by pass, plain Go before compiled, then field order.
	slices.SortStableFunc(all, func(a, b stage) int {
		if a.phase != b.phase {
			return a.phase - b.phase
		}
		if a.compiled != b.compiled {
			if a.compiled {
				return 1
			}
			return -1
		}
		return 0
	})
	for i := range all {
		sg := &all[i]
		sg.index = i
		if !sg.compiled {
			continue
		}
		p := &l.plans[sg.plan]
		sg.in = p.steps[sg.from-1].buf
		for k := sg.from; k < sg.to; k++ {
			st := &p.steps[k]
			st.stage = i
			if k > sg.from && st.kernel.hflip && p.steps[k-1].kernel.Mirror != nil && len(st.refs) == 0 {
				st.folded = true
			}
			if st.kernel.PerSample > 0 {
				// The stage's per-sample inputs are one [batch, npar]
				// array: few arguments, one pointer to pin per call.
				st.par = sg.npar
				sg.npar += st.kernel.PerSample
				if !st.folded {
					sg.pars = append(sg.pars, k)
				}
			}
			for _, r := range st.refs {
				if r.plan == sg.plan && r.step >= sg.from {
					continue
				}
				if !slices.Contains(sg.refs, r) {
					sg.refs = append(sg.refs, r)
				}
			}
			if st.buf >= 0 {
				sg.outs = append(sg.outs, k)
			}
		}
		fn, err := l.compileStage(sg)
		if err != nil {
			return err
		}
		sg.fn = fn
	}
	for _, sg := range all {
		l.passes = max(l.passes, sg.phase+1)
	}
	l.stages = all
	return nil
}

// parArgs is the number of per-sample input arrays the stage's function
// takes: 1 if an op that is not folded has some, else 0.
func (sg *stage) parArgs() int {
	if len(sg.pars) > 0 {
		return 1
	}
	return 0
}

// stageName names a stage's ops for errors and dumps.
func (l *Loader) stageName(sg *stage) string {
	p := &l.plans[sg.plan]
	var ops []string
	for k := sg.from; k < sg.to; k++ {
		ops = append(ops, p.steps[k].name)
	}
	return fmt.Sprintf("field %q, ops %d-%d (%s)", p.name, p.steps[sg.from].op, p.steps[sg.to-1].op, strings.Join(ops, ", "))
}

var tensorType = reflect.TypeFor[*gojit.Tensor]()

// compileStage composes the Trace functions of a compiled stage's ops
// into one function of the stage's inputs that returns its outputs, and
// compiles it (tracing and code generation happen at the first call).
func (l *Loader) compileStage(sg *stage) (*gojit.Func, error) {
	p := &l.plans[sg.plan]
	nargs := 2 + sg.parArgs() + len(sg.refs)
	in := make([]reflect.Type, nargs)
	for i := range in {
		in[i] = tensorType
	}
	ft := reflect.FuncOf(in, []reflect.Type{reflect.TypeFor[[]*gojit.Tensor](), reflect.TypeFor[error]()}, false)
	name := l.stageName(sg)
	body := func(args []reflect.Value) []reflect.Value {
		ts := make([]*gojit.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.Interface().(*gojit.Tensor)
		}
		outs, err := l.traceStage(sg, ts)
		if err != nil {
			err = fmt.Errorf("pipeline: %s: %s: %w", l.path, name, err)
		}
		return []reflect.Value{reflect.ValueOf(outs), reflect.ValueOf(&err).Elem()}
	}
	fn, err := gojit.Compile(reflect.MakeFunc(ft, body).Interface())
	if err != nil {
		return nil, fmt.Errorf("pipeline: %s: field %q: stage compiler: %w", l.path, p.name, err)
	}
	return fn, nil
}

// traceStage records a stage's ops, one after the other, on its input.
func (l *Loader) traceStage(sg *stage, args []*gojit.Tensor) (outs []*gojit.Tensor, err error) {
	p := &l.plans[sg.plan]
	x, shapes := args[0], args[1]
	n := x.Shape()[0]
	vals := map[int]*gojit.Tensor{}
	refArg := func(r refLoc) *gojit.Tensor {
		return args[2+sg.parArgs()+slices.Index(sg.refs, r)]
	}
	for k := sg.from; k < sg.to; k++ {
		st := &p.steps[k]
		if st.folded {
			vals[k] = x // the previous op drew mirrored coordinates
			continue
		}
		var par *gojit.Tensor
		if st.par >= 0 {
			par = args[2].Slice([]int{0, st.par}, []int{n, st.par + st.kernel.PerSample})
		}
		refs := make([]*gojit.Tensor, len(st.refs))
		for j, r := range st.refs {
			if v, ok := vals[r.step]; ok && r.plan == sg.plan {
				refs[j] = v
			} else {
				refs[j] = refArg(r)
			}
		}
		sh := shapes
		if !st.in.Variable {
			sh = constShapes(n, st.in.Shape)
		}
		y, err := callTrace(st.kernel.Trace, x, sh, par, refs)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", st.op, st.name, err)
		}
		if y == nil {
			return nil, fmt.Errorf("op %d (%s): Trace returned nil", st.op, st.name)
		}
		want := append([]int{n}, st.out.Shape...)
		if y.DType() != st.out.DType || !slices.Equal(y.Shape(), want) {
			return nil, fmt.Errorf("op %d (%s): Trace returned %s%v, but the op declared %s%v", st.op, st.name, y.DType(), y.Shape(), st.out.DType, want)
		}
		vals[k] = y
		x = y
	}
	for _, k := range sg.outs {
		outs = append(outs, vals[k])
	}
	return outs, nil
}

// callTrace runs a Trace function, turning a panic into an error.
func callTrace(trace func(x, shapes, params *gojit.Tensor, refs []*gojit.Tensor) *gojit.Tensor, x, shapes, par *gojit.Tensor, refs []*gojit.Tensor) (y *gojit.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the Trace function panicked: %v", r)
		}
	}()
	return trace(x, shapes, par, refs), nil
}

// constShapes is the [n, len(shape)] Int32 tensor of a fixed shape.
func constShapes(n int, shape []int) *gojit.Tensor {
	if len(shape) == 0 {
		return gojit.Full(gojit.Int32, 0, n, 0)
	}
	cols := make([]*gojit.Tensor, len(shape))
	for i, d := range shape {
		cols[i] = gojit.Full(gojit.Int32, float64(d), n, 1)
	}
	return gojit.Concat(1, cols...)
}

// stageArgs returns a compiled stage's arguments and outputs for the
// first n samples of slot s.
func (l *Loader) stageArgs(sg *stage, s *slot, n int) (args []any, outs []*gojit.Array) {
	p := &l.plans[sg.plan]
	x, shapes := s.arr(sg.in, n)
	args = append(args, x, shapes)
	if sg.parArgs() > 0 {
		args = append(args, s.par(sg.index, n))
	}
	for _, r := range sg.refs {
		v, _ := s.arr(l.plans[r.plan].steps[r.step].buf, n)
		args = append(args, v)
	}
	for _, k := range sg.outs {
		v, _ := s.arr(p.steps[k].buf, n)
		outs = append(outs, v)
	}
	return args, outs
}

// runStage runs a compiled stage over slot s's batch and publishes its
// outputs' shapes.
func (l *Loader) runStage(i int, s *slot) error {
	sg := &l.stages[i]
	t0 := time.Now()
	args, outs := s.calls[i].args, s.calls[i].outs
	if s.batch.n != len(s.batch.indices) {
		args, outs = s.calls[i].tailArgs, s.calls[i].tailOuts
	}
	if err := sg.fn.CallInto(outs, args...); err != nil {
		return fmt.Errorf("pipeline: %s: epoch %d batch %d, %s: %w", l.path, s.batch.epoch, s.batch.number, l.stageName(sg), err)
	}
	p := &l.plans[sg.plan]
	n := s.batch.n
	in := &l.bufs[sg.in]
	for _, k := range sg.outs {
		st := &p.steps[k]
		if !st.out.Variable {
			continue // set once, when the slot was made
		}
		b := &l.bufs[st.buf]
		copy(s.shp32[st.buf][:n*b.rank], s.shp32[sg.in][:n*in.rank])
		copy(s.shapes[st.buf][:n*b.rank], s.shapes[sg.in][:n*in.rank])
		// The kernel computed the whole of each sample's memory; what lies
		// past the sample's own shape must read as zero, as after a plain
		// Go op.
		for j := range n {
			v := l.value(s, st.buf, j, false)
			clear(v.Data[v.Elems()*b.alloc.DType.Size():])
		}
	}
	l.timing[i].Add(int64(time.Since(t0)))
	return nil
}

// Stages returns the stages of every loaded field's pipeline, in the order
// a batch runs them.
func (l *Loader) Stages() []Stage {
	out := make([]Stage, len(l.stages))
	for i := range l.stages {
		out[i] = l.stageInfo(i)
	}
	return out
}

func (l *Loader) stageInfo(i int) Stage {
	sg := &l.stages[i]
	p := &l.plans[sg.plan]
	st := Stage{Index: i, Field: p.name, From: p.steps[sg.from].op, To: p.steps[sg.to-1].op + 1, Compiled: sg.compiled, Pass: sg.phase}
	for k := sg.from; k < sg.to; k++ {
		st.Ops = append(st.Ops, p.steps[k].name)
		if n := p.steps[k].note; n != "" {
			st.Notes = append(st.Notes, fmt.Sprintf("op %d (%s): %s", p.steps[k].op, p.steps[k].name, n))
		}
	}
	return st
}

// Code is a stage's code at every step of its compilation, for reading
// and debugging (see Loader.Code).
type Code struct {
	Stage Stage
	// Plan lists the stage's ops with their input and output states, and
	// for a compiled stage its function's arguments and results.
	Plan string
	// Lowered holds the compiled stage's function at every step: the
	// traced graph, the fused graph and its loops, the LLVM IR before and
	// after optimization, and the machine code. It is nil for a plain Go
	// stage.
	*gojit.Lowered
}

// Code returns stage i's code (i indexes Stages): its plan and, for a
// compiled stage, its traced, fused, LLVM and machine code, compiling it
// for a full batch first if no batch has run yet.
func (l *Loader) Code(i int) (*Code, error) {
	if i < 0 || i >= len(l.stages) {
		return nil, fmt.Errorf("pipeline: %s: stage %d does not exist (the loader has %d stages)", l.path, i, len(l.stages))
	}
	sg := &l.stages[i]
	p := &l.plans[sg.plan]
	c := &Code{Stage: l.stageInfo(i)}
	var b strings.Builder
	kind := "plain Go, per sample, on the workers"
	if sg.compiled {
		kind = "compiled, one function per batch"
	}
	fmt.Fprintf(&b, "stage %d: field %q, pass %d, %s\n", i, p.name, sg.phase, kind)
	for k := sg.from; k < sg.to; k++ {
		st := &p.steps[k]
		fmt.Fprintf(&b, "  op %d %-22s %s -> %s", st.op, st.name, st.in, st.out)
		if st.kernel != nil && st.kernel.PerSample > 0 {
			fmt.Fprintf(&b, "  (%d per-sample inputs)", st.kernel.PerSample)
		}
		if st.folded {
			b.WriteString("  [folded into the op before: its coordinates are mirrored]")
		} else if st.buf >= 0 {
			fmt.Fprintf(&b, "  [memory: %d bytes per sample]", l.bufs[st.buf].per)
		} else {
			b.WriteString("  [fused: not in memory]")
		}
		b.WriteString("\n")
		if st.note != "" {
			fmt.Fprintf(&b, "      note: %s\n", st.note)
		}
	}
	if sg.compiled {
		fmt.Fprintf(&b, "  arguments: the batch of %s's output, its shapes", p.steps[sg.from-1].name)
		for _, k := range sg.pars {
			fmt.Fprintf(&b, ", %s's per-sample inputs (columns %d-%d of one array)", p.steps[k].name, p.steps[k].par, p.steps[k].par+p.steps[k].kernel.PerSample-1)
		}
		for _, r := range sg.refs {
			q := &l.plans[r.plan]
			fmt.Fprintf(&b, ", field %q op %d's value", q.name, q.steps[r.step].op)
		}
		b.WriteString("\n  results:")
		for _, k := range sg.outs {
			fmt.Fprintf(&b, " %s's output", p.steps[k].name)
		}
		b.WriteString("\n")
	}
	c.Plan = b.String()
	if !sg.compiled {
		return c, nil
	}
	if len(l.slots) == 0 {
		return nil, fmt.Errorf("pipeline: %s: %w", l.path, ErrClosed)
	}
	args, _ := l.stageArgs(sg, l.slots[0], l.cfg.BatchSize) // a full batch's signature
	low, err := sg.fn.Lower(args...)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %s: %s: %w", l.path, l.stageName(sg), err)
	}
	c.Lowered = low
	return c, nil
}
