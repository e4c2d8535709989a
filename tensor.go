package gojit

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Tensor is a value being traced: a symbolic array whose methods record
// operations instead of computing them. The parameters of a function given
// to Compile are Tensors; so are the results of their methods and of
// Scalar, Full and Iota.
//
// Methods never return errors: a problem (mismatched shapes, an axis out of
// range...) is recorded with the op's name and the caller's file:line, the
// result is a poisoned Tensor that every later op passes along, and the
// Call that traced the function returns all recorded errors.
type Tensor struct {
	tr *tracer // nil for a weak scalar
	v  ir.Value
	// A weak scalar (from Scalar) has no dtype of its own: it takes the
	// dtype of the tensor it meets.
	weak bool
	val  float64
}

// tracer records one trace: the graph being built, and where each node
// came from.
type tracer struct {
	g        ir.Graph
	pcs      []callStack // per node: the call stack above the op, resolved lazily
	errs     []error
	params   bool // whether the graph has parameters (a real trace, not constants)
	imported map[importKey]ir.Value
	// calls overrides the public call userSite finds for some nodes, to
	// say more: "Squeeze()" for a Squeeze without axes.
	calls map[ir.Value]string
	// Control flow (control.go): a region of Cond, While or ForLoop is
	// traced by a tracer of its own whose parent is the enclosing trace.
	region *regionState
	// argBlock is where args carves nodes' operand lists from.
	argBlock []ir.Value
}

type importKey struct {
	src *tracer
	v   ir.Value
}

const poison = ir.Value(-1)

// DType returns the tensor's element type (Float32 for a weak scalar).
func (t *Tensor) DType() DType {
	if t == nil || t.tr == nil || t.v == poison {
		return Float32
	}
	return DType(t.tr.g.Nodes[t.v].DType)
}

// Shape returns the tensor's shape ([] for a scalar).
func (t *Tensor) Shape() []int {
	if t == nil || t.tr == nil || t.v == poison {
		return []int{}
	}
	return slices.Clone(t.tr.g.Nodes[t.v].Shape)
}

// shape is Shape without the copy, for reading only: it is the node's own.
func (t *Tensor) shape() ir.Shape {
	if t == nil || t.tr == nil || t.v == poison {
		return ir.Shape{}
	}
	return t.tr.g.Nodes[t.v].Shape
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape()) }

// String describes the tensor as it is traced, e.g. "Tensor(%3 f32[4,5])".
func (t *Tensor) String() string {
	switch {
	case t == nil:
		return "Tensor(nil)"
	case t.weak:
		return fmt.Sprintf("Scalar(%g)", t.val)
	case t.v == poison:
		return "Tensor(<error>)"
	}
	n := &t.tr.g.Nodes[t.v]
	return fmt.Sprintf("Tensor(%%%d %s%s)", t.v, n.DType, n.Shape)
}

// callStack holds the return addresses above an op's public method (see
// callers): enough frames to reach the user's code through lazy's wrapper
// and one public method calling another.
type callStack [4]uintptr

// userSite resolves captured PCs to the user's file:line (the first frame
// outside gojit's own non-test files) and the public gojit function or
// method the user called there ("Sum", "Where"): the last of gojit's own
// frames before the user's.
func userSite(pcs callStack) (pos, call string) {
	pos, call, _ = resolveSite(pcs[:])
	return pos, call
}

// liveSite is userSite for an error found while the op is being recorded:
// if the captured frames do not reach the user's code (a deep chain of
// gojit's own calls), the live stack, still there, is walked instead.
func liveSite(pcs callStack) (pos, call string) {
	pos, call, ok := resolveSite(pcs[:])
	if !ok {
		var deep [32]uintptr
		if n := runtime.Callers(2, deep[:]); n > 0 {
			if p, c, ok := resolveSite(deep[:n]); ok {
				return p, c
			}
		}
	}
	return pos, call
}

func resolveSite(pcs []uintptr) (pos, call string, ok bool) {
	n := 0
	for n < len(pcs) && pcs[n] != 0 {
		n++
	}
	if n == 0 {
		return "?", "", false
	}
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.File != "" {
			pos = shortFile(f.File) + ":" + strconv.Itoa(f.Line)
			if !isOwnFrame(f.Function, f.File) {
				return pos, call, true
			}
			call = apiName(f.Function)
		}
		if !more {
			return pos, call, false
		}
	}
}

