package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
	"github.com/gojit/gojit/internal/philox"
)

// step is one op of a field's pipeline, as declared.
type step struct {
	name string
	run  func(*Sample) error
	in   State
	out  State
	buf  int      // the buffer holding the output
	refs []refLoc // the referenced values
	key  philox.Key

	kernel *Kernel     // an op without Run: run by kernel, over the batch
	fn     *gojit.Func // its Trace, compiled
}

// refLoc locates a referenced value: the output of step of plan.
type refLoc struct{ plan, step int }

// plan is a field's pipeline.
type plan struct {
	name  string
	field int // index in the schema
	ops   []Op
	steps []step
	tail  int // steps[tail:] are kernel-only ops, run over the batch
	// direct: the decoder's value is the stored bytes, read straight into
	// its memory.
	direct bool
}

// final returns the step whose output is the field's value.
func (p *plan) final() *step { return &p.steps[len(p.steps)-1] }

// buffer is one per-sample allocation, made BatchSize times per slot.
type buffer struct {
	alloc Alloc
	rank  int
	per   int // bytes per sample
}

// storedState returns the state of a field's stored bytes: the dtype and
// (maximum) shape its decoder produces. maxOf gives the largest stored
// value of a Bytes, JSON or Image field without MaxRes (from the file's
// descriptors, or the decoder's declared bound).
func storedState(f *dataset.Field, maxOf func() ([]int, error)) (State, error) {
	st := State{Stored: f}
	switch f.Kind {
	case dataset.KindInt:
		st.DType, st.Shape = gojit.Int64, []int{}
	case dataset.KindFloat:
		st.DType, st.Shape = gojit.Float64, []int{}
	case dataset.KindNDArray:
		st.DType, st.Shape, st.Variable = f.DType, slices.Clone(f.Shape), f.Variable
	case dataset.KindBytes, dataset.KindJSON, dataset.KindImage:
		st.DType, st.Variable = gojit.Uint8, true
		if f.Kind == dataset.KindImage && f.Image.MaxRes > 0 {
			// The declared bound, not the file's maxima: batches of every
			// file of this schema then have one shape.
			c := f.Image.Channels
			if c == 0 {
				c = 4
				if f.Image.Encoding == dataset.JPEG {
					c = 3
				}
			}
			st.Shape = []int{f.Image.MaxRes, f.Image.MaxRes, c}
			break
		}
		m, err := maxOf()
		if err != nil {
			return st, err
		}
		st.Shape = m
	default:
		return st, fmt.Errorf("unknown field kind %s", f.Kind)
	}
	return st, nil
}

// Decoder marks an Op that reads a field's stored bytes: a field's op
// list that does not start with one gets the field's DefaultDecoder put
// first.
type Decoder interface {
	Op
	// Decoder is a marker; it does nothing.
	Decoder()
}

