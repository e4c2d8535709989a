package gojit_test

// FuzzCompiledVsInterpreter decodes its input into a small random program
// written with the public API, runs it compiled (LLVM) and interpreted, and
// compares the results with the rules of diff_test.go.
//
// Input layout: byte 0 picks the number of parameters (1 to 3); each
// parameter takes three bytes (dtype, shape, data seed); every later byte
// drives the builder, which reads as many bytes per op as it needs (0 once
// the input is exhausted). The builder looks at the shapes and dtypes of the
// tensors it has, so the programs it writes trace: it picks operands that
// broadcast and converts Bool operands of arithmetic, except in "raw" ops
// (opcode bytes 0xF0 and above), which apply the op as chosen and may fail
// to trace. A failure must then be the same error in both modes.
//
// Values derived from a transcendental op carry a tolerance (transULPs, or
// powF64ULPs for a float64 Pow) when they are its direct result, and
// through Neg, Abs, Relu and layout ops, which do not widen a difference in
// ulps; any other op on such a value can amplify a one-ulp difference (a
// subtraction that cancels, a floor, a comparison), so results computed
// from it are only compared by dtype and shape. A float Sum or Mean of
// exact values is compared with the bound of sumBound (the compiled code
// reassociates float sums), a float MatMul of exact values with that of
// matmulBound (fused multiply-adds); anything computed from either only
// by dtype and shape. Opcode bytes 0xD8 to 0xDF write control flow (Cond,
// While, ForLoop, a Cond nested in a loop body; fuzz_control_test.go).

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
)

// fuzzShapes are the parameter shapes; the last is large enough (2**16
// elements and more) for the runtime to split loops across threads.
var fuzzShapes = [][]int{{}, {1}, {4}, {3, 1}, {1, 4}, {3, 4}, {2, 3, 4}, {2, 1, 4}, {0, 4}, {3, 0}, {2, 3, 1}, {5}, {2, 40000}}

var fuzzScalars = []float64{0, 1, -1, 2, 0.5, -2.5, 3, 255, 1e10, negZero, math.NaN(), math.Inf(1), 1.5, -7}

const (
	fuzzMaxOps  = 12
	fuzzMaxSize = 1 << 17 // larger values are left unused (dead code)
)

type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	v := r.b[r.i]
	r.i++
	return int(v)
}

func (r *byteReader) done() bool { return r.i >= len(r.b) }

// fuzzVal is a tensor of the program being built with how exactly its
// compiled and interpreted values must agree.
type fuzzVal struct {
	t     *gojit.Tensor
	tol   uint64 // ulps allowed
	chaos bool   // only dtype and shape are compared
	// bound is the per-element tolerance of a float sum, mean or matmul
	// of exact values (sumBound, matmulBound in diff_test.go), returned
	// as an extra result.
	bound *gojit.Tensor
}

func (v fuzzVal) exact() bool { return v.tol == 0 && !v.chaos && v.bound == nil }

// derived returns the precision of a value computed from vs by an op that
// does not round (exact inputs give an exact result; anything else chaos).
func derived(vs ...fuzzVal) fuzzVal {
	for _, v := range vs {
		if !v.exact() {
			return fuzzVal{chaos: true}
		}
	}
	return fuzzVal{}
}

type fuzzBuilder struct {
	r    byteReader
	vals []fuzzVal
	log  []string // the program, for failure messages
	desc string   // the op being built
	raw  bool     // whether it is a raw op (opcode 0xF0 and above)
}

// op records a description of the op being built.
func (b *fuzzBuilder) op(format string, args ...any) { b.desc = fmt.Sprintf(format, args...) }

// name is how the program listing refers to a value.
func (b *fuzzBuilder) name(t *gojit.Tensor) string {
	for i, v := range b.vals {
		if v.t == t {
			return fmt.Sprintf("v%d", i)
		}
	}
	return t.String()
}

// pick returns one of the values, preferring recent ones.
func (b *fuzzBuilder) pick() fuzzVal {
	return b.vals[len(b.vals)-1-b.r.next()%len(b.vals)]
}

