package lazy

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
)

// DefaultBatchSize is how many graph nodes a Context records before it
// flushes on its own (see the package documentation, "Cut placement").
// It was chosen by measurement; docs/lazy.md gives the figures.
const DefaultBatchSize = 64

// EnvBatchSize overrides DefaultBatchSize for contexts created without
// WithBatchSize (GT2's GT_WORKER_BATCH_SIZE).
const EnvBatchSize = "GOJIT_LAZY_BATCH_SIZE"

// Context records the operations of its tensors and flushes them. Its
// methods and its tensors' methods lock it, so a Context may be shared by
// goroutines, which then take turns; for parallel work give each goroutine
// its own Context. Tensors of different Contexts cannot be combined (the
// op reports an error).
type Context struct {
	mu        sync.Mutex
	batch     int
	logger    *slog.Logger
	interpret bool
	// freeDrops: Free also drops the pending tensors derived from the
	// freed one in graphs already flushed (WithFreeDropsDerived).
	freeDrops bool

	gen     *generation // the pending graph, nil until the first op
	mark    []uint32    // per node of gen: stamp of the flush that visits it
	stamp   uint32
	keybuf  []byte
	posOf   []ir.Value // per node of the graph being flushed: its node in gen
	outMark []uint32   // per node of gen: stamp of the flush that stores it
	remap   []ir.Value // per node of gen: its node in the graph being flushed
	stack   []ir.Value
	// The graph of the batch being flushed and its lists, reused from
	// one flush to the next (extract, runGraph).
	sub     ir.Graph
	subArgs []ir.Value
	ins     []*gojit.Array
	outs    []ir.Value
	runOuts []*gojit.Array
	last    *kernel // the kernel of the last batch run (runGraph)
	// copies are the last host copies outside the heap, by the slice
	// they were copied from (unchanged.go).
	copies   [unchangedSlots]hostCopyRef
	nextCopy int
	need     []bool // liveNeeds
	foreign  error  // an operand of another Context in the op being recorded
	region   int    // how many Cond, While or ForLoop functions are running (control.go)
	epoch    uint64 // gcEpoch when the handles were last weakened (live.go)
	// holdFlush defers the batch-size flush while recordAll records the
	// results of one op.
	holdFlush bool
	// unreported are errors of ops recorded since the last Sync that no
	// read has returned yet.
	unreported []error
	// ops counts the ops recorded since the last flush, added to
	// stats.ops by the next one: an atomic add per op cost about 10 ns,
	// a twentieth of recording it.
	ops int64
}

// Option configures NewContext.
type Option func(*Context) error

// WithBatchSize sets how many graph nodes the Context records before it
// flushes by itself (n >= 1). Flushes at sync points happen regardless.
func WithBatchSize(n int) Option {
	return func(c *Context) error {
		if n < 1 {
			return fmt.Errorf("lazy: WithBatchSize(%d): want at least 1", n)
		}
		c.batch = n
		return nil
	}
}

// WithLogger sends the Context's flush log (each flush, its reason and the
// user's line that caused it, at debug level; compile fallbacks as
// warnings) to logger instead of the GOJIT_LOG=lazy logger.
func WithLogger(logger *slog.Logger) Option {
	return func(c *Context) error {
		if logger == nil {
			return errors.New("lazy: WithLogger: nil *slog.Logger")
		}
		c.logger = logger
		return nil
	}
}

// WithInterpreter runs the Context's batches in gojit's interpreter
// instead of compiling them (as GOJIT_DISABLE_JIT=1 does for every
// Context).
func WithInterpreter() Option {
	return func(c *Context) error { c.interpret = true; return nil }
}

// WithFreeDropsDerived makes Free of a tensor also drop the tensors
// derived from it that are still pending in graphs already flushed (the
// intermediates a read fused away and did not store): reading one, or
// using it in an op, returns an error wrapping ErrDerivedFromFreed
// instead of recomputing it. In exchange Free can give the memory of a
// tensor made from host data back at once in a loop like GT2's, where
// those intermediates would otherwise keep it until a collection (see
// Tensor.Free). Tensors already computed, and pending ones of the
// current graph (Free computes those first), are not affected.
func WithFreeDropsDerived() Option {
	return func(c *Context) error { c.freeDrops = true; return nil }
}

// NewContext returns a Context with the given options.
func NewContext(opts ...Option) (*Context, error) {
	c := newContext()
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("lazy: NewContext: option %d is nil", i)
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func newContext() *Context {
	c := &Context{batch: DefaultBatchSize, logger: lazycore.H.Logger("lazy"), interpret: lazycore.H.DisableJIT()}
	if s := os.Getenv(EnvBatchSize); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 {
			c.batch = n
		} else {
			slog.Default().Warn("lazy: ignoring "+EnvBatchSize, "value", s)
		}
	}
	return c
}

