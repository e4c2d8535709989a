package gojit

import (
	"fmt"

	"github.com/gojit/gojit/internal/ir"
)

// Control flow. Tracing runs Go code once, so a Go if or for over a
// traced value cannot see the value; Cond, While and ForLoop record the
// branch or loop itself, as JAX's lax.cond, lax.while_loop and
// lax.fori_loop do. Each function given to them is traced once, into a
// region: a sub-graph the compiled code runs zero or more times
// (internal/ir/control.go).
//
// A region is traced by a tracer of its own, a child of the trace that
// encloses it. While it is open, every op whose operands belong to the
// enclosing traces is recorded in the region (scope), and an operand from
// an enclosing trace becomes a parameter of the region, bound to that
// value (capture): the region's graph is closed, and the op lists the
// captured values as operands.

// regionState is the control-flow state of a tracer.
type regionState struct {
	parent *tracer // the enclosing trace; nil on a top-level trace
	// open, on a top-level trace, is the innermost region being traced.
	open   *tracer
	closed bool // the region's tracing has ended
	// captured maps a tensor of an enclosing trace to its parameter here;
	// outer lists, in parameter order after the region's own parameters,
	// the values of the parent those parameters are bound to.
	captured map[importKey]ir.Value
	keys     []importKey
	outer    []ir.Value
}

func (tr *tracer) parent() *tracer {
	if tr.region == nil {
		return nil
	}
	return tr.region.parent
}

func (tr *tracer) top() *tracer {
	for tr.parent() != nil {
		tr = tr.parent()
	}
	return tr
}

// within reports whether tr is anc or a region inside it.
func (tr *tracer) within(anc *tracer) bool {
	for t := tr; t != nil; t = t.parent() {
		if t == anc {
			return true
		}
	}
	return false
}

// constantHost reports whether tr is a region inside a trace of constants
// only (a control-flow op whose operands were all made by Full or Iota),
// which cannot capture the traced function's tensors.
func (tr *tracer) constantHost() bool { return tr.parent() != nil && !tr.top().params }

func (tr *tracer) closedRegion() bool { return tr.region != nil && tr.region.closed }

// scope returns the tracer an op over tensors of tr records into: the
// innermost region being traced, when it is inside tr; else tr.
func (tr *tracer) scope() *tracer {
	top := tr.top()
	if top.region != nil && top.region.open != nil && top.region.open.within(tr) {
		return top.region.open
	}
	if tr.closedRegion() {
		// A tensor leaked out of a finished region: report in the
		// innermost open trace, where own names the problem.
		if top.region != nil && top.region.open != nil {
			return top.region.open
		}
		return top
	}
	return tr
}

// capture returns the parameter of region tr bound to value v of src, an
// enclosing trace, adding it (and capturing it in the regions between) on
// first use.
func (tr *tracer) capture(src *tracer, v ir.Value) ir.Value {
	rs := tr.region
	key := importKey{src, v}
	if p, ok := rs.captured[key]; ok {
		return p
	}
	outer := v
	if rs.parent != src {
		outer = rs.parent.capture(src, v)
	}
	return tr.addCapture(key, outer)
}

// addCapture adds a parameter bound to value outer of the parent.
func (tr *tracer) addCapture(key importKey, outer ir.Value) ir.Value {
	rs := tr.region
	par := rs.parent
	n := &par.g.Nodes[outer]
	p, err := tr.g.AddParam(n.DType, n.Shape.Clone(), n.Pos)
	if err != nil {
		panic(fmt.Sprintf("gojit: capturing a valid value failed: %v", err)) // broken invariant
	}
	tr.pcs = append(tr.pcs, par.pcs[outer])
	if rs.captured == nil {
		rs.captured = map[importKey]ir.Value{}
	}
	rs.captured[key] = p
	rs.keys = append(rs.keys, key)
	rs.outer = append(rs.outer, outer)
	return p
}

