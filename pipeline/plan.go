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
	op   int // the op's position in the field's pipeline
	run  func(*Sample) error
	in   State
	out  State
	buf  int      // the buffer holding the output; -1 inside a compiled stage
	refs []refLoc // the referenced values
	key  philox.Key

	// A compiled op (kernel != nil) runs in compiled stage stage, fused
	// with its neighbours; par is the first column of its per-sample
	// inputs (Kernel.Draw) in its stage's array of them, or -1.
	kernel *Kernel
	stage  int
	par    int
	// folded: a RandomHorizontalFlip folded into the op before it (see
	// Kernel.Mirror); its Trace is skipped and its Draw rewrites the
	// previous op's per-sample inputs.
	folded bool
	// note is the op's Decl.Note.
	note string
	// phase is the pass of the batch in which the step runs: the loader
	// runs every field's plain Go ops of pass 0 on each sample, then the
	// compiled stages of pass 0 over the batch, then the plain Go ops of
	// pass 1, and so on. Most pipelines have one pass.
	phase int
}

// refLoc locates a referenced value: the output of step of plan.
type refLoc struct{ plan, step int }

// plan is a field's pipeline.
type plan struct {
	name  string
	field int // index in the schema
	ops   []Op
	steps []step
	// opEnd maps an op's position to its last step (an op with a Split
	// runs as two steps).
	opEnd []int
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
	side  int // side values per sample
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
func buildPlans(path string, schema dataset.Schema, fields map[string][]Op, seed int64, noCompile bool, maxOf func(field int) ([]int, error)) ([]plan, []buffer, error) {
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
	// Declare every op, in dependency order, and decide which run
	// compiled: an op with a Kernel whose input is compilable (unless
	// noCompile, when it has a Run too).
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
		steps := make([]step, 0, len(p.ops))
		p.opEnd = make([]int, len(p.ops))
		for k, op := range p.ops {
			st := p.steps[k] // name, key and refs (by op position)
			st.op = k
			refStates := make([]State, len(st.refs))
			for j, r := range st.refs {
				if r.plan == pi {
					refStates[j] = steps[p.opEnd[r.step]].out
				} else {
					q := &plans[r.plan]
					refStates[j] = q.steps[q.opEnd[r.step]].out
				}
			}
			d, err := declare(op, in, refStates)
			compiled := false
			if err == nil {
				compiled = d.Kernel != nil && d.Kernel.Trace != nil && in.Compilable && (d.Run == nil || !noCompile)
				err = checkDecl(in, d, compiled)
			}
			if err == nil && d.Split != nil && !noCompile {
				err = checkSplit(in, d)
			}
			if err != nil {
				return fail("field %q: op %d (%s) given %s: %v", p.name, k, op.Name(), in, err)
			}
			if d.Split != nil && !noCompile {
				// The op runs in two steps: its plain Go part, writing the
				// intermediate value, and its compiled part.
				sp := d.Split
				a := st
				a.refs = nil
				a.run, a.in, a.out, a.par = sp.Run, in, sp.Mid, -1
				a.buf = newBuffer(&bufs, sp.Memory, sp.Mid.Side)
				steps = append(steps, a)
				st.name = sp.Kernel.Name
				st.kernel, st.in, st.out, st.par, st.buf = sp.Kernel, sp.Mid, d.Out, -1, -1
				st.out.Compilable = true
				steps = append(steps, st)
				p.opEnd[k] = len(steps) - 1
				in = st.out
				continue
			}
			st.run, st.in, st.out, st.par, st.buf = d.Run, in, d.Out, -1, -1
			st.note = d.Note
			if compiled {
				st.kernel = d.Kernel
				st.out.Compilable = true
			} else if d.Memory == nil {
				st.buf = -3 // in place: the previous step's, resolved below
			} else {
				st.buf = newBuffer(&bufs, *d.Memory, d.Out.Side)
			}
			steps = append(steps, st)
			p.opEnd[k] = len(steps) - 1
			in = st.out
		}
		p.steps = steps
		if d, ok := p.ops[0].(decoder); ok {
			p.direct = d.direct || rawImage(d, f)
		}
	}
	// References now name steps, not op positions.
	for pi := range plans {
		for k := range plans[pi].steps {
			st := &plans[pi].steps[k]
			for j, r := range st.refs {
				st.refs[j].step = plans[r.plan].opEnd[r.step]
			}
		}
	}
	// A compiled op's output reaches memory (a buffer) when it ends its
	// stage or the pipeline, or another stage or plain Go op reads it.
	for _, p := range plans {
		for k := range p.steps {
			st := &p.steps[k]
			if st.kernel != nil && (k == len(p.steps)-1 || p.steps[k+1].kernel == nil) {
				st.buf = -2 // materialize; assigned below
			}
		}
	}
	for pi := range plans {
		for k := range plans[pi].steps {
			st := &plans[pi].steps[k]
			for _, r := range st.refs {
				q := &plans[r.plan].steps[r.step]
				// A ref within the same stage is a value of the trace.
				if q.kernel != nil && !(r.plan == pi && st.kernel != nil && sameStage(plans[pi].steps, r.step, k)) {
					q.buf = -2
				}
			}
		}
	}
	for pi := range plans {
		for k := range plans[pi].steps {
			st := &plans[pi].steps[k]
			if st.buf == -2 {
				st.buf = newBuffer(&bufs, Alloc{DType: st.out.DType, Shape: st.out.Shape}, 0)
			}
			if st.buf == -3 {
				st.buf = plans[pi].steps[k-1].buf
			}
		}
	}
	// A referenced value must survive until the end of its field's
	// pipeline: no later op may rewrite its memory in place.
	for pi, p := range plans {
		for k, st := range p.steps {
			for _, r := range st.refs {
				q := &plans[r.plan]
				for t := r.step + 1; t < len(q.steps); t++ {
					// Another field's pipeline runs whole before this one;
					// in this field's own, only the ops before k matter.
					if q.steps[r.step].buf >= 0 && q.steps[t].buf == q.steps[r.step].buf && (r.plan != pi || t < k) {
						return fail("field %q: op %d (%s) references step %d of field %q, whose memory op %d (%s) rewrites in place", p.name, st.op, st.name, q.steps[r.step].op+1, q.name, q.steps[t].op, q.steps[t].name)
					}
				}
			}
		}
	}
	if err := assignPhases(plans, order); err != nil {
		return fail("%v", err)
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

// newBuffer appends a buffer for alloc (with side values) and returns
// its index.
func newBuffer(bufs *[]buffer, a Alloc, side int) int {
	a.Shape = slices.Clone(a.Shape)
	*bufs = append(*bufs, buffer{alloc: a, rank: len(a.Shape), per: a.Bytes(), side: side})
	return len(*bufs) - 1
}

// sameStage reports whether steps a < b are compiled ops of one stage: no
// plain Go op between them.
func sameStage(steps []step, a, b int) bool {
	for t := a; t <= b; t++ {
		if steps[t].kernel == nil {
			return false
		}
	}
	return true
}

// assignPhases gives every step the pass it runs in: a plain Go op runs
// in the pass after the last compiled stage it depends on (through its
// field's previous ops or its references), a compiled stage in the pass
// of the latest plain Go op or stage it depends on. plans are visited in
// dependency order, so referenced steps are assigned first.
func assignPhases(plans []plan, order []int) error {
	for _, pi := range order {
		p := &plans[pi]
		for k := 0; k < len(p.steps); {
			if p.steps[k].kernel == nil {
				st := &p.steps[k]
				ph := 0
				if k > 0 {
					prev := &p.steps[k-1]
					ph = prev.phase
					if prev.kernel != nil {
						ph++
					}
				}
				for _, r := range st.refs {
					q := &plans[r.plan].steps[r.step]
					if q.kernel != nil {
						ph = max(ph, q.phase+1)
					} else {
						ph = max(ph, q.phase)
					}
				}
				st.phase = ph
				k++
				continue
			}
			// A stage: steps[k:e] are compiled.
			e := k
			for e < len(p.steps) && p.steps[e].kernel != nil {
				e++
			}
			ph := 0
			if k > 0 {
				ph = p.steps[k-1].phase
			}
			for t := k; t < e; t++ {
				for _, r := range p.steps[t].refs {
					if r.plan == pi && r.step >= k {
						continue // a value of the stage itself
					}
					ph = max(ph, plans[r.plan].steps[r.step].phase)
				}
			}
			for t := k; t < e; t++ {
				p.steps[t].phase = ph
			}
			k = e
		}
	}
	return nil
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