var defaultContext = sync.OnceValue(newContext)

// Default returns the Context that the package-level constructors
// (FromFloat32, Full ...) and Sync use: enough for a script, shared
// (and serialized) between goroutines.
func Default() *Context { return defaultContext() }

// generation is one pending graph: a trace of the recording core, with
// what lazy knows about its nodes. A flush retires it; tensors still
// pending in a retired generation are copied into the current one when
// an op uses them.
type generation struct {
	tr any       // the root package's tracer
	g  *ir.Graph // its graph
	// res[v] is node v's value once known: host data, or a result of
	// the flush; nodes without one are pending.
	res     []*gojit.Array
	params  int // nodes that are inputs
	carried int // nodes carried over from the last batch cut (the first ones)
	handles []handleRef
	arrays  []arrayParam              // the input node of each array: a list while short,
	byArray map[*gojit.Array]ir.Value // and indexed once long
	imports map[importKey]ir.Value
	retired bool
	// freed are g's inputs whose host copy Free gave back while pending
	// nodes used them (WithFreeDropsDerived): a node that needs one can
	// no longer be computed (free.go).
	freed []ir.Value
	// exported says that a value of g was brought into a later graph
	// (importNode), aliased that a Tensor recorded in g holds an input's
	// node: Free cannot then know every holder of g's inputs (free.go).
	exported, aliased bool
	// Room for the lists of a small generation (reserve).
	resBuf    [smallGen]*gojit.Array
	handleBuf [smallGen]handleRef
	arrayBuf  [4]arrayParam
}

type arrayParam struct {
	a *gojit.Array
	v ir.Value
}

type importKey struct {
	gen *generation
	v   ir.Value
}

// cur returns the pending generation, starting one if needed.
func (c *Context) cur() *generation {
	if c.gen == nil || c.gen.retired {
		// Room for as many nodes as the last pending graph had (and a
		// little more): a loop makes graphs of one size, and allocating
		// more than it needs costs (a node is 208 bytes, zeroed).
		// (Up to 14 nodes, the root's tracer and its storage are one
		// allocation of 4 KiB.)
		size := 14
		if c.gen != nil {
			n := len(c.gen.g.Nodes)
			size = max(8, min(n+n/4+1, c.batch+8))
		}
		c.reserve(size)
	}
	return c.gen
}

// smallGen is the size up to which a generation's lists live in the
// generation itself (one allocation instead of three).
const smallGen = 16

// reserve starts a pending generation with room for size nodes.
func (c *Context) reserve(size int) {
	tr, g := lazycore.H.NewTracer(size)
	gen := &generation{tr: tr, g: g}
	gen.arrays = gen.arrayBuf[:0]
	if size <= smallGen {
		gen.res, gen.handles = gen.resBuf[:0:smallGen], gen.handleBuf[:0:smallGen]
	} else {
		gen.res, gen.handles = make([]*gojit.Array, 0, size), make([]handleRef, 0, size)
	}
	c.gen = gen
}

// resident returns the value of node v, or nil if it is pending.
func (g *generation) resident(v ir.Value) *gojit.Array {
	if int(v) < len(g.res) {
		return g.res[v]
	}
	return nil
}

func (g *generation) setRes(v ir.Value, a *gojit.Array) {
	if int(v) >= len(g.res) {
		if int(v) >= cap(g.res) {
			res := make([]*gojit.Array, int(v)+1, 2*int(v)+16)
			copy(res, g.res)
			g.res = res
		}
		g.res = g.res[:int(v)+1]
	}
	g.res[v] = a
}

// param returns the input node holding a (one per array) and its
// tensor: a poisoned one, with v < 0, if a cannot be an input.
func (g *generation) param(a *gojit.Array) (ir.Value, *gojit.Tensor) {
	if v := g.paramValue(a); v >= 0 {
		return v, lazycore.H.Wrap(g.tr, v).(*gojit.Tensor)
	}
	// For the error: the hook records it in the tracer.
	t := lazycore.H.Param(g.tr, ir.DType(a.DType()), lazycore.H.ArrayShape(a)).(*gojit.Tensor)
	_, v, _, _ := lazycore.H.Inspect(t)
	if v >= 0 {
		panic("lazy: Param accepted an array ParamValue refused") // broken invariant
	}
	return v, t
}