// openRegion starts a region inside tr whose own parameters have the
// given types, and makes it the innermost open region.
func (tr *tracer) openRegion(params []ir.Type, pcs callStack) (*tracer, []*Tensor) {
	r := newTracer()
	r.params = true
	r.region = &regionState{parent: tr}
	state := make([]*Tensor, len(params))
	for i, t := range params {
		v, err := r.g.AddParam(t.DType, t.Shape.Clone(), "")
		if err != nil {
			panic(fmt.Sprintf("gojit: a region parameter of a valid type failed: %v", err)) // broken invariant
		}
		r.pcs = append(r.pcs, pcs)
		state[i] = &Tensor{tr: r, v: v}
	}
	top := tr.top()
	if top.region == nil {
		top.region = &regionState{}
	}
	top.region.open = r
	return r, state
}

// closeRegion ends region r: positions are resolved, errors move to the
// parent, and the parent's innermost open region is the parent again.
func (r *tracer) closeRegion() {
	par := r.region.parent
	r.region.closed = true
	top := par.top()
	if par.region != nil && par.region.parent != nil {
		top.region.open = par
	} else {
		top.region.open = nil
	}
	for i := range r.g.Nodes {
		if n := &r.g.Nodes[i]; n.Pos == "" {
			n.Pos, n.Call = userSite(r.pcs[i])
			if c, ok := r.calls[ir.Value(i)]; ok {
				n.Call = c
			}
		}
	}
	par.errs = append(par.errs, r.errs...)
	r.errs = nil
}

// shareCaptures makes regions a and b take the same parameters: b first
// gets a's captures (so it must have none yet), and after b is traced,
// extend gives a the captures b added.
func shareCaptures(a, b *tracer) {
	for i, key := range a.region.keys {
		b.addCapture(key, a.region.outer[i])
	}
}

func extendCaptures(a, b *tracer) {
	for i := len(a.region.keys); i < len(b.region.keys); i++ {
		a.addCapture(b.region.keys[i], b.region.outer[i])
	}
}

// ownResults brings the values a region's function returned into region
// r (closed, its parent par): a tensor of an enclosing trace is captured
// now, so that the regions sharing parameters (shareCaptures) see it.
// Weak scalars are left for finishResults, which knows their type.
func (r *tracer) ownResults(par *tracer, op string, ts []*Tensor, pcs callStack) ([]*Tensor, bool) {
	ok := true
	out := make([]*Tensor, len(ts))
	for i, t := range ts {
		if t != nil && t.weak {
			continue
		}
		u, good := r.own(op, i, t, pcs)
		out[i], ok = u, ok && good
	}
	par.errs = append(par.errs, r.errs...)
	r.errs = nil
	return out, ok
}

// finishResults makes the results outputs of region r: locals from
// ownResults, and for a weak scalar a constant of the type want gives
// (Float32 when want has no entry).
func (r *tracer) finishResults(par *tracer, op string, ts, locals []*Tensor, want []ir.Type, pcs callStack) bool {
	ok := true
	for i, t := range ts {
		if u := locals[i]; u != nil {
			r.g.Outputs = append(r.g.Outputs, u.v)
			continue
		}
		typ := ir.Type{DType: ir.Float32}
		if i < len(want) {
			typ = want[i]
		}
		if !weakFits(typ.DType, t.val) {
			par.fail(op, pcs, "result %d: %v is not a %s value", i, t.val, typ.DType)
			ok = false
			continue
		}
		c := r.constant(typ.DType, typ.Shape, t.val, pcs)
		r.g.Outputs = append(r.g.Outputs, c.v)
	}
	for i := range r.g.Nodes {
		if n := &r.g.Nodes[i]; n.Pos == "" {
			n.Pos, n.Call = userSite(r.pcs[i])
		}
	}
	return ok
}

// callRegion calls a region's function. A panic in it is not recovered
// here: it ends the whole trace, and the trace's own recovery names the
// line that panicked.
func callRegion[T any](_ *tracer, _ string, _ callStack, fn func() T) (T, bool) {
	return fn(), true
}

// poisonedN returns n poisoned results (at least one, so that indexing the
// result is not the user's next problem).
func poisonedN(tr *tracer, op string, n int) []*Tensor {
	out := make([]*Tensor, max(n, 1))
	for i := range out {
		out[i] = failed(tr, op)
	}
	return out
}