func (b *fuzzBuilder) push(v fuzzVal) {
	if v.t == nil {
		return
	}
	n := 1
	for _, d := range v.t.Shape() {
		n *= d
	}
	prec := "exact"
	switch {
	case v.chaos:
		prec = "inexact"
	case v.tol > 0:
		prec = fmt.Sprintf("±%d ulps", v.tol)
	case v.bound != nil:
		prec = "bounded"
	}
	if b.raw {
		b.desc = "raw " + b.desc
	}
	line := fmt.Sprintf("%s -> %s%v (%s)", b.desc, v.t.DType(), v.t.Shape(), prec)
	if n <= fuzzMaxSize {
		line = fmt.Sprintf("v%d = %s", len(b.vals), line)
		b.vals = append(b.vals, v)
	} else {
		line = "dropped (too large): " + line
	}
	b.log = append(b.log, line)
}

// broadcastShape picks operands that broadcast together; the IR's own
// rule serves, since the interpreter, not this helper, is the oracle.
func broadcastShape(a, b []int) ([]int, bool) {
	s, ok := ir.BroadcastShapes(a, b)
	return []int(s), ok
}

// partner returns a value whose shape broadcasts with shape, starting the
// search at a position the input chooses, or a weak scalar.
func (b *fuzzBuilder) partner(shape []int) fuzzVal {
	sel := b.r.next()
	if sel%4 == 0 {
		return fuzzVal{t: gojit.Scalar(fuzzScalars[(sel/4)%len(fuzzScalars)])}
	}
	for i := range b.vals {
		v := b.vals[(sel+i)%len(b.vals)]
		if _, ok := broadcastShape(shape, v.t.Shape()); ok {
			return v
		}
	}
	return fuzzVal{t: gojit.Scalar(fuzzScalars[sel%len(fuzzScalars)])}
}

func noBool(t *gojit.Tensor, raw bool) *gojit.Tensor {
	if !raw && t.DType() == gojit.Bool {
		return t.Cast(gojit.Int32)
	}
	return t
}

func (b *fuzzBuilder) step() {
	op := b.r.next()
	raw := op >= 0xF0
	b.raw = raw
	if op >= 0xD8 && op < 0xE0 {
		b.control() // fuzz_control_test.go
		return
	}
	if op >= 0xE0 && op < 0xF0 {
		b.indexing(op) // fuzz_index_test.go
		return
	}
	switch op % 8 {
	case 0:
		b.unary(raw)
	case 1, 2:
		b.binary(raw)
	case 3:
		b.where()
	case 4:
		v := b.pick()
		dt := allDTypes[b.r.next()%len(allDTypes)]
		if raw {
			dt = gojit.DType(b.r.next() % 10) // may be invalid, or a half (Float16, BFloat16)
		}
		r := derived(v)
		b.op("cast(%s, %v)", b.name(v.t), dt)
		r.t = v.t.Cast(dt)
		b.push(r)
	case 5:
		b.reduce(raw)
	case 6:
		b.layout(raw)
	case 7:
		switch b.r.next() % 6 {
		case 4, 5:
			b.newOp(raw) // issue 10's ops, fuzz_newops_test.go
		case 0, 1:
			b.matmul(raw)
		case 2:
			shape := b.pick().t.Shape()
			dt := numDTypes[b.r.next()%len(numDTypes)]
			if raw {
				dt = allDTypes[b.r.next()%len(allDTypes)]
			}
			if len(shape) == 0 {
				c := fullValue(dt, fuzzScalars[b.r.next()%len(fuzzScalars)], raw)
				b.op("Full(%v, %v)", dt, c)
				b.push(fuzzVal{t: gojit.Full(dt, c)})
				return
			}
			ax := b.r.next() % len(shape)
			b.op("Iota(%v, %d, %v)", dt, ax, shape)
			b.push(fuzzVal{t: gojit.Iota(dt, ax, shape...)})
		default:
			shape := fuzzShapes[b.r.next()%len(fuzzShapes)]
			dt := allDTypes[b.r.next()%len(allDTypes)]
			c := fullValue(dt, fuzzScalars[b.r.next()%len(fuzzScalars)], raw)
			b.op("Full(%v, %v, %v)", dt, c, shape)
			b.push(fuzzVal{t: gojit.Full(dt, c, shape...)})
		}
	}
}