// paramValue returns the input node holding a (one per array), adding it
// if needed, or -1 if a cannot be an input (param says why).
func (g *generation) paramValue(a *gojit.Array) ir.Value {
	if g.byArray != nil {
		if v, ok := g.byArray[a]; ok {
			return v
		}
	} else {
		for _, p := range g.arrays {
			if p.a == a {
				return p.v
			}
		}
	}
	v := lazycore.H.ParamValue(g.tr, ir.DType(a.DType()), lazycore.H.ArrayShape(a))
	if v < 0 {
		return v
	}
	g.arrays = append(g.arrays, arrayParam{a, v})
	if g.byArray != nil {
		g.byArray[a] = v
	} else if len(g.arrays) > 16 {
		g.byArray = make(map[*gojit.Array]ir.Value, 2*len(g.arrays))
		for _, p := range g.arrays {
			g.byArray[p.a] = p.v
		}
	}
	g.setRes(v, a)
	g.params++
	return v
}

// importNode copies node v of the retired generation src, and the pending
// nodes it depends on, into g.
func (g *generation) importNode(src *generation, v ir.Value) ir.Value {
	key := importKey{src, v}
	if nv, ok := g.imports[key]; ok {
		return nv
	}
	var nv ir.Value
	if a := src.resident(v); a != nil {
		src.exported = true
		if nv = g.paramValue(a); nv < 0 {
			nv, _ = g.param(a)
		}
	} else {
		n := &src.g.Nodes[v]
		var buf [4]ir.Value
		args := buf[:0]
		for _, a := range n.Args {
			args = append(args, g.importNode(src, a))
		}
		nv = lazycore.H.Copy(g.tr, src.tr, v, args)
	}
	if g.imports == nil {
		g.imports = map[importKey]ir.Value{}
	}
	g.imports[key] = nv
	return nv
}

// enter locks and returns the Context of an op's operands: the first one
// that has a Context, or the default one.
func enter(ts ...*Tensor) *Context {
	var c *Context
	for _, t := range ts {
		if t != nil && t.ctx != nil {
			c = t.ctx
			break
		}
	}
	if c == nil {
		c = Default()
	}
	c.mu.Lock()
	c.foreign = nil
	c.weaken()
	return c
}

// use returns o's tensor in the pending generation, bringing it in if it
// is resident or pending in a retired generation.
func (c *Context) use(o *Tensor) *gojit.Tensor {
	switch {
	case o == nil:
		return nil
	case o.ctx == nil: // a weak scalar
		return o.t
	case o.ctx != c:
		if c.foreign == nil {
			c.foreign = fmt.Errorf("%s: an operand belongs to another lazy.Context", userPos())
		}
		return nil
	case o.err != nil || o.region:
		return o.t
	case o.gen == c.gen && !o.gen.retired:
		return o.core()
	}
	g := c.cur()
	if o.arr != nil {
		if o.host != nil {
			o.host.escaped = true // now an input of g too (free.go)
		}
		o.v, o.t = g.param(o.arr)
		o.gen = g
		return o.t
	}
	if o.gen.needsFreed(o.v) {
		if c.foreign == nil {
			c.foreign = fmt.Errorf("%s: %w", userPos(), ErrDerivedFromFreed)
		}
		return nil
	}
	o.v = g.importNode(o.gen, o.v)
	o.gen = g
	o.t = lazycore.H.Wrap(g.tr, o.v).(*gojit.Tensor)
	g.handles = append(g.handles, handleRef{v: o.v, strong: o})
	return o.t
}

// record wraps r, the result of an op on operands, as a lazy Tensor, and
// flushes if the pending graph reached the batch size. c is locked and
// stays locked.
func (c *Context) record(r *gojit.Tensor, operands ...*Tensor) *Tensor {
	tr, v, isWeak, _ := lazycore.H.Inspect(r)
	if isWeak {
		return &Tensor{t: r}
	}
	if c.region > 0 && (c.gen == nil || tr != c.gen.tr) {
		return c.regionResult(r, int(v))
	}
	if v < 0 {
		var errs []error
		if tr != nil {
			errs = lazycore.H.TakeErrs(tr)
		}
		err := c.foreign
		for _, o := range operands {
			if err == nil && o != nil && o.err != nil && o.ctx == c {
				err = usedAfterFree(o.err)
			}
		}
		if err == nil {
			err = errors.Join(errs...)
		}
		if err == nil {
			err = fmt.Errorf("%s: lazy: op failed", userPos())
		}
		c.unreported = append(c.unreported, err)
		return &Tensor{ctx: c, t: r, err: err}
	}
	g := c.gen
	if g == nil || tr != g.tr {
		// Not reachable: every operand was brought into c.gen.
		panic("lazy: an op recorded outside its Context's pending graph")
	}
	if g.resident(v) != nil {
		g.aliased = true // h will hold the input's Array (free.go)
	}
	h := &Tensor{ctx: c, gen: g, t: r, v: v}
	g.handles = append(g.handles, handleRef{v: v, strong: h})
	c.ops++
	if !c.holdFlush {
		c.batchFull()
	}
	return h
}