// Cond returns the results of then() when pred is true and of otherwise()
// when it is false, as JAX's lax.cond. pred must be a 0-D Bool tensor.
// Both functions are traced (once each), as regions of which the compiled
// code runs one; they may use any tensor of the enclosing trace, and must
// return the same number of results with equal dtypes and shapes (a
// gojit.Scalar result takes the dtype and shape of the other branch's).
// Errors, recorded like every tracing error, name the caller's file:line.
func Cond(pred *Tensor, then, otherwise func() []*Tensor) []*Tensor {
	pcs := callers()
	const op = "Cond"
	if pred == nil || pred.weak {
		tr := newTracer()
		tr.params = true
		tr.fail(op, pcs, "the predicate must be a 0-D Bool tensor, got %v (for a Go value, use a Go if)", pred)
		return poisonedN(tr, op, 1)
	}
	tr, ps, ok := unify(op, pcs, pred)
	if !ok {
		return poisonedN(tr, op, 1)
	}
	if then == nil || otherwise == nil {
		tr.fail(op, pcs, "then and otherwise must be non-nil functions")
		return poisonedN(tr, op, 1)
	}
	p := ps[0]
	if pt := tr.g.TypeOf(p.v); !pt.Equal(ir.Type{DType: ir.Bool}) {
		tr.fail(op, pcs, "the predicate must be a 0-D Bool tensor, got %s (reduce it with Max or compare it first)", pt)
		return poisonedN(tr, op, 1)
	}
	a, _ := tr.openRegion(nil, pcs)
	ra, okA := callRegion(tr, op, pcs, then)
	a.closeRegion()
	la, okA2 := a.ownResults(tr, op, ra, pcs)
	b, _ := tr.openRegion(nil, pcs)
	shareCaptures(a, b)
	rb, okB := callRegion(tr, op, pcs, otherwise)
	b.closeRegion()
	lb, okB2 := b.ownResults(tr, op, rb, pcs)
	extendCaptures(a, b)
	if !okA || !okB || !okA2 || !okB2 {
		return poisonedN(tr, op, max(len(ra), len(rb)))
	}
	if len(ra) != len(rb) {
		tr.fail(op, pcs, "then returns %d values but otherwise returns %d", len(ra), len(rb))
		return poisonedN(tr, op, max(len(ra), len(rb)))
	}
	// A weak scalar takes the other branch's type.
	wantA, wantB := make([]ir.Type, len(ra)), make([]ir.Type, len(rb))
	for i := range ra {
		wantA[i], wantB[i] = typeOf(lb[i]), typeOf(la[i])
	}
	okA = a.finishResults(tr, op, ra, la, wantA, pcs)
	okB = b.finishResults(tr, op, rb, lb, wantB, pcs)
	if !okA || !okB {
		return poisonedN(tr, op, len(ra))
	}
	for i := range ra {
		ta, tb := a.g.TypeOf(a.g.Outputs[i]), b.g.TypeOf(b.g.Outputs[i])
		if !ta.Equal(tb) {
			tr.fail(op, pcs, "result %d: then returns %s but otherwise returns %s", i, ta, tb)
			ok = false
		}
	}
	if !ok {
		return poisonedN(tr, op, len(ra))
	}
	args := append([]ir.Value{p.v}, a.region.outer...)
	return tr.control(ir.Node{Op: ir.OpCond, Args: args, Regions: []*ir.Graph{&a.g, &b.g}}, len(ra), pcs)
}

// typeOf is the type of t, a tensor of a region from ownResults, or f32[]
// for nil (a weak scalar).
func typeOf(t *Tensor) ir.Type {
	if t == nil {
		return ir.Type{DType: ir.Float32}
	}
	return t.tr.g.TypeOf(t.v)
}

// control records a control-flow node in tr and returns its n results.
func (tr *tracer) control(n ir.Node, results int, pcs callStack) []*Tensor {
	c := tr.add(n, pcs)
	if c.v == poison {
		return poisonedN(tr, n.Op.String(), results)
	}
	out := make([]*Tensor, results)
	for i := range out {
		out[i] = tr.add(ir.Node{Op: ir.OpGet, Args: []ir.Value{c.v}, Index: i}, pcs)
	}
	return out
}

