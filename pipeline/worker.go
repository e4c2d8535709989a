package pipeline

import (
	"context"
	"fmt"

	"github.com/gojit/gojit"
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

// fill runs every field's pipeline on samples lo..hi-1 of slot s and
// returns the first failing sample's position and error.
func (w *worker) fill(ctx context.Context, s *slot, lo, hi int) (int, error) {
	l := w.l
	b := &s.batch
	for j := lo; j < hi; j++ {
		if ctx.Err() != nil {
			return j, nil
		}
		idx := b.indices[j]
		for pi := range l.plans {
			if err := w.sample(s, &l.plans[pi], pi, j, idx, b.epoch); err != nil {
				return j, err
			}
		}
	}
	return hi, nil
}

// sample runs plan p on sample idx, the j-th of slot s.
func (w *worker) sample(s *slot, p *plan, pi, j, idx, epoch int) error {
	l := w.l
	smp := &w.s
	var err error
	m := &w.metas[pi]
	var raw []byte
	if p.direct {
		// The decoded value is the stored bytes: read them straight into
		// the decoder's memory (the decoder then skips its copy).
		raw, err = l.r.AppendRawInto(l.value(s, p.steps[0].buf, j, false).Data[:0], idx, p.field, m)
	} else {
		raw, err = l.r.AppendRawInto(w.scratch[:0], idx, p.field, m)
		w.scratch = raw
	}
	smp.Meta = *m
	if err != nil {
		return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: opRead, Err: err}
	}
	smp.Index, smp.Epoch, smp.Raw = idx, epoch, raw
	in := Value{}
	for k := range p.steps[:p.tail] {
		st := &p.steps[k]
		out := l.value(s, st.buf, j, false)
		if k > 0 && st.buf == p.steps[k-1].buf {
			out.Shape = in.Shape // in place
		} else if !st.out.GoValue {
			copy(out.Shape, st.out.Shape)
		}
		smp.In, smp.Out = in, out
		smp.Refs = w.refs[:len(st.refs)]
		for r, loc := range st.refs {
			smp.Refs[r] = l.value(s, l.plans[loc.plan].steps[loc.step].buf, j, true)
		}
		smp.rand.reset(st.key, idx, epoch)
		if err := call(st.run, smp); err != nil {
			return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: k, Err: err}
		}
		if st.out.GoValue {
			s.gov[st.buf][j] = smp.Out.Go
			in = Value{Go: smp.Out.Go}
			continue
		}
		out = smp.Out
		for d, x := range out.Shape {
			if x < 0 || x > l.bufs[st.buf].alloc.Shape[d] && st.out.Variable || !st.out.Variable && x != st.out.Shape[d] {
				return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: k,
					Err: fmt.Errorf("produced shape %v, outside its declared %s", out.Shape, st.out)}
			}
		}
		used := out.Elems() * st.out.DType.Size()
		if used > len(out.Data) {
			return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: k,
				Err: fmt.Errorf("produced shape %v, larger than its memory", out.Shape)}
		}
		in = out
		in.Data = out.Data[:used]
	}
	// The value of the last plain Go op (the field's value, or the input
	// of its compiled tail): clear the memory past it, so a batch's
	// content is a function of its samples only, and publish its shape.
	if last := &p.steps[p.tail-1]; !last.out.GoValue {
		bf := &l.bufs[last.buf]
		full := l.value(s, last.buf, j, false)
		clear(full.Data[len(in.Data):])
		sh := s.shp32[last.buf][j*bf.rank : (j+1)*bf.rank]
		for d, x := range in.Shape {
			sh[d] = int32(x)
		}
	}
	// The compiled tail's per-sample inputs.
	for k := p.tail; k < len(p.steps); k++ {
		st := &p.steps[k]
		if n := st.kernel.PerSample; n > 0 {
			smp.In, smp.Out, smp.Refs = in, Value{}, nil
			smp.rand.reset(st.key, idx, epoch)
			dst := s.params[st.buf][j*n : (j+1)*n]
			if err := call(func(smp *Sample) error { st.kernel.Draw(smp, dst); return nil }, smp); err != nil {
				return &SampleError{Path: l.path, Index: idx, Field: p.name, Op: st.name, Step: k, Err: fmt.Errorf("kernel input (Draw): %w", err)}
			}
		}
	}
	return nil
}

// kernels runs the compiled tails of the fields' pipelines on a filled
// batch: each op's kernel once over the whole batch.
func (l *Loader) kernels(s *slot) error {
	n := s.batch.n
	for pi := range l.plans {
		p := &l.plans[pi]
		prev := p.steps[p.tail-1].buf
		for k := p.tail; k < len(p.steps); k++ {
			st := &p.steps[k]
			x, shapes, _ := s.arr(prev, n)
			out, _, params := s.arr(st.buf, n) // params belong to the op's own buffer
			args := []any{x, shapes}
			if st.kernel.PerSample > 0 {
				args = append(args, params)
			}
			if err := st.fn.CallInto([]*gojit.Array{out}, args...); err != nil {
				return fmt.Errorf("pipeline: %s: epoch %d batch %d, field %q, op %d (%s), kernel: %w", l.path, s.batch.epoch, s.batch.number, p.name, k, st.name, err)
			}
			rank := l.bufs[st.buf].rank
			if st.out.Variable {
				copy(s.shp32[st.buf][:n*rank], s.shp32[prev][:n*rank])
			} else {
				for j := range n {
					for d, x := range st.out.Shape {
						s.shp32[st.buf][j*rank+d] = int32(x)
					}
				}
			}
			prev = st.buf
		}
	}
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