func (b *fuzzBuilder) unary(raw bool) {
	u := unOps[b.r.next()%len(unOps)]
	v := b.pick()
	x := v.t
	if u.noBool {
		x = noBool(x, raw)
	}
	var r fuzzVal
	switch {
	case isTranscendental(u.name):
		if u.name == "Sin" || u.name == "Cos" {
			x = dodgeHugeTrig(x)
		}
		r = derived(v)
		if v.exact() {
			r.tol = transULPs
		}
	case u.name == "Neg" || u.name == "Abs" || u.name == "Relu":
		r = v
	default:
		r = derived(v)
	}
	b.op("%s(%s)", u.name, b.name(v.t))
	r.t = u.f(x)
	b.push(r)
}

func (b *fuzzBuilder) binary(raw bool) {
	bo := binOps[b.r.next()%len(binOps)]
	x := b.pick()
	y := b.partner(x.t.Shape())
	xt, yt := x.t, y.t
	if bo.arit {
		xt, yt = noBool(xt, raw), noBool(yt, raw)
	}
	r := derived(x, y)
	if bo.name == "Pow" {
		if r.exact() {
			r.tol = transULPs
			if xt.DType() == gojit.Float64 || yt.DType() == gojit.Float64 {
				r.tol = powF64ULPs
			}
		}
	}
	if b.r.next()%2 == 1 {
		xt, yt = yt, xt // the scalar or the broadcast operand first
	}
	b.op("%s(%s, %s)", bo.name, b.name(xt), b.name(yt))
	r.t = bo.f(xt, yt)
	b.push(r)
}

func (b *fuzzBuilder) where() {
	x := b.pick()
	var cond fuzzVal
	found := false
	sel := b.r.next()
	for i := range b.vals {
		c := b.vals[(sel+i)%len(b.vals)]
		if _, ok := broadcastShape(x.t.Shape(), c.t.Shape()); ok && c.t.DType() == gojit.Bool {
			cond, found = c, true
			break
		}
	}
	if !found {
		cond = derived(x)
		cond.t = x.t.Greater(gojit.Scalar(fuzzScalars[sel%len(fuzzScalars)]))
	}
	s, _ := broadcastShape(x.t.Shape(), cond.t.Shape())
	y := b.partner(s)
	r := derived(cond, x, y)
	if b.r.next()%2 == 1 {
		x, y = y, x
	}
	b.op("Where(%s, %s, %s)", b.name(cond.t), b.name(x.t), b.name(y.t))
	r.t = gojit.Where(cond.t, x.t, y.t)
	b.push(r)
}

func (b *fuzzBuilder) reduce(raw bool) {
	k := redKinds[b.r.next()%len(redKinds)]
	v := b.pick()
	x := v.t
	if !k.bool {
		x = noBool(x, raw)
	}
	rank := len(x.Shape())
	mask := b.r.next()
	keep := mask&0x80 != 0
	var axes []int
	for i := range rank {
		if mask&(1<<i) != 0 {
			a := i
			if mask&0x40 != 0 {
				a -= rank // negative spelling
			}
			axes = append(axes, a)
		}
	}
	if k.arg && !raw && len(axes) > 1 {
		axes = axes[:1]
	}
	if !raw && k.kind != gojit.ReduceSum && k.kind != gojit.ReduceMean && k.kind != gojit.ReduceProd && reducesEmpty(x.Shape(), axes) {
		// Max, Min and the arg reductions of an empty axis are errors;
		// raw programs keep them to check that both modes refuse them.
		k = redKinds[0]
	}
	r := derived(v)
	b.op("Reduce(%s, %s, keep=%v, axes=%v)", b.name(v.t), k.name, keep, axes)
	r.t = x.Reduce(k.kind, keep, axes...)
	if isHalf(x.DType()) && x.DType() == r.t.DType() && (k.kind == gojit.ReduceSum || k.kind == gojit.ReduceMean) {
		r = fuzzVal{t: r.t, chaos: true} // a Float32 sum (reassociated) rounded to the half
	} else if r.exact() && x.DType().IsFloat() && (k.kind == gojit.ReduceSum || k.kind == gojit.ReduceMean) {
		// Float sums are reassociated by the compiled code (integer sums,
		// and so integer Means, are exact). A raw op's operand may be one
		// sumBound does not take, so it is checked for shape only.
		if raw {
			r.chaos = true
		} else {
			r.bound = sumBound(x, k.kind, keep, axes...)
		}
	}
	b.push(r)
}