// While runs body while cond is true, as JAX's lax.while_loop: the loop
// state starts as init, cond(state) must return a 0-D Bool tensor, and
// body(state) returns the next state, the same number of values with the
// same dtypes and shapes as init (a gojit.Scalar takes the type of its
// state value). While returns the final state; when cond(init) is false
// the body never runs and the result is init. Both functions are traced
// once, as regions the compiled code runs as many times as needed; they
// may use any tensor of the enclosing trace, and work that depends only
// on such tensors is computed once, before the loop. init must hold at
// least one *Tensor (a gojit.Scalar in init becomes a 0-D Float32).
// Errors, recorded like every tracing error, name the caller's file:line.
func While(init []*Tensor, cond func(state []*Tensor) *Tensor, body func(state []*Tensor) []*Tensor) []*Tensor {
	return whileLoop("While", callers(), init, cond, body)
}

func whileLoop(op string, pcs callStack, init []*Tensor, cond func([]*Tensor) *Tensor, body func([]*Tensor) []*Tensor) []*Tensor {
	var real []*Tensor
	for _, t := range init {
		if t != nil && !t.weak {
			real = append(real, t)
		}
	}
	if len(real) == 0 {
		tr := newTracer()
		tr.params = true
		tr.fail(op, pcs, "the initial state must hold at least one *Tensor (got %d values, none a traced tensor)", len(init))
		return poisonedN(tr, op, len(init))
	}
	tr, _, ok := unify(op, pcs, real...)
	if !ok {
		return poisonedN(tr, op, len(init))
	}
	if cond == nil || body == nil {
		tr.fail(op, pcs, "cond and body must be non-nil functions")
		return poisonedN(tr, op, len(init))
	}
	state := make([]ir.Value, len(init))
	types := make([]ir.Type, len(init))
	for i, t := range init {
		if t != nil && t.weak {
			t = tr.constant(ir.Float32, nil, t.val, pcs)
		}
		u, good := tr.own(op, i, t, pcs)
		if !good {
			return poisonedN(tr, op, len(init))
		}
		state[i], types[i] = u.v, tr.g.TypeOf(u.v)
	}
	c, cs := tr.openRegion(types, pcs)
	cv, okC := callRegion(tr, op, pcs, func() *Tensor { return cond(cs) })
	c.closeRegion()
	lc, okC2 := c.ownResults(tr, op, []*Tensor{cv}, pcs)
	b, bs := tr.openRegion(types, pcs)
	shareCaptures(c, b)
	bv, okB := callRegion(tr, op, pcs, func() []*Tensor { return body(bs) })
	b.closeRegion()
	lb, okB2 := b.ownResults(tr, op, bv, pcs)
	extendCaptures(c, b)
	if !okC || !okB || !okC2 || !okB2 {
		return poisonedN(tr, op, len(init))
	}
	if len(bv) != len(init) {
		tr.fail(op, pcs, "body returns %d values but the state has %d", len(bv), len(init))
		return poisonedN(tr, op, len(init))
	}
	okC = c.finishResults(tr, op, []*Tensor{cv}, lc, []ir.Type{{DType: ir.Bool}}, pcs)
	okB = b.finishResults(tr, op, bv, lb, types, pcs)
	if !okC || !okB {
		return poisonedN(tr, op, len(init))
	}
	if ct := c.g.TypeOf(c.g.Outputs[0]); !ct.Equal(ir.Type{DType: ir.Bool}) {
		tr.fail(op, pcs, "cond returns %s, want a 0-D Bool tensor (reduce it with Max or compare it first)", ct)
		return poisonedN(tr, op, len(init))
	}
	for i := range bv {
		if bt := b.g.TypeOf(b.g.Outputs[i]); !bt.Equal(types[i]) {
			tr.fail(op, pcs, "state value %d: body returns %s but the state is %s", i, bt, types[i])
			ok = false
		}
	}
	if !ok {
		return poisonedN(tr, op, len(init))
	}
	args := append(state, c.region.outer...)
	return tr.control(ir.Node{Op: ir.OpWhile, Args: args, Regions: []*ir.Graph{&c.g, &b.g}}, len(init), pcs)
}