// apiName turns "github.com/gojit/gojit.(*Tensor).Sum" into "Sum" and
// "github.com/gojit/gojit.Where" into "Where"; unexported helpers give "".
func apiName(function string) string {
	name := function[strings.LastIndexByte(function, '.')+1:]
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	return name
}

func isOwnFrame(function, file string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	return ownPackage(function)
}

// shortFile keeps the last two path elements: enough to find the line.
func shortFile(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i > 0 {
		if j := strings.LastIndexByte(path[:i], '/'); j >= 0 {
			return path[j+1:]
		}
	}
	return path
}

func newTracer() *tracer { return &tracer{} }

// add records a node, or an error at the caller's position.
func (tr *tracer) add(n ir.Node, pcs callStack) *Tensor {
	if h := halfOperand(tr, &n); h != ir.InvalidDType {
		return tr.addInFloat32(n, h, pcs)
	}
	v, err := tr.g.Add(n)
	if err != nil {
		var ie *ir.Error
		if errors.As(err, &ie) {
			ie.Pos, ie.Call = liveSite(pcs)
		}
		tr.errs = append(tr.errs, err)
		return &Tensor{tr: tr, v: poison}
	}
	tr.pcs = append(tr.pcs, pcs)
	return &Tensor{tr: tr, v: v}
}

// fail records an error at the caller's position, naming the public call
// the user made there (op when that is unknown).
func (tr *tracer) fail(op string, pcs callStack, format string, args ...any) *Tensor {
	pos, call := liveSite(pcs)
	if call == "" {
		call = op
	}
	tr.errs = append(tr.errs, fmt.Errorf("%s: %s: %s", pos, call, fmt.Sprintf(format, args...)))
	return &Tensor{tr: tr, v: poison}
}

func (tr *tracer) node(v ir.Value) *ir.Node { return &tr.g.Nodes[v] }

// constant adds a const node of the given dtype and shape, converting val
// as Cast would (callers that must not truncate check weakFits first).
func (tr *tracer) constant(dt ir.DType, shape ir.Shape, val float64, pcs callStack) *Tensor {
	return tr.add(ir.Node{Op: ir.OpConst, DType: dt, Shape: shape.Clone(), Const: constOf(dt, val)}, pcs)
}

// importFrom copies v and what it depends on from a constant-only trace
// (made by Full, Iota or an op on them) into tr.
func (tr *tracer) importFrom(src *tracer, v ir.Value) ir.Value {
	key := importKey{src, v}
	if nv, ok := tr.imported[key]; ok {
		return nv
	}
	n := src.g.Nodes[v]
	n.Args = slices.Clone(n.Args)
	for i, a := range n.Args {
		n.Args[i] = tr.importFrom(src, a)
	}
	nv, err := tr.g.Add(n)
	if err != nil {
		panic(fmt.Sprintf("gojit: re-adding a valid node failed: %v", err)) // broken invariant
	}
	tr.pcs = append(tr.pcs, src.pcs[v])
	if tr.imported == nil {
		tr.imported = map[importKey]ir.Value{}
	}
	tr.imported[key] = nv
	return nv
}

// unify brings the operands of one op into one trace: the first real
// trace among them, else the first constant-only one. Weak scalars stay
// weak (nil trace).
func unify(op string, pcs callStack, ts ...*Tensor) (*tracer, []*Tensor, bool) {
	out := make([]*Tensor, len(ts))
	tr, ok := unifyInto(op, pcs, ts, out)
	if !ok {
		return tr, nil, false
	}
	return tr, out, true
}

// unify1 and unify2 are unify for the common arities, without allocating
// the operand list (recording an op allocates its result and little
// else).
func unify1(op string, pcs callStack, t *Tensor) (*tracer, [1]*Tensor, bool) {
	var out [1]*Tensor
	in := [1]*Tensor{t}
	tr, ok := unifyInto(op, pcs, in[:], out[:])
	return tr, out, ok
}

func unify2(op string, pcs callStack, a, b *Tensor) (*tracer, [2]*Tensor, bool) {
	var out [2]*Tensor
	in := [2]*Tensor{a, b}
	tr, ok := unifyInto(op, pcs, in[:], out[:])
	return tr, out, ok
}