// reducesEmpty reports whether reducing shape over axes (all when none)
// folds an axis of size 0.
func reducesEmpty(shape, axes []int) bool {
	for i, d := range shape {
		if d == 0 && (len(axes) == 0 || slices.Contains(axes, i) || slices.Contains(axes, i-len(shape))) {
			return true
		}
	}
	return false
}

// fullValue is c when dt holds it exactly; otherwise, unless raw (which
// keeps c to check that both modes refuse it), the value a Cast of c gives.
func fullValue(dt gojit.DType, c float64, raw bool) float64 {
	r, isInt := intRanges[dt]
	switch {
	case raw || dt.IsFloat():
		return c
	case dt == gojit.Bool:
		if c != 0 {
			return 1
		}
		return 0
	case !isInt || math.IsNaN(c):
		return 0
	}
	return max(r[0], min(r[1], math.Trunc(c)))
}

func (b *fuzzBuilder) layout(raw bool) {
	v := b.pick()
	x := v.t
	shape := x.Shape()
	rank := len(shape)
	size := 1
	for _, d := range shape {
		size *= d
	}
	r := v // layout ops move data: the precision is kept
	if v.bound != nil {
		r = fuzzVal{chaos: true} // the bound is not moved along
	}
	switch b.r.next() % 8 {
	case 0:
		switch sel := b.r.next() % 3; {
		case sel == 0 || size%2 != 0:
			b.op("Reshape(%s, -1)", b.name(x))
			r.t = x.Reshape(-1)
		case sel == 1:
			b.op("Reshape(%s, 2, -1)", b.name(x))
			r.t = x.Reshape(2, -1)
		default:
			b.op("Reshape(%s, -1, 2).ExpandDims(0)", b.name(x))
			r.t = x.Reshape(-1, 2).ExpandDims(0)
		}
	case 1:
		if b.r.next()%3 == 0 {
			b.op("Transpose(%s)", b.name(x))
			r.t = x.Transpose()
			break
		}
		perm := make([]int, rank)
		for i := range perm {
			perm[i] = i
		}
		for i := rank - 1; i > 0; i-- {
			j := b.r.next() % (i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		b.op("Transpose(%s, %v)", b.name(x), perm)
		r.t = x.Transpose(perm...)
	case 2:
		n := b.r.next() % (rank + 1)
		starts, stops := make([]int, n), make([]int, n)
		for i := range n {
			d := shape[i]
			starts[i] = b.r.next()%(2*d+3) - (d + 1)
			stops[i] = b.r.next()%(2*d+3) - (d + 1)
			if b.r.next()%2 == 0 {
				stops[i] = d // most slices keep something
			}
		}
		steps := make([]int, b.r.next()%(rank+1))
		for i := range steps {
			steps[i] = 1 + b.r.next()%3
			if raw {
				steps[i]--
			}
		}
		b.op("Slice(%s, %v, %v, %v)", b.name(x), starts, stops, steps)
		r.t = x.Slice(starts, stops, steps...)
	case 3:
		target := append([]int{2}, shape...)
		if sel := b.r.next(); sel%2 == 0 {
			target = slices.Clone(shape)
			for i, d := range target {
				if d == 1 {
					target[i] = 3
				}
			}
		}
		if raw {
			target = append(target[:0:0], 5, 5)
		}
		b.op("BroadcastTo(%s, %v)", b.name(x), target)
		r.t = x.BroadcastTo(target...)
	case 4:
		ax := b.r.next()%(2*rank+2) - (rank + 1)
		b.op("ExpandDims(%s, %d)", b.name(x), ax)
		r.t = x.ExpandDims(ax)
	case 5:
		var axes []int
		if sel := b.r.next(); sel%2 == 0 {
			for i, d := range shape {
				if d == 1 || raw {
					axes = append(axes, i)
					break
				}
			}
		}
		b.op("Squeeze(%s, %v)", b.name(x), axes)
		r.t = x.Squeeze(axes...)
	case 6:
		if rank == 0 {
			x = x.Reshape(1)
			shape, rank = []int{1}, 1
		}
		ax := b.r.next() % rank
		parts := []*gojit.Tensor{x}
		all := []fuzzVal{v}
		sel := b.r.next()
		for i := range b.vals {
			o := b.vals[(sel+i)%len(b.vals)]
			os := o.t.Shape()
			if len(os) != rank {
				continue
			}
			ok := true
			for k := range os {
				if k != ax && os[k] != shape[k] {
					ok = false
				}
			}
			if ok {
				parts = append(parts, o.t)
				all = append(all, o)
				if len(parts) == 3 {
					break
				}
			}
		}
		if len(parts) == 1 {
			parts = append(parts, x)
		}
		if b.r.next()%2 == 1 {
			ax -= rank
		}
		// A concat only moves data: it is as precise as its least precise
		// part, unless it converts an inexact part to another dtype (ulps
		// of float32 are not ulps of float64).
		r = all[0]
		if r.bound != nil {
			// A bound is per element of one value; the concat has more
			// elements (x twice, when no other value fits).
			r = fuzzVal{chaos: true}
		}
		for _, o := range all[1:] {
			switch {
			case o.chaos || r.chaos || o.bound != nil || r.bound != nil:
				r = fuzzVal{chaos: true}
			case (o.tol > 0 || r.tol > 0) && o.t.DType() != x.DType():
				r = fuzzVal{chaos: true}
			default:
				r.tol = max(r.tol, o.tol)
			}
		}
		names := make([]string, len(parts))
		for i, p := range parts {
			names[i] = b.name(p)
		}
		b.op("Concat(%d, %s)", ax, strings.Join(names, ", "))
		r.t = gojit.Concat(ax, parts...)
	default:
		b.op("Reshape(%s, %v)", b.name(x), shape)
		r.t = x.Reshape(shape...)
	}
	b.push(r)
}

func (b *fuzzBuilder) matmul(raw bool) {
	v := b.pick()
	x := noBool(v.t, raw)
	xs := x.Shape()
	if len(xs) == 0 {
		x, xs = x.Reshape(1), []int{1}
	}
	k := xs[len(xs)-1]
	sel := b.r.next()
	var y fuzzVal
	found := false
	for i := range b.vals {
		o := b.vals[(sel+i)%len(b.vals)]
		os := o.t.Shape()
		switch {
		case len(os) == 0:
			continue
		case len(os) == 1:
			found = os[0] == k
		default:
			if os[len(os)-2] != k {
				continue
			}
			bx, by := []int{}, os[:len(os)-2]
			if len(xs) > 2 {
				bx = xs[:len(xs)-2]
			}
			_, found = broadcastShape(bx, by)
		}
		if found {
			y = o
			break
		}
	}
	yt := y.t
	if !found {
		y = v
		switch len(xs) {
		case 1:
			yt = x
		case 2:
			yt = x.Transpose()
		default:
			perm := make([]int, len(xs))
			for i := range perm {
				perm[i] = i
			}
			perm[len(xs)-1], perm[len(xs)-2] = perm[len(xs)-2], perm[len(xs)-1]
			yt = x.Transpose(perm...)
		}
	}
	yt = noBool(yt, raw)
	r := derived(v, y)
	b.op("MatMul(%s, %s)", b.name(v.t), b.name(yt))
	r.t = x.MatMul(yt)
	if isHalf(r.t.DType()) {
		r.chaos = true // fused multiply-adds in Float32, rounded to the half
	} else if r.exact() && r.t.DType().IsFloat() {
		// Float matmuls use fused multiply-adds in the compiled code, raw
		// ones too (a raw op keeps a Bool operand, which MatMul promotes).
		r.bound = matmulBound(x, yt)
	}
	b.push(r)
}

// fuzzProgram decodes data into parameters and the function to compile.
// specs receives the precision of each result when the function is traced.
func fuzzProgram(data []byte) (args []*gojit.Array, fn any, specs *[]fuzzVal, listing *[]string) {
	r := byteReader{b: data}
	n := 1 + r.next()%3
	for range n {
		dt := allDTypes[r.next()%len(allDTypes)]
		shape := fuzzShapes[r.next()%len(fuzzShapes)]
		seed := uint64(r.next())
		if seed%2 == 0 {
			args = append(args, edgeArray(dt, seed, shape...))
		} else {
			args = append(args, randArray(dt, seed, 0.2, shape...))
		}
	}
	ops := data[r.i:]
	specs = new([]fuzzVal)
	listing = new([]string)
	fn = fnOf(n, func(in []*gojit.Tensor) []*gojit.Tensor {
		b := &fuzzBuilder{r: byteReader{b: ops}}
		for i, t := range in {
			b.vals = append(b.vals, fuzzVal{t: t})
			b.log = append(b.log, fmt.Sprintf("v%d = parameter %s%v", i, t.DType(), t.Shape()))
		}
		*listing = b.log
		for i := 0; i < fuzzMaxOps && !b.r.done(); i++ {
			b.step()
			*listing = b.log
		}
		k := min(1+len(ops)%3, len(b.vals))
		outs := b.vals[len(b.vals)-k:]
		*specs = slices.Clone(outs)
		b.log = append(b.log, fmt.Sprintf("return the last %d values", k))
		*listing = b.log
		ts := make([]*gojit.Tensor, k)
		for i, o := range outs {
			ts[i] = o.t
		}
		for _, o := range outs {
			if o.bound != nil {
				ts = append(ts, o.bound)
			}
		}
		return ts
	})
	return args, fn, specs, listing
}

func checkFuzzProgram(t *testing.T, data []byte) {
	args, fn, specs, listing := fuzzProgram(data)
	comp, ref, cerr, rerr := runBoth(t, fn, anyArgs(args))
	defer func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("program:\n  %s\ninputs: %v", strings.Join(*listing, "\n  "), args)
		}
	}()
	switch {
	case cerr != nil && rerr != nil && errors.Is(rerr, gojit.ErrIndexOutOfRange):
		// An out-of-range index: the same run-time error in both modes.
		if cerr.Error() != rerr.Error() {
			t.Fatalf("index errors differ:\ncompiled:    %v\ninterpreted: %v", cerr, rerr)
		}
		return
	case cerr != nil && rerr != nil:
		// The same trace error in both modes (a panic's stack trace aside).
		if c, r := firstLines(cerr, 1), firstLines(rerr, 1); c != r {
			t.Fatalf("errors differ:\ncompiled:    %v\ninterpreted: %v", cerr, rerr)
		}
		if !strings.Contains(cerr.Error(), "tracing") {
			t.Fatalf("unexpected error (not a trace error): %v", cerr)
		}
		if strings.Contains(cerr.Error(), "panicked") {
			// Ops record errors; they must not panic (nor may the builder).
			t.Fatalf("panic while tracing: %v", cerr)
		}
		return
	case rerr != nil:
		t.Fatalf("interpreter failed, compiled code did not: %v\ncompiled results: %v", rerr, comp)
	case cerr != nil:
		t.Fatalf("compiled failed, interpreter did not: %v\ninterpreter results: %v\ninputs: %v", cerr, ref, args)
	}
	nb := 0
	for _, s := range *specs {
		if s.bound != nil {
			nb++
		}
	}
	if len(comp) != len(ref) || len(ref) != len(*specs)+nb {
		t.Fatalf("%d compiled results, %d interpreted, %d traced", len(comp), len(ref), len(*specs))
	}
	nb = len(*specs)
	for i, s := range *specs {
		got, want := comp[i], ref[i]
		if s.chaos {
			if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
				t.Errorf("result %d: got %s%v, want %s%v", i, got.DType(), got.Shape(), want.DType(), want.Shape())
			}
			continue
		}
		if s.bound != nil {
			if d := diffBounded(got, want, ref[nb]); d != "" {
				t.Errorf("result %d (sum bound): compiled differs from interpreter: %s\ninputs: %v", i, d, args)
			}
			nb++
			continue
		}
		if d := diffArrays(got, want, s.tol); d != "" {
			t.Errorf("result %d (tolerance %d ulps): compiled differs from interpreter: %s\ninputs: %v", i, s.tol, d, args)
		}
	}
}