// ForLoop runs body for i = lo, lo+1, ..., hi-1, as JAX's lax.fori_loop:
// the state starts as init and body(i, state) returns the next state (the
// same number of values with the same dtypes and shapes). lo and hi are
// 0-D Int32 or Int64 tensors or gojit.Scalar integers; i has their dtype
// (Int64 if either is, Int32 for two scalars). When lo >= hi the body
// never runs and the result is init. It is a While over (i, state...), so
// everything While says about regions, captures and invariant work holds.
func ForLoop(lo, hi *Tensor, init []*Tensor, body func(i *Tensor, state []*Tensor) []*Tensor) []*Tensor {
	pcs := callers()
	const op = "ForLoop"
	dt, msg := loopIndexType(lo, hi)
	if msg != "" || body == nil {
		if body == nil {
			msg = "body must be a non-nil function"
		}
		var tr *tracer
		for _, t := range append([]*Tensor{lo, hi}, init...) {
			if t != nil && t.tr != nil && !t.weak {
				tr = t.tr.scope()
				break
			}
		}
		if tr == nil {
			tr = newTracer()
			tr.params = true
		}
		tr.fail(op, pcs, "%s", msg)
		return poisonedN(tr, op, len(init))
	}
	start := lo
	if lo.weak {
		// The loop's host trace owns the constant; any tensor of init or
		// hi decides which that is.
		var host *tracer
		for _, t := range append([]*Tensor{hi}, init...) {
			if t != nil && t.tr != nil && !t.weak {
				host = t.tr.scope()
				break
			}
		}
		if host == nil {
			tr := newTracer()
			tr.params = true
			tr.fail(op, pcs, "needs at least one *Tensor among hi and init (all are Go constants: use a Go for loop)")
			return poisonedN(tr, op, len(init))
		}
		start = host.constant(dt, nil, lo.val, pcs)
	} else if ir.DType(lo.DType()) != dt {
		start = lo.castTo(dt, pcs)
	}
	bound := hi
	if !hi.weak && ir.DType(hi.DType()) != dt {
		bound = hi.castTo(dt, pcs)
	}
	state := append([]*Tensor{start}, init...)
	out := whileLoop(op, pcs, state,
		func(s []*Tensor) *Tensor { return s[0].binary(ir.OpLt, bound, pcs) },
		func(s []*Tensor) []*Tensor {
			next := body(s[0], s[1:])
			return append([]*Tensor{s[0].binary(ir.OpAdd, Scalar(1), pcs)}, next...)
		})
	return out[1:] // whileLoop returns as many values as the state, even poisoned
}

// loopIndexType checks ForLoop's bounds and returns the index dtype, or a
// message saying what is wrong.
func loopIndexType(lo, hi *Tensor) (ir.DType, string) {
	dt := ir.InvalidDType
	for i, t := range []*Tensor{lo, hi} {
		name := [2]string{"lo", "hi"}[i]
		switch {
		case t == nil:
			return 0, name + " is a nil *Tensor"
		case t.weak:
			if t.val != float64(int64(t.val)) {
				return 0, fmt.Sprintf("%s = %v is not an integer", name, t.val)
			}
		case t.tr == nil || t.v == poison:
			return 0, name + " comes from an op that failed"
		default:
			typ := t.tr.g.TypeOf(t.v)
			if len(typ.Shape) != 0 || (typ.DType != ir.Int32 && typ.DType != ir.Int64) {
				return 0, fmt.Sprintf("%s must be a 0-D Int32 or Int64 tensor, got %s", name, typ)
			}
			dt = max(dt, typ.DType)
		}
	}
	if dt == ir.InvalidDType {
		dt = ir.Int32
	}
	for i, t := range []*Tensor{lo, hi} {
		if t.weak && !weakFits(dt, t.val) {
			return 0, fmt.Sprintf("%s = %v does not fit in %s", [2]string{"lo", "hi"}[i], t.val, dt)
		}
	}
	return dt, ""
}

// castTo converts t (a traced tensor) to dt, recording at pcs.
func (t *Tensor) castTo(dt ir.DType, pcs callStack) *Tensor {
	tr, ts, ok := unify("cast", pcs, t)
	if !ok {
		return failed(tr, "cast")
	}
	return tr.cast(ts[0], dt, pcs)
}