// unifyInto is unify writing the operands into out (len(ts) long).
func unifyInto(op string, pcs callStack, ts, out []*Tensor) (*tracer, bool) {
	var tr *tracer
	for _, t := range ts {
		if t != nil && t.tr != nil && (tr == nil || (!tr.params && t.tr.params)) {
			tr = t.tr
		}
	}
	if tr == nil {
		return nil, false
	}
	tr = tr.scope() // the region being traced, if any (control.go)
	for i, t := range ts {
		u, ok := tr.own(op, i, t, pcs)
		if !ok {
			return tr, false
		}
		out[i] = u
	}
	return tr, true
}

// args returns a list of operands for a new node, carved from a block the
// tracer shares between nodes (one allocation per few hundred operands
// instead of one per op). Its capacity is its length: appending to it
// copies, so a node's operands never overwrite another's.
func (tr *tracer) args(vs ...ir.Value) []ir.Value {
	if cap(tr.argBlock)-len(tr.argBlock) < len(vs) {
		tr.argBlock = make([]ir.Value, 0, max(256, len(vs)))
	}
	k := len(tr.argBlock)
	tr.argBlock = append(tr.argBlock, vs...)
	return tr.argBlock[k:len(tr.argBlock):len(tr.argBlock)]
}

// own returns t as a tensor of tr. Tensors made only of constants (Full,
// Iota and ops on them) are copied in; a tensor of another real trace is an
// error (a Tensor kept from another call); errors recorded in t's trace
// move to tr.
func (tr *tracer) own(op string, i int, t *Tensor, pcs callStack) (*Tensor, bool) {
	switch {
	case t == nil:
		tr.fail(op, pcs, "operand %d is a nil *Tensor", i)
		return nil, false
	case t.weak:
		return t, true
	case t.tr == nil:
		// A poisoned result of an op that had no trace to report in.
		tr.fail(op, pcs, "operand %d comes from an op that had no tensor operand", i)
		return nil, false
	case t.tr == tr:
		return t, t.v != poison
	case t.v == poison:
		tr.takeErrs(t.tr)
		return nil, false
	case !t.tr.params:
		// Errors recorded on constant-only tensors (Full(...).Reshape(bad))
		// surface in the first real trace that uses that constant trace.
		tr.takeErrs(t.tr)
		return &Tensor{tr: tr, v: tr.importFrom(t.tr, t.v)}, true
	case t.tr.closedRegion():
		tr.fail(op, pcs, "operand %d was computed inside a Cond, While or ForLoop function and cannot be used outside it: return it from that function instead", i)
		return nil, false
	case tr.within(t.tr):
		// A tensor of an enclosing trace, read inside a region.
		return &Tensor{tr: tr, v: tr.capture(t.tr, t.v)}, true
	}
	if tr.constantHost() {
		tr.fail(op, pcs, "operand %d belongs to the traced function, but the Cond, While or ForLoop around it has only constants (Full, Iota, Scalar) as predicate and initial state: make one of them from a traced tensor (x.Mul(gojit.Scalar(0)) is a zero of x's type)", i) // control.go
		return nil, false
	}
	tr.fail(op, pcs, "operand %d belongs to a different trace (a Tensor kept from another call or function?)", i)
	return nil, false
}

// takeErrs adds the errors of trace from that tr does not hold yet. They
// stay in from as well: another tensor of from may reach the trace that
// reports them only later (a constant trace's poisoned value used by two
// ops, one of them dropped), and the errors must not go with the dropped
// one.
func (tr *tracer) takeErrs(from *tracer) {
	for _, e := range from.errs {
		if !slices.Contains(tr.errs, e) {
			tr.errs = append(tr.errs, e)
		}
	}
}

// errorList joins trace errors, reporting at most the first ten; an
// error repeated word for word (the same mistake made in both branches of
// a Cond) is reported once.
func errorList(errs []error) error {
	seen := make(map[string]bool, len(errs))
	uniq := errs[:0:0]
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			uniq = append(uniq, e)
		}
	}
	errs = uniq
	if len(errs) > 10 {
		more := fmt.Errorf("... and %d more errors", len(errs)-10)
		errs = append(errs[:10:10], more)
	}
	return errors.Join(errs...)
}
