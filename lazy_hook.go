package gojit

import (
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// The recording core, as package lazy reaches it (see internal/lazycore).
// Lazy tensors are Tensors of a long-lived tracer: their ops go through the
// same methods, with the same promotion, broadcasting, checks and errors.

func init() {
	lazycore.H = lazycore.Hooks{
		NewTracer:  lazyTracer,
		Param:      lazyParam,
		Copy:       lazyCopy,
		Wrap:       func(tr any, v ir.Value) any { return &Tensor{tr: tr.(*tracer), v: v} },
		Binary:     lazyBinary,
		Scalar:     lazyScalar,
		Reduce:     lazyReduce,
		MatMul:     lazyMatMul,
		ParamValue: lazyParamValue,
		Unary:      lazyUnary,
		Inspect:    lazyInspect,
		TakeErrs: func(tr any) []error {
			t := tr.(*tracer)
			errs := t.errs
			t.errs = nil
			return errs
		},
		Own: func(tr any, t any) any {
			x := tr.(*tracer)
			u, ok := x.own("lazy", 0, t.(*Tensor), callers())
			if !ok {
				return poisoned(x)
			}
			return u
		},
		ArrayShape: func(a any) ir.Shape { return a.(*Array).shape },
		Site: func(tr any, v ir.Value) (string, string) {
			t := tr.(*tracer)
			pos, call := userSite(t.pcs[v])
			if c, ok := t.calls[v]; ok {
				call = c
			}
			return pos, call
		},
		Setup:      setupCache,
		Logger:     kindLogger,
		DisableJIT: envDisableJIT,
		NewOutput:  func(dt ir.DType, shape []int) any { return newOutput(DType(dt), shape) },
		Buffer:     lazyBuffer,
		PoolHits: func() int64 {
			outputPool.Lock()
			defer outputPool.Unlock()
			return outputPool.hits
		},
	}
}

// lazyTracer starts a trace for package lazy with room for capacity
// nodes (see lazycore.Hooks.NewTracer), and operand lists for that many
// rather than args' 256: a loop starts a pending graph per flush, so its
// allocations count. A small one is a single allocation.
func lazyTracer(capacity int) (any, *ir.Graph) {
	var tr *tracer
	if capacity <= smallerLazyNodes {
		s := new(smallerLazyTracer)
		tr = &s.tr
		tr.g.Nodes, tr.pcs, tr.argBlock = s.nodes[:0], s.pcs[:0], s.args[:0]
	} else if capacity <= smallLazyNodes {
		s := new(smallLazyTracer)
		tr = &s.tr
		tr.g.Nodes, tr.pcs, tr.argBlock = s.nodes[:0], s.pcs[:0], s.args[:0]
	} else {
		tr = newTracer()
		tr.g.Nodes = make([]ir.Node, 0, capacity)
		tr.pcs = make([]callStack, 0, capacity)
		tr.argBlock = make([]ir.Value, 0, 2*capacity)
	}
	tr.params = true // constant-only tensors are copied in, as in a trace
	return tr, &tr.g
}

// smallLazyNodes is the capacity up to which a lazy tracer and its
// storage are one allocation (of 4 KiB, a size class it nearly fills).
const smallLazyNodes = 14

// smallerLazyNodes is the capacity up to which a lazy tracer and its
// storage (3400 bytes) fit the 3456-byte size class, seven objects to a
// span against two to a span of the 4 KiB class: the allocator fetches
// a span every seventh pending graph instead of every second. GT2's loop
// records 10 nodes, for which a Context asks 13.
const smallerLazyNodes = 13

// smallerLazyTracer is smallLazyTracer for up to smallerLazyNodes nodes.
type smallerLazyTracer struct {
	tr    tracer
	nodes [smallerLazyNodes]ir.Node
	pcs   [smallerLazyNodes]callStack
	args  [2 * smallerLazyNodes]ir.Value
}

// smallLazyTracer is a small lazy tracer with its storage: its slices
// point into the same allocation, which they keep alive.
type smallLazyTracer struct {
	tr    tracer
	nodes [smallLazyNodes]ir.Node
	pcs   [smallLazyNodes]callStack
	args  [2 * smallLazyNodes]ir.Value
}

// lazyBuffer returns n elements of dt from the output pool (see
// lazycore.Hooks.Buffer), or nil when so few bytes are not pooled.
func lazyBuffer(dt ir.DType, n int) any {
	if uintptr(n)*uintptr(dt.Size()) < recycleMinBytes {
		return nil
	}
	switch dt {
	case ir.Bool:
		return outputSlice[bool](n)
	case ir.Uint8:
		return outputSlice[uint8](n)
	case ir.Int32:
		return outputSlice[int32](n)
	case ir.Int64:
		return outputSlice[int64](n)
	case ir.Float32:
		return outputSlice[float32](n)
	case ir.Float64:
		return outputSlice[float64](n)
	}
	return nil
}

func lazyParam(tr any, dt ir.DType, shape ir.Shape) any {
	t := tr.(*tracer)
	v, err := t.g.AddParam(dt, shape.Clone(), "")
	var pcs callStack // an input's position is lazy's to report
	if err != nil {
		if ie, ok := err.(*ir.Error); ok {
			ie.Pos, ie.Call = liveSite(pcs)
		}
		t.errs = append(t.errs, err)
		return poisoned(t)
	}
	t.pcs = append(t.pcs, pcs)
	return &Tensor{tr: t, v: v}
}

func lazyCopy(dst, src any, v ir.Value, args []ir.Value) ir.Value {
	d, s := dst.(*tracer), src.(*tracer)
	n := s.g.Nodes[v]
	n.Args = slices.Clone(args)
	nv, err := d.g.Add(n)
	if err != nil {
		panic("gojit: re-adding a valid node failed: " + err.Error()) // broken invariant
	}
	d.pcs = append(d.pcs, s.pcs[v])
	if c, ok := s.calls[v]; ok {
		if d.calls == nil {
			d.calls = map[ir.Value]string{}
		}
		d.calls[nv] = c
	}
	return nv
}

// lazyBinary is Tensor.binary for two tensors of tr that need no
// promotion nor half-precision widening (see lazycore.Hooks.Binary): the
// nodes it records are the ones binary would. Its caller is package
// lazy's method, whose caller is the user: pcs holds the same frames as
// through the method.
func lazyBinary(x any, op ir.Op, a, b ir.Value) ir.Value {
	tr := x.(*tracer)
	if a < 0 || b < 0 || int(a) >= len(tr.g.Nodes) || int(b) >= len(tr.g.Nodes) {
		return -1
	}
	na, nb := &tr.g.Nodes[a], &tr.g.Nodes[b]
	dt := na.DType
	info := op.Info()
	switch {
	case info.Kind != ir.KindBinary && info.Kind != ir.KindCompare,
		nb.DType != dt, !dt.Valid(), dt.IsHalf(), // Valid: not a tuple
		info.FloatOnly && !dt.IsFloat(),
		info.NoBool && dt == ir.Bool,
		tr.scope() != tr:
		return -1
	}
	pcs := callers()
	if na.Shape.Equal(nb.Shape) { // the common case, as lazyElementwiseNode
		rdt := dt
		if info.Kind == ir.KindCompare {
			rdt = ir.Bool
		}
		tr.g.Nodes = append(tr.g.Nodes, ir.Node{Op: op, DType: rdt, Shape: na.Shape[:len(na.Shape):len(na.Shape)], Args: tr.args(a, b)})
		tr.pcs = append(tr.pcs, pcs)
		return ir.Value(len(tr.g.Nodes) - 1)
	}
	// broadcastAll and broadcast: a node per operand whose shape differs,
	// a constant broadcast as a constant.
	shape, ok := ir.BroadcastShapes(na.Shape, nb.Shape)
	if !ok || shape.Check(dt) != nil {
		return -1
	}
	a, b = tr.lazyBroadcast(a, shape, pcs), tr.lazyBroadcast(b, shape, pcs)
	return tr.lazyElementwiseNode(op, a, b, pcs)
}

// lazyScalar is Tensor.binary for a tensor a of tr and a weak scalar val
// on the right (see lazycore.Hooks.Scalar): promote's constant of a's
// dtype, broadcastAll's constant of a's shape, and the op.
func lazyScalar(x any, op ir.Op, a ir.Value, val float64) ir.Value {
	tr := x.(*tracer)
	if !tr.lazyOperand(a) {
		return -1
	}
	dt := tr.g.Nodes[a].DType
	if dt != ir.Float32 && dt != ir.Float64 || !lazyElementwise(tr, op, dt) || weakDType(op, dt, val) != dt {
		return -1
	}
	pcs := callers()
	// The constant broadcast, as one node of the operand's shape (shared:
	// shapes never change once in a graph). The method records the
	// 0-d constant too, which nothing uses: no batch computes it, and
	// the fast path does not record it.
	shape := tr.g.Nodes[a].Shape
	c := tr.lazyNode(ir.Node{Op: ir.OpConst, DType: dt, Shape: shape[:len(shape):len(shape)], Const: constOf(dt, val)}, pcs)
	return tr.lazyElementwiseNode(op, a, c, pcs)
}

// lazyReduce is Tensor.reduce for Sum and Mean of a Float32 or Float64
// tensor of tr without keepDims (see lazycore.Hooks.Reduce).
func lazyReduce(x any, mean bool, a ir.Value, axes []int) ir.Value {
	tr := x.(*tracer)
	if !tr.lazyOperand(a) || tr.scope() != tr {
		return -1
	}
	na := &tr.g.Nodes[a]
	dt, rank := na.DType, len(na.Shape)
	if dt != ir.Float32 && dt != ir.Float64 {
		return -1
	}
	var err error
	var norm []int
	if len(axes) == 0 {
		norm = make([]int, rank)
		for i := range norm {
			norm[i] = i
		}
	} else if norm, err = normAxes(axes, rank); err != nil {
		return -1
	}
	// The result's shape: none when every axis is reduced (the
	// common case, without allocating), else the others.
	out, count := ir.Shape{}, 1
	if len(norm) < rank {
		out = make(ir.Shape, 0, rank-len(norm))
	}
	for i, d := range na.Shape {
		if slices.Contains(norm, i) {
			count *= d
		} else {
			out = append(out, d)
		}
	}
	pcs := callers()
	r := tr.lazyNode(ir.Node{Op: ir.OpReduceSum, DType: dt, Shape: out, Args: tr.args(a), Axes: norm}, pcs)
	if !mean {
		return r
	}
	c := tr.lazyNode(ir.Node{Op: ir.OpConst, DType: dt, Shape: out.Clone(), Const: constOf(dt, float64(count))}, pcs)
	return tr.lazyNode(ir.Node{Op: ir.OpDiv, DType: dt, Shape: out[:len(out):len(out)], Args: tr.args(r, c)}, pcs)
}

// lazyMatMul is Tensor.MatMul for two tensors of tr that need no
// promotion, reshaping nor broadcasting (see lazycore.Hooks.MatMul).
func lazyMatMul(x any, a, b ir.Value) ir.Value {
	tr := x.(*tracer)
	if !tr.lazyOperand(a) || !tr.lazyOperand(b) || tr.scope() != tr {
		return -1
	}
	na, nb := &tr.g.Nodes[a], &tr.g.Nodes[b]
	dt, ra, rb := na.DType, len(na.Shape), len(nb.Shape)
	if dt != ir.Float32 && dt != ir.Float64 || nb.DType != dt || ra < 2 || ra != rb ||
		!na.Shape[:ra-2].Equal(nb.Shape[:rb-2]) || na.Shape[ra-1] != nb.Shape[rb-2] {
		return -1
	}
	out := make(ir.Shape, ra)
	copy(out, na.Shape[:ra-1])
	out[ra-1] = nb.Shape[rb-1]
	if out.Check(dt) != nil {
		return -1
	}
	pcs := callers()
	return tr.lazyNode(ir.Node{Op: ir.OpMatMul, DType: dt, Shape: out, Args: tr.args(a, b)}, pcs)
}

// lazyParamValue is lazyParam without the *Tensor, sharing shape (see
// lazycore.Hooks.ParamValue).
func lazyParamValue(x any, dt ir.DType, shape ir.Shape) ir.Value {
	tr := x.(*tracer)
	if !dt.Valid() || shape.Check(dt) != nil {
		return -1
	}
	v := ir.Value(len(tr.g.Nodes))
	tr.g.Nodes = append(tr.g.Nodes, ir.Node{Op: ir.OpParam, DType: dt, Shape: shape[:len(shape):len(shape)], Index: len(tr.g.Params)})
	tr.g.Params = append(tr.g.Params, v)
	tr.pcs = append(tr.pcs, callStack{}) // an input's position is lazy's to report
	return v
}

// lazyOperand reports whether v is a value of tr the fast paths take.
func (tr *tracer) lazyOperand(v ir.Value) bool {
	return v >= 0 && int(v) < len(tr.g.Nodes) && tr.g.Nodes[v].DType.Valid() // Valid: not a tuple
}

// lazyElementwise reports whether op is an elementwise binary op (or a
// comparison) that accepts operands of dtype dt as they are, outside a
// control-flow region.
func lazyElementwise(tr *tracer, op ir.Op, dt ir.DType) bool {
	info := op.Info()
	return (info.Kind == ir.KindBinary || info.Kind == ir.KindCompare) &&
		!dt.IsHalf() && !(info.FloatOnly && !dt.IsFloat()) && !(info.NoBool && dt == ir.Bool) &&
		tr.scope() == tr
}

// lazyElementwiseNode records op on a and b, of one dtype and shape: what
// ir.Graph.Add would infer (Bool for a comparison, the operands' shape
// shared with capacity cut).
func (tr *tracer) lazyElementwiseNode(op ir.Op, a, b ir.Value, pcs callStack) ir.Value {
	na := &tr.g.Nodes[a]
	rdt := na.DType
	if op.Info().Kind == ir.KindCompare {
		rdt = ir.Bool
	}
	shape := na.Shape[:len(na.Shape):len(na.Shape)]
	return tr.lazyNode(ir.Node{Op: op, DType: rdt, Shape: shape, Args: tr.args(a, b)}, pcs)
}

// lazyBroadcast is tracer.broadcast for a value of a valid dtype whose
// shape broadcasts to shape (checked by the caller). The node shares
// shape, which must never change (as every shape in a graph): a node's
// own, or one made for the op.
func (tr *tracer) lazyBroadcast(v ir.Value, shape ir.Shape, pcs callStack) ir.Value {
	n := &tr.g.Nodes[v]
	shape = shape[:len(shape):len(shape)]
	switch {
	case n.Shape.Equal(shape):
		return v
	case n.Op == ir.OpConst:
		return tr.lazyNode(ir.Node{Op: ir.OpConst, DType: n.DType, Shape: shape, Const: n.Const}, pcs)
	}
	return tr.lazyNode(ir.Node{Op: ir.OpBroadcast, DType: n.DType, Args: tr.args(v), Shape: shape}, pcs)
}

// lazyNode appends n, whose dtype and shape are what ir.Graph.Add would
// infer and check, and its call stack.
func (tr *tracer) lazyNode(n ir.Node, pcs callStack) ir.Value {
	tr.g.Nodes = append(tr.g.Nodes, n)
	tr.pcs = append(tr.pcs, pcs)
	return ir.Value(len(tr.g.Nodes) - 1)
}

// lazyUnary is Tensor.unary for a tensor of tr that needs no cast nor
// half-precision widening (see lazycore.Hooks.Unary), as lazyBinary.
func lazyUnary(x any, op ir.Op, a ir.Value) ir.Value {
	tr := x.(*tracer)
	if a < 0 || int(a) >= len(tr.g.Nodes) {
		return -1
	}
	na := &tr.g.Nodes[a]
	dt := na.DType
	info := op.Info()
	switch {
	case info.Kind != ir.KindUnary,
		!dt.Valid(), dt.IsHalf(), // Valid: not a tuple
		info.FloatOnly && !dt.IsFloat(),
		info.NoBool && dt == ir.Bool,
		tr.scope() != tr:
		return -1
	}
	// ir.infer's KindUnary: the operand's dtype and shape, shared.
	pcs := callers()
	shape := na.Shape[:len(na.Shape):len(na.Shape)]
	tr.g.Nodes = append(tr.g.Nodes, ir.Node{Op: op, DType: dt, Shape: shape, Args: tr.args(a)})
	tr.pcs = append(tr.pcs, pcs)
	return ir.Value(len(tr.g.Nodes) - 1)
}

func lazyInspect(x any) (any, ir.Value, bool, float64) {
	t, _ := x.(*Tensor)
	switch {
	case t == nil:
		return nil, poison, false, 0
	case t.weak:
		return nil, 0, true, t.val
	case t.tr == nil:
		return nil, poison, false, 0
	}
	return t.tr, t.v, false, 0
}

// ownPackage reports whether function belongs to gojit's own API
// packages: the root and lazy, whose methods call the root's (so that a
// position names the user's line, not lazy's).
func ownPackage(function string) bool {
	for _, p := range [...]string{"github.com/gojit/gojit.", "github.com/gojit/gojit/lazy."} {
		if rest, ok := strings.CutPrefix(function, p); ok && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

var kindLogs struct {
	once  sync.Once
	kinds map[string]*slog.Logger
}

// kindLogger returns the standard-error logger for kind when GOJIT_LOG
// lists it (or "debug"), else nil. It shares the handler of the "cache"
// logger when both are on.
func kindLogger(kind string) *slog.Logger {
	kindLogs.once.Do(func() {
		kindLogs.kinds = map[string]*slog.Logger{}
		var l *slog.Logger
		for _, k := range strings.Split(os.Getenv(EnvLog), ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if l == nil {
				if l = envLogger(); l == nil {
					l = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
				}
			}
			kindLogs.kinds[k] = l
		}
	})
	if l, ok := kindLogs.kinds[kind]; ok {
		return l
	}
	return kindLogs.kinds["debug"]
}
