package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/gojit/gojit/dataset"
)

// worker holds one goroutine's reusable state.
type worker struct {
	l       *Loader
	scratch []byte
	s       Sample
	refs    []Value
	// One FieldMeta per plan, whose Shape storage the reader reuses.
	metas []dataset.FieldMeta
}

func (l *Loader) newWorker() *worker {
	w := &worker{l: l}
	nref := 0
	for _, p := range l.plans {
		for _, st := range p.steps {
			nref = max(nref, len(st.refs))
		}
	}
	w.refs = make([]Value, nref)
	w.metas = make([]dataset.FieldMeta, len(l.plans))
	return w
}

// fill runs the plain Go ops of the given pass of every field's pipeline
// on samples lo..hi-1 of slot s and returns the first failing sample's
// position and error.
func (w *worker) fill(ctx context.Context, s *slot, pass, lo, hi int) (int, error) {
	l := w.l
	b := &s.batch
	t0 := time.Now()
	defer func() { l.goTime.Add(int64(time.Since(t0))) }()
	for j := lo; j < hi; j++ {
		if ctx.Err() != nil {
			return j, nil
		}
		idx := b.indices[j]
		for pi := range l.plans {
			if err := w.sample(s, &l.plans[pi], pi, pass, j, idx, b.epoch); err != nil {
				return j, err
			}
		}
	}
	return hi, nil
}

// read reads sample idx's stored bytes of plan p's field.
func (w *worker) read(s *slot, p *plan, pi, j, idx int) ([]byte, error) {
	l := w.l
	t0 := time.Now()
	m := &w.metas[pi]
	var raw []byte
	var err error
	if p.direct {
		// The decoded value is the stored bytes: read them straight into
		// the decoder's memory (the decoder then skips its copy).
		raw, err = l.r.AppendRawInto(l.value(s, p.steps[0].buf, j, false).Data[:0], idx, p.field, m)
	} else {
		raw, err = l.r.AppendRawInto(w.scratch[:0], idx, p.field, m)
		w.scratch = raw
	}
	l.readTime.Add(int64(time.Since(t0)))
	if err != nil {
		return nil, &SampleError{Path: l.path, Index: idx, Field: p.name, Op: opRead, Err: err}
	}
	return raw, nil
}

// sample runs the plain Go ops of the given pass of plan p on sample idx,
// the j-th of slot s, and the Draw functions of the compiled ops of the
// stages that follow them in that pass.
func (w *worker) sample(s *slot, p *plan, pi, pass, j, idx, epoch int) error {
	l := w.l
	smp := &w.s
	for k := range p.steps {
		st := &p.steps[k]
		if st.phase != pass {
			continue
		}
		if st.kernel != nil {
			if n := st.kernel.PerSample; n > 0 {
				if err := w.draw(s, p, k, j, idx, epoch); err != nil {
					return err
				}
			}
			continue
		}
		var in Value
		if k == 0 {
			raw, err := w.read(s, p, pi, j, idx)
			if err != nil {
				return err
			}
			smp.Raw, smp.Meta = raw, w.metas[pi]
		} else {
			in = l.value(s, p.steps[k-1].buf, j, true)
			smp.Raw = nil
		}
		out := l.value(s, st.buf, j, false)
		if k == 0 || st.buf != p.steps[k-1].buf {
			if !st.out.GoValue {
				copy(out.Shape, st.out.Shape)
			}
		}
		smp.Index, smp.Epoch = idx, epoch
		smp.In, smp.Out = in, out
		smp.Refs = w.refs[:len(st.refs)]
		for r, loc := range st.refs {
			smp.Refs[r] = l.value(s, l.plans[loc.plan].steps[loc.step].buf, j, true)
		}
		smp.rand.reset(st.key, idx, epoch)
		if err := call(st.run, smp); err != nil {
			return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: st.op, Err: err}
		}
		if st.out.GoValue {
			s.gov[st.buf][j] = smp.Out.Go
			continue
		}
		out = smp.Out
		bf := &l.bufs[st.buf]
		for d, x := range out.Shape {
			if x < 0 || x > bf.alloc.Shape[d] && st.out.Variable || !st.out.Variable && x != st.out.Shape[d] {
				return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: st.op,
					Err: fmt.Errorf("produced shape %v, outside its declared %s", out.Shape, st.out)}
			}
		}
		used := out.Elems() * st.out.DType.Size()
		if used > len(out.Data) {
			return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: st.op,
				Err: fmt.Errorf("produced shape %v, larger than its memory", out.Shape)}
		}
		sh := s.shp32[st.buf][j*bf.rank : (j+1)*bf.rank]
		for d, x := range out.Shape {
			sh[d] = int32(x)
		}
		// The value a compiled stage or the user reads: clear the memory
		// past it, so a batch's content is a function of its samples only.
		if k == len(p.steps)-1 || p.steps[k+1].kernel != nil {
			clear(out.Data[used:])
		}
	}
	return nil
}

// draw fills the per-sample inputs of compiled op k of plan p for sample
// idx, the j-th of slot s.
func (w *worker) draw(s *slot, p *plan, k, j, idx, epoch int) error {
	l := w.l
	st := &p.steps[k]
	smp := &w.s
	n := st.kernel.PerSample
	// The value at the start of the op's stage.
	from := l.stages[st.stage].from
	smp.Index, smp.Epoch, smp.Raw = idx, epoch, nil
	smp.In, smp.Out, smp.Refs = l.value(s, p.steps[from-1].buf, j, true), Value{}, nil
	if !st.in.Variable {
		// A fixed-size input has its declared shape, whatever the stage's
		// input was (a resized crop of a variable-size decode).
		smp.In.Shape, smp.In.DType = st.in.Shape, st.in.DType
	}
	smp.rand.reset(st.key, idx, epoch)
	np := l.stages[st.stage].npar
	dst := s.params[st.stage][j*np+st.par : j*np+st.par+n]
	if err := callDraw(st.kernel.Draw, smp, dst); err != nil {
		return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: st.op, Err: fmt.Errorf("kernel input (Draw): %w", err)}
	}
	if st.folded && dst[0] != 0 {
		// A flip folded into the op before it, whose inputs were drawn
		// just before (steps draw in order).
		prev := &p.steps[k-1]
		m := prev.kernel.PerSample
		prev.kernel.Mirror(s.params[st.stage][j*np+prev.par : j*np+prev.par+m])
	}
	return nil
}

// finish runs what is left of a batch once every worker has run the plain
// Go ops of pass 0 on its samples: the compiled stages of pass 0, then
// each later pass (its plain Go ops, on this goroutine, then its compiled
// stages).
func (w *worker) finish(ctx context.Context, s *slot) error {
	l := w.l
	for pass := range l.passes {
		if pass > 0 {
			if at, err := w.fill(ctx, s, pass, 0, s.batch.n); err != nil {
				s.setErr(at, err)
				return nil
			}
		}
		for i := range l.stages {
			if ctx.Err() != nil {
				return nil
			}
			if sg := &l.stages[i]; sg.compiled && sg.phase == pass {
				if err := l.runStage(i, s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// callDraw runs a Kernel's Draw, turning a panic into an error.
func callDraw(draw func(*Sample, []float32), s *Sample, dst []float32) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	draw(s, dst)
	return nil
}

// call runs an op's Run, turning a panic into an error.
func call(run func(*Sample) error, s *Sample) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return run(s)
}

// chunksPerWorker is how many pieces a batch is cut into per worker.
const chunksPerWorker = 4