// buildPlans declares every field's ops in dependency order and assigns
// their memory to buffers.
func buildPlans(path string, schema dataset.Schema, fields map[string][]Op, seed int64, maxOf func(field int) ([]int, error)) ([]plan, []buffer, error) {
	fail := func(format string, a ...any) ([]plan, []buffer, error) {
		return nil, nil, fmt.Errorf("pipeline: %s: %s", path, fmt.Sprintf(format, a...))
	}
	var names []string
	if fields == nil {
		for _, f := range schema.Fields {
			names = append(names, f.Name)
		}
	} else {
		for name := range fields {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return fail("no fields to load")
	}
	var plans []plan
	index := map[string]int{}
	for _, name := range names {
		fi, ok := schema.Index(name)
		if !ok {
			return fail("Config.Fields names %q, which the file does not have (its fields: %s)", name, fieldNames(schema))
		}
		ops := fields[name]
		for k, op := range ops {
			if op == nil {
				return fail("field %q: op %d is nil", name, k)
			}
		}
		if _, ok := firstOp(ops).(Decoder); !ok {
			ops = append([]Op{DefaultDecoder(schema.Fields[fi].Kind)}, ops...)
		}
		index[name] = len(plans)
		plans = append(plans, plan{name: name, field: fi, ops: ops, steps: make([]step, len(ops))})
	}

	// Resolve references and order the plans so that a referenced field's
	// pipeline runs first (Kahn's algorithm, ties in name order).
	deps := make([][]int, len(plans))
	for pi := range plans {
		p := &plans[pi]
		for k, op := range p.ops {
			p.steps[k] = step{name: op.Name(), key: opKey(seed, p.name, k)}
			if rs, ok := op.(RandSharer); ok && rs.RandStream() != "" {
				p.steps[k].key = opKey(seed, "\x00stream "+rs.RandStream(), 0)
			}
			r, ok := op.(Referrer)
			if !ok {
				continue
			}
			for _, ref := range r.Refs() {
				qi, ok := index[ref.Field]
				if !ok {
					return fail("field %q: op %d (%s) references field %q, which is not loaded (loaded: %s)", p.name, k, op.Name(), ref.Field, strings.Join(names, ", "))
				}
				n := len(plans[qi].ops)
				s := ref.Step - 1
				if ref.Step == 0 {
					s = n - 1
				}
				if s < 0 || s >= n {
					return fail("field %q: op %d (%s) references step %d of field %q, which has %d ops", p.name, k, op.Name(), ref.Step, ref.Field, n)
				}
				if qi == pi && s >= k {
					return fail("field %q: op %d (%s) references its own field's step %d, which is not before it", p.name, k, op.Name(), s+1)
				}
				p.steps[k].refs = append(p.steps[k].refs, refLoc{qi, s})
				if qi != pi {
					deps[pi] = append(deps[pi], qi)
				}
			}
		}
	}
	order, err := topoOrder(plans, deps)
	if err != nil {
		return fail("%v", err)
	}

	var bufs []buffer
	for _, pi := range order {
		p := &plans[pi]
		f := &schema.Fields[p.field]
		in, err := storedState(f, func() ([]int, error) {
			if d, ok := p.ops[0].(decoder); ok && d.max != nil {
				return d.max, nil // the decoder's bound wins over the file's
			}
			return maxOf(p.field)
		})
		if err != nil {
			return fail("field %q: %v", p.name, err)
		}
		for k, op := range p.ops {
			st := &p.steps[k]
			refStates := make([]State, len(st.refs))
			for j, r := range st.refs {
				refStates[j] = plans[r.plan].steps[r.step].out
			}
			d, err := declare(op, in, refStates)
			if err == nil {
				err = checkDecl(in, d)
			}
			if err != nil {
				return fail("field %q: op %d (%s) given %s: %v", p.name, k, op.Name(), in, err)
			}
			st.run, st.in, st.out = d.Run, in, d.Out
			if d.Run == nil {
				if len(st.refs) > 0 {
					return fail("field %q: op %d (%s) is a kernel-only op with references, which only the stage compiler will run", p.name, k, op.Name())
				}
				if st.fn, err = compileKernel(d.Kernel); err != nil {
					return fail("field %q: op %d (%s): %v", p.name, k, op.Name(), err)
				}
				st.kernel = d.Kernel
			}
			if d.Memory == nil {
				st.buf = p.steps[k-1].buf
			} else {
				a := *d.Memory
				a.Shape = slices.Clone(a.Shape)
				st.buf = len(bufs)
				bufs = append(bufs, buffer{alloc: a, rank: len(a.Shape), per: a.Bytes()})
			}
			in = d.Out
		}
		if d, ok := p.ops[0].(decoder); ok {
			p.direct = d.direct || rawImage(d, f)
		}
		p.tail = len(p.steps)
		for p.tail > 0 && p.steps[p.tail-1].kernel != nil {
			p.tail--
		}
		for k := range p.steps[:p.tail] {
			if p.steps[k].kernel != nil {
				return fail("field %q: op %d (%s) has only a kernel but plain Go ops follow it; until the stage compiler, kernel-only ops must end a field's pipeline", p.name, k, p.steps[k].name)
			}
		}
	}
	// A referenced value must survive until the end of its field's
	// pipeline: no later op may rewrite its memory in place.
	for pi, p := range plans {
		for k, st := range p.steps {
			for _, r := range st.refs {
				q := &plans[r.plan]
				if r.step >= q.tail {
					return fail("field %q: op %d (%s) references step %d of field %q, which a kernel computes over the whole batch after the plain Go ops", p.name, k, st.name, r.step+1, q.name)
				}
				for t := r.step + 1; t < len(q.steps); t++ {
					// Another field's pipeline runs whole before this one;
					// in this field's own, only the ops before k matter.
					if q.steps[t].buf == q.steps[r.step].buf && (r.plan != pi || t < k) {
						return fail("field %q: op %d (%s) references step %d of field %q, whose memory op %d (%s) rewrites in place", p.name, k, st.name, r.step+1, q.name, t, q.steps[t].name)
					}
				}
			}
		}
	}
	sorted := make([]plan, len(order))
	remap := make([]int, len(plans))
	for i, pi := range order {
		sorted[i] = plans[pi]
		remap[pi] = i
	}
	for i := range sorted {
		for k := range sorted[i].steps {
			for j := range sorted[i].steps[k].refs {
				sorted[i].steps[k].refs[j].plan = remap[sorted[i].steps[k].refs[j].plan]
			}
		}
	}
	return sorted, bufs, nil
}

// compileKernel wraps a kernel's Trace for gojit.Compile: its arguments
// are the batch, the samples' shapes and, if it has any, its per-sample
// inputs.
func compileKernel(k *Kernel) (*gojit.Func, error) {
	if k.PerSample > 0 {
		return gojit.Compile(func(x, shapes, params *gojit.Tensor) *gojit.Tensor { return k.Trace(x, shapes, params, nil) })
	}
	return gojit.Compile(func(x, shapes *gojit.Tensor) *gojit.Tensor { return k.Trace(x, shapes, nil, nil) })
}

func firstOp(ops []Op) Op {
	if len(ops) == 0 {
		return nil
	}
	return ops[0]
}

// declare calls op.Declare, turning a panic into an error.
func declare(op Op, in State, refs []State) (d Decl, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Declare panicked: %v", r)
		}
	}()
	return op.Declare(in, refs)
}

// topoOrder orders the plans so that each comes after the plans it
// depends on, or reports a cycle.
func topoOrder(plans []plan, deps [][]int) ([]int, error) {
	indeg := make([]int, len(plans))
	users := make([][]int, len(plans))
	for pi, ds := range deps {
		for _, q := range ds {
			indeg[pi]++
			users[q] = append(users[q], pi)
		}
	}
	var order, ready []int
	for pi := range plans {
		if indeg[pi] == 0 {
			ready = append(ready, pi)
		}
	}
	for len(ready) > 0 {
		pi := ready[0]
		ready = ready[1:]
		order = append(order, pi)
		for _, u := range users[pi] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
				slices.Sort(ready)
			}
		}
	}
	if len(order) < len(plans) {
		var cyc []string
		for pi := range plans {
			if indeg[pi] > 0 {
				cyc = append(cyc, fmt.Sprintf("%q", plans[pi].name))
			}
		}
		return nil, fmt.Errorf("the references between fields %s form a cycle", strings.Join(cyc, ", "))
	}
	return order, nil
}

func fieldNames(s dataset.Schema) string {
	var names []string
	for _, f := range s.Fields {
		names = append(names, fmt.Sprintf("%q", f.Name))
	}
	return strings.Join(names, ", ")
}