func FuzzCompiledVsInterpreter(f *testing.F) {
	for _, s := range fuzzSeedInputs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		checkFuzzProgram(t, data)
	})
}

// fuzzSeedInputs returns FuzzCompiledVsInterpreter's seed programs.
func fuzzSeedInputs() [][]byte {
	return [][]byte{
		// A raw Mean of int32 (a float32 sum in any order).
		[]byte("02Z0\xf52"),
		// A sum, then a concat of the sum with itself (the fuzzer once
		// checked that against the sum's bound).
		[]byte("0A00%100&0&0"),
		// One f32[3,4] parameter: exp, then a sum.
		{0, 4, 5, 1, 0, 2, 0, 5, 0, 0x02},
		// Two parameters i32[3,1] and f64[1,4]: add, then a comparison and a where.
		{1, 2, 3, 7, 5, 4, 9, 1, 0, 0, 1, 3, 1, 8, 0, 3, 0, 1, 0},
		// Bool and u8 parameters: arithmetic on bool (converted), casts, argmax.
		{1, 0, 6, 3, 1, 6, 4, 2, 1, 1, 2, 1, 4, 0, 5, 5, 0, 0x04},
		// Layout chain on f32[2,3,4]: transpose, slice, concat, reshape.
		{0, 4, 6, 9, 6, 0, 1, 1, 2, 1, 6, 0, 2, 3, 1, 4, 2, 1, 0, 0, 6, 0, 6, 1, 0, 0, 6, 0, 0, 1},
		// MatMul of i64[3,4] with its transpose, then a reduction.
		{0, 3, 5, 11, 7, 0, 0, 0, 5, 2, 0, 0x01},
		// Three parameters with size-0 and scalar shapes.
		{2, 4, 8, 1, 5, 0, 2, 2, 9, 4, 1, 3, 0, 1, 1, 5, 0, 0x03, 6, 3, 0, 1},
		// Iota and Full mixed with a parameter.
		{0, 5, 6, 13, 7, 0, 2, 0, 1, 7, 0, 3, 1, 2, 5, 1, 2, 1, 2, 0},
		// Issue 10's ops on f32[3,4]: Log1p, then Mod by a partner, Any
		// over axis 1, Softmax on axis -1, Sign.
		{0, 4, 5, 1, 7, 4, 0, 0, 1, 0, 7, 4, 0, 0, 2, 0, 1, 7, 5, 0, 1, 4, 2, 0, 7, 4, 1, 3, 5, 3, 7, 5, 2, 0, 0, 1},
		// Issue 10's ops on i32[2,3,4] and u8[3,1]: LogicalXor, Var, IsNaN, Clip.
		{1, 2, 6, 3, 1, 3, 8, 7, 4, 0, 0, 2, 3, 1, 7, 4, 1, 5, 5, 3, 0, 7, 5, 0, 0, 0, 2, 7, 4, 2, 1, 3, 4, 2, 6},
		// Float16 and BFloat16 (raw casts reach them): a cast of f32[3,4] to
		// f16, then arithmetic, a reduction, a new op and a cast to bf16.
		{0, 4, 5, 1, 0xF4, 0, 0, 5, 1, 0, 0, 0, 5, 0, 0x43, 7, 4, 0, 0, 1, 1, 0xF4, 0, 0, 6, 2, 0, 1, 0},
		// Raw ops: Neg of a bool, a bad cast, a bad slice step: trace errors.
		{0, 0, 5, 3, 0xF0, 0, 0, 0xF4, 0, 7},
		// Reductions with keep-dims and negative axes, then softmax-like chain.
		{0, 4, 6, 21, 5, 3, 0, 0xC4, 1, 1, 0, 1, 0, 0, 0, 2, 0, 3, 0},
		// Broadcast, expand, squeeze and where on u8 and f64.
		{1, 1, 10, 2, 5, 7, 4, 6, 3, 0, 0, 6, 4, 0, 2, 6, 5, 0, 0, 3, 0, 1, 0, 2, 1, 0, 1},
		// A raw MatMul of float64 (issue 9): v0 f64[2,3,4] holding 3.4e38,
		// v2 = v0 + max(v0), v2 times its transpose. The products are
		// rounded alone in the interpreter and inside fused multiply-adds
		// in the compiled code: the results differ in the last bit, within
		// matmulBound, which the raw op once did not get.
		{0, 5, 6, 3, 5, 3, 0, 0, 1, 0, 1, 1, 0, 0xF7, 0, 0, 0},
		// Control flow (fuzz_control_test.go): a Cond on f32[3,4].
		{0, 4, 5, 1, 0xD8, 0, 0, 0, 0, 1, 2},
		// A While with a data-dependent cond and a Cond nested in its body.
		{0, 4, 5, 1, 0xD9, 1, 1, 0, 0, 3, 1, 2, 1},
		// A ForLoop whose bound comes from an i32 parameter, with a capture.
		{1, 2, 3, 7, 4, 0, 2, 0xDA, 3, 0, 1, 0, 2, 5},
		// A zero-trip While over i32[2,3,4].
		{0, 2, 6, 3, 0xD8, 1, 0, 0, 0, 0, 1, 1, 0},
		// A While over f32[2,40000], whose body splits across threads.
		{0, 4, 12, 5, 0xD9, 2, 0, 0, 0, 4, 3, 5, 1, 0xDF, 3, 0, 0, 1, 1, 5},
		// Indexing and random ops (opcodes 0xE0..0xEF, fuzz_index_test.go):
		// a take, a bad take, a scatter-add, a dynamic slice, draws.
		{1, 5, 6, 3, 3, 4, 9, 0xE0, 0, 1, 0, 1, 0xE1, 0, 0, 0, 3, 0xE6, 1, 0, 0, 0, 2, 0xE8, 0, 1, 2, 1, 0xEA, 1, 2, 3, 0xEC, 0, 4, 0xEE, 2, 1, 1},
		// A take along an empty axis (every index out of range) and a
		// scatter-add: the compiled gather once read the empty buffer.
		[]byte("\x0100\x03\x030\t\xe0\x00\x01\x00\x01\xe1\x00\x00\x00\x03\xe6\x01\x00\x00\x00\x02"),
		// A sum of a constant bool[2,40000]: a whole-array reduction in
		// blocks whose operand reads no buffer (the blocks' function once
		// got a parameter list starting with a comma).
		[]byte("000079Z00%"),
		// Long mixed program.
		{2, 4, 6, 1, 3, 4, 2, 4, 7, 3, 1, 0, 0, 2, 5, 0, 1, 1, 3, 0, 4, 0, 1, 2, 6, 1, 1, 2, 0, 5, 1, 0x83, 7, 0, 0, 1, 6, 6, 1, 0, 0, 1, 0, 0, 2, 12, 1, 0, 0},
	}
}