// fastGen returns the pending generation when a and b are both valid
// tensors pending in it outside a region, the case of lazycore.Hooks.Binary
// (c locked); nil otherwise.
func (c *Context) fastGen(a, b *Tensor) *generation {
	g := c.gen
	if noFastPaths || g == nil || g.retired || c.region > 0 || a == nil || b == nil ||
		a.gen != g || b.gen != g || a.ctx != c || b.ctx != c ||
		a.err != nil || b.err != nil || a.region || b.region {
		return nil
	}
	return g
}

// noFastPaths turns the fast paths off, for the tests that compare
// what they record with what gojit.Tensor's methods record.
var noFastPaths bool

// fastGen1 is fastGen for a unary op's operand.
func (c *Context) fastGen1(a *Tensor) *generation {
	g := c.gen
	if noFastPaths || g == nil || g.retired || c.region > 0 || a == nil || a.gen != g || a.ctx != c || a.err != nil || a.region {
		return nil
	}
	return g
}

// fastScalar returns the pending generation and the value of o when a is
// a valid tensor pending in it and o a weak scalar (lazy.Scalar), the case
// of lazycore.Hooks.Scalar (c locked).
func (c *Context) fastScalar(a, o *Tensor) (*generation, float64, bool) {
	if o == nil || o.ctx != nil || o.t == nil {
		return nil, 0, false
	}
	g := c.fastGen1(a)
	if g == nil {
		return nil, 0, false
	}
	_, _, isWeak, val := lazycore.H.Inspect(o.t)
	return g, val, isWeak
}

// recordFast is record for value v that lazycore.Hooks.Binary (or Unary) just added
// to g, c's pending generation (c locked).
func (c *Context) recordFast(g *generation, v ir.Value) *Tensor {
	h := &Tensor{ctx: c, gen: g, v: v, fast: true}
	g.handles = append(g.handles, handleRef{v: v, strong: h})
	c.ops++
	if !c.holdFlush {
		c.batchFull()
	}
	return h
}

// batchFull flushes if the pending graph reached the batch size. Nodes
// carried over from the last cut count: a batch then always spans the
// same stretch of a repeated pattern.
func (c *Context) batchFull() {
	if g := c.gen; g != nil && !g.retired && len(g.g.Nodes)-g.params >= c.batch && c.region == 0 {
		c.flushBatch()
	}
}

// weakScalar is a weak scalar (Scalar) with its core tensor: one
// allocation instead of two.
type weakScalar struct {
	Tensor
	core gojit.Tensor
}

// newWeakScalar returns the lazy weak scalar of s, a weak scalar of
// gojit (what adoptConst returns for it, in one allocation).
func newWeakScalar(s *gojit.Tensor) *Tensor {
	w := &weakScalar{core: *s}
	w.t = &w.core
	return &w.Tensor
}

// adoptConst brings a constant-only tensor (gojit.Full, Iota, or an error
// of theirs) into c's pending graph.
func (c *Context) adoptConst(r *gojit.Tensor) *Tensor {
	tr, _, isWeak, _ := lazycore.H.Inspect(r)
	if isWeak {
		return &Tensor{t: r}
	}
	g := c.cur()
	if tr != nil {
		r = lazycore.H.Own(g.tr, r).(*gojit.Tensor)
	}
	return c.record(r)
}

// userPos is the user's file:line: the first caller outside gojit's own
// packages (test files count as the user's). Only errors and the log
// need it, so it may walk the stack.
func userPos() string {
	var pcs [24]uintptr
	n := runtime.Callers(2, pcs[:])
	return userPosOf(pcs[:n])
}

// userPosOf is userPos for the program counters of a stack (those of
// runtime.Callers).
func userPosOf(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		own := strings.HasPrefix(f.Function, "github.com/gojit/gojit.") || strings.HasPrefix(f.Function, "github.com/gojit/gojit/lazy.")
		if f.File != "" && (!own || strings.HasSuffix(f.File, "_test.go")) && !strings.HasPrefix(f.Function, "runtime.") {
			return shortFile(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return "?"
		}
	}
}

func shortFile(path string) string {
	n := 0
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			if n++; n == 2 {
				return path[i+1:]
			}
		}
	}
	return path
}

// uses is use for a list of operands.
func (c *Context) uses(ts []*Tensor) []*gojit.Tensor {
	out := make([]*gojit.Tensor, len(ts))
	for i, t := range ts {
		out[i] = c.use(t)
	}
	return out
}

// recordAll is record for an op with several results: all of them are
// recorded before the pending graph may be cut.
func (c *Context) recordAll(rs []*gojit.Tensor, operands ...*Tensor) []*Tensor {
	out := make([]*Tensor, len(rs))
	c.holdFlush = true
	for i, r := range rs {
		out[i] = c.record(r, operands...)
	}
	c.holdFlush = false
	c.batchFull()
	return out
}
