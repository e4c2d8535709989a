package lazy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/lazycore"
	"github.com/gojit/gojit/internal/runtime"
)

// The kernel cache, shared by every Context. A batch's key is its exact
// signature (see key): the whole graph, so batches that differ in wiring,
// shapes, dtypes, attributes or constants never share an entry. The
// kernel itself comes from the engine's cache (runtime.BuildAcquired),
// keyed by the signature of the optimized graph.
var kcache = struct {
	sync.Mutex
	exact map[string]*kernel
	// shapeless groups graphs that differ only in sizes and constants,
	// to find batches whose leading dimension varies.
	shapeless map[string]*family
	// recent keeps the last graphs compiled, to explain a miss.
	recent []*ir.Graph
	warned map[string]bool
	// building holds the batches being compiled; their channel closes
	// when the build ends.
	building map[string]chan struct{}
}{exact: map[string]*kernel{}, shapeless: map[string]*family{}, warned: map[string]bool{}, building: map[string]chan struct{}{}}

// maxKernels bounds the exact cache; the oldest half is forgotten when it
// is full (the engine's cache may still hold their code).
const maxKernels = 4096

// kernel runs one exact signature.
type kernel struct {
	exe         atomic.Pointer[runtime.Executable]
	g           *ir.Graph // for rebuilding after eviction
	dyn         *family   // set when the kernel is the family's dynamic one
	size        int       // the dynamic size to run it at
	interpreted bool
}

// family is the graphs that differ only in sizes: the first one compiled
// and, once a second size came, the dynamic kernel built from both.
type family struct {
	g1     *ir.Graph
	b1     int
	g2     *ir.Graph
	b2     int
	param  int // the input whose leading dimension is the size
	exe    atomic.Pointer[runtime.Executable]
	failed bool // BuildDynamic refused the pair: compile each size
	trying bool // a Context is building the dynamic kernel
}

// compileHook, when set (by tests), runs before every compile; an error
// makes the compile fail, as an LLVM failure would.
var compileHook func(*ir.Graph) error

type runResult struct {
	outs        []*gojit.Array
	interpreted bool
	how         string // "hit", "miss", "dynamic"
}

func (c *Context) options() runtime.Options {
	return runtime.Options{Interpret: c.interpret, OptLevel: 3, Name: "lazy"}
}

// runGraph finds or builds sub's kernel and runs it on ins.
func (c *Context) runGraph(sub *ir.Graph, ins []*gojit.Array, g *generation) (runResult, error) {
	how := "hit"
	k := c.last
	if k != nil && sameGraph(sub, k.g) {
		// The batch repeats the Context's last one, as a loop's does:
		// its kernel, without encoding and looking up the key.
		stats.hits.Add(1)
	} else {
		c.keybuf = key(c.keybuf[:0], sub, true)
		kcache.Lock()
		k = kcache.exact[string(c.keybuf)]
		kcache.Unlock()
		if k == nil {
			var err error
			if k, how, err = c.build(sub, string(c.keybuf), g); err != nil {
				return runResult{}, err
			}
		} else {
			stats.hits.Add(1)
		}
		c.last = k
	}
	outs := c.runOuts[:0]
	for _, v := range sub.Outputs {
		n := &sub.Nodes[v]
		outs = append(outs, newArray(gojit.DType(n.DType), n.Shape))
	}
	c.runOuts = outs
	if err := k.run(ins, outs, c.options()); err != nil {
		clear(outs)
		if _, ok := errors.AsType[*ir.IndexError](err); ok && how == "hit" {
			err = c.ownIndexError(sub, g, ins, err)
		}
		return runResult{}, fmt.Errorf("lazy: %w", err)
	}
	return runResult{outs: outs, interpreted: k.interpreted, how: how}, nil
}

// sameGraph reports whether sub, a batch, is the graph k was built for
// (kernel.g): whether key would encode them the same, which it checks
// field by field instead of encoding sub. Graphs with regions are never
// the same here (key compares them).
func sameGraph(sub, kg *ir.Graph) bool {
	if len(sub.Nodes) != len(kg.Nodes) || !slices.Equal(sub.Outputs, kg.Outputs) {
		return false
	}
	for i := range sub.Nodes {
		a, b := &sub.Nodes[i], &kg.Nodes[i]
		if a.Op != b.Op || a.DType != b.DType || a.Index != b.Index ||
			math.Float64bits(a.Const.F) != math.Float64bits(b.Const.F) || a.Const.I != b.Const.I ||
			len(a.Regions) != 0 || len(b.Regions) != 0 ||
			!slices.Equal(a.Args, b.Args) || !slices.Equal(a.Shape, b.Shape) || !slices.Equal(a.Axes, b.Axes) ||
			!slices.Equal(a.Starts, b.Starts) || !slices.Equal(a.Steps, b.Steps) {
			return false
		}
	}
	return true
}

// ownIndexError returns the index error of sub itself on ins
// (runtime.OwnIndexError): on a hit, the kernel was built for another
// batch with the same graph, whose file:line it reports.
func (c *Context) ownIndexError(sub *ir.Graph, gen *generation, ins []*gojit.Array, kerr error) error {
	sub = sub.Clone()
	c.fillPositions(sub, gen)
	ip := make([]unsafe.Pointer, len(ins))
	for i, a := range ins {
		ip[i] = dataPtr(a)
	}
	return runtime.OwnIndexError(sub, ip, kerr)
}

// build compiles sub (a miss): the family's dynamic kernel when this is
// its second size, else a kernel for this graph, else (if compiling fails)
// the interpreter. The cache is not locked while compiling: other
// Contexts keep flushing, and those that need the same batch wait for it.
func (c *Context) build(sub *ir.Graph, exact string, gen *generation) (*kernel, string, error) {
	start := time.Now()
	sub = sub.Clone()
	c.fillPositions(sub, gen)
	skey := string(key(nil, sub, false))
	kcache.Lock()
	for {
		if k := kcache.exact[exact]; k != nil { // another Context built it meanwhile
			kcache.Unlock()
			stats.hits.Add(1)
			return k, "hit", nil
		}
		wait, ok := kcache.building[exact]
		if !ok {
			break
		}
		kcache.Unlock()
		<-wait
		kcache.Lock()
		if kcache.exact[exact] == nil { // its build failed: try ourselves
			break
		}
	}
	f := kcache.shapeless[skey]
	k := &kernel{g: sub}
	if f != nil && f.exe.Load() != nil {
		if b := leadingSize(sub, f.param); predicts(f, sub, b) {
			// A size of a family that already has its dynamic kernel.
			k.dyn, k.size = f, b
			k.exe.Store(f.exe.Load())
			kcache.exact[exact] = k
			kcache.Unlock()
			stats.hits.Add(1)
			return k, "dynamic", nil
		}
	}
	stats.misses.Add(1)
	stats.setLastMiss(explainMiss(sub))
	done := make(chan struct{})
	kcache.building[exact] = done
	p, b1, b2 := varying(f, sub)
	tryDynamic := p >= 0 && !f.failed && !f.trying && f.g2 == nil && b1 >= 2 && b2 >= 2 && !c.interpret && gojit.LLVMVersion() != ""
	if tryDynamic {
		f.trying = true
	}
	if f == nil {
		f = &family{g1: sub}
		kcache.shapeless[skey] = f
	}
	kcache.Unlock()

	var dynExe *runtime.Executable
	var dynErr error
	if tryDynamic {
		// The family's second size: one kernel for every size.
		if dynExe, dynErr = c.buildDynamic(f.g1, sub, b1, b2); dynErr != nil {
			if l := c.log(); l != nil {
				l.Debug("lazy: no dynamic kernel; compiling this size", "err", dynErr)
			}
		}
	}
	var exe *runtime.Executable
	var interp, warn bool
	var err error
	if dynExe == nil {
		exe, interp, warn, err = c.buildStatic(sub)
	}

	kcache.Lock()
	defer kcache.Unlock()
	defer close(done)
	delete(kcache.building, exact)
	if tryDynamic {
		f.trying = false
		if dynExe != nil {
			f.b1, f.g2, f.b2, f.param = b1, sub, b2, p
			f.exe.Store(dynExe)
			k.dyn, k.size = f, b2
			exe = dynExe
			stats.dynamic.Add(1)
		} else {
			f.failed = true
		}
	}
	if warn && !kcache.warned[exact] {
		kcache.warned[exact] = true
		l := c.log()
		if l == nil {
			l = slogDefault()
		}
		l.Warn("lazy: compiling a batch failed; running it in the interpreter", "nodes", len(sub.Nodes), "err", err)
	}
	if exe == nil {
		return nil, "", fmt.Errorf("lazy: %w", err)
	}
	k.exe.Store(exe)
	k.interpreted = interp
	kcache.recent = append(kcache.recent, sub)
	if len(kcache.recent) > 64 {
		kcache.recent = kcache.recent[len(kcache.recent)-64:]
	}
	if len(kcache.exact) >= maxKernels {
		n := 0
		for key := range kcache.exact {
			delete(kcache.exact, key)
			if n++; n >= maxKernels/2 {
				break
			}
		}
	}
	kcache.exact[exact] = k
	if len(kcache.shapeless) > maxKernels || len(kcache.warned) > maxKernels {
		clear(kcache.shapeless) // families start again; kernels stay
		clear(kcache.warned)
	}
	stats.compileNanos.Add(int64(time.Since(start)))
	return k, "miss", nil
}

// buildStatic compiles sub, falling back to the interpreter if compiling
// fails; warn then says the fallback happened, and err why.
func (c *Context) buildStatic(sub *ir.Graph) (exe *runtime.Executable, interp, warn bool, err error) {
	lazycore.H.Setup()
	opt := c.options()
	err = errHook(sub)
	if err == nil {
		exe, err = runtime.Build(sub, opt)
	}
	if err == nil {
		return exe, exe.Interpreted(), false, nil
	}
	stats.fallbacks.Add(1)
	opt.Interpret = true
	exe, ierr := runtime.Build(sub, opt)
	if ierr != nil {
		return nil, false, false, errors.Join(err, ierr)
	}
	return exe, true, true, err
}

func errHook(g *ir.Graph) error {
	if compileHook != nil {
		return compileHook(g)
	}
	return nil
}

func (c *Context) buildDynamic(g1, g2 *ir.Graph, b1, b2 int) (*runtime.Executable, error) {
	lazycore.H.Setup()
	if err := errHook(g2); err != nil {
		return nil, err
	}
	return runtime.BuildDynamic(g1, g2, b1, b2, c.options())
}

// run runs k on ins into outs, rebuilding its code if the engine's cache
// evicted it.
func (k *kernel) run(ins, outs []*gojit.Array, opt runtime.Options) error {
	var inBuf, outBuf [8]unsafe.Pointer
	ip, op := inBuf[:0], outBuf[:0]
	for _, a := range ins {
		if err := a.Err(); err != nil {
			return err // the user released an Array a Tensor gave
		}
		ip = append(ip, dataPtr(a))
	}
	for _, a := range outs {
		op = append(op, dataPtr(a))
	}
	exe := k.exe.Load()
	if !exe.Acquire() {
		var err error
		if k.dyn != nil {
			exe, err = runtime.BuildDynamicAcquired(k.dyn.g1, k.dyn.g2, k.dyn.b1, k.dyn.b2, opt)
		} else {
			if k.interpreted {
				opt.Interpret = true
			}
			exe, err = runtime.BuildAcquired(k.g, opt)
		}
		if err != nil {
			return err
		}
		k.exe.Store(exe)
	}
	defer exe.Release()
	return exe.RunAcquired(ip, op, runtime.RunOptions{Size: k.size})
}

func dataPtr(a *gojit.Array) unsafe.Pointer {
	switch d := a.Data().(type) {
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int32:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []int64:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []uint8:
		return unsafe.Pointer(unsafe.SliceData(d))
	case []bool:
		return unsafe.Pointer(unsafe.SliceData(d))
	}
	panic(fmt.Sprintf("lazy: array data %T", a.Data()))
}

// leadingSize is the size of the dynamic dimension of g, a graph of a
// family whose size is input p's leading dimension.
func leadingSize(g *ir.Graph, p int) int {
	if p < len(g.Params) {
		if s := g.Nodes[g.Params[p]].Shape; len(s) > 0 {
			return s[0]
		}
	}
	return 0
}

// varying finds the first input of g whose leading dimension differs from
// the family's first graph's, and returns it with both sizes (p < 0 if
// there is none).
func varying(f *family, g *ir.Graph) (p, b1, b2 int) {
	if f == nil || len(f.g1.Params) != len(g.Params) {
		return -1, 0, 0
	}
	for i, v := range g.Params {
		s1, s2 := f.g1.Nodes[f.g1.Params[i]].Shape, g.Nodes[v].Shape
		if len(s1) > 0 && len(s2) > 0 && s1[0] != s2[0] {
			return i, s1[0], s2[0]
		}
	}
	return -1, 0, 0
}

// predicts reports whether g, of the family's shape-free structure, is its
// graph at size b: every size and constant that differs between the
// family's two graphs follows the size exactly as the dynamic kernel
// assumes (n1 + (n2-n1)/(b2-b1)*(b-b1)), and every other one is the same.
func predicts(f *family, g *ir.Graph, b int) bool {
	if f.g2 == nil || len(g.Nodes) != len(f.g1.Nodes) || len(g.Outputs) != len(f.g1.Outputs) {
		return false
	}
	follows := func(n1, n2, n int) bool {
		d, db := n2-n1, f.b2-f.b1
		if d%db != 0 {
			return n1 == n2 && n == n1
		}
		return n == n1+d/db*(b-f.b1)
	}
	ints := func(a, b2, x []int) bool {
		if len(a) != len(x) || len(b2) != len(x) {
			return false
		}
		for i := range x {
			if !follows(a[i], b2[i], x[i]) {
				return false
			}
		}
		return true
	}
	for i := range g.Nodes {
		n1, n2, n := &f.g1.Nodes[i], &f.g2.Nodes[i], &g.Nodes[i]
		if !ints(n1.Shape, n2.Shape, n.Shape) || !ints(n1.Starts, n2.Starts, n.Starts) || !ints(n1.Steps, n2.Steps, n.Steps) {
			return false
		}
		if n.Op == ir.OpConst {
			if n.DType.IsFloat() {
				f1, f2 := n1.Const.F, n2.Const.F
				want := f1
				if f1 != f2 {
					want = f1 + (f2-f1)/float64(f.b2-f.b1)*float64(b-f.b1)
				}
				if n.Const.F != want {
					return false
				}
			} else if !follows(int(n1.Const.I), int(n2.Const.I), int(n.Const.I)) {
				return false
			}
		}
	}
	return true
}

// fillPositions sets the user's file:line on sub's nodes (for the engine's
// errors), from the pending graph's record.
func (c *Context) fillPositions(sub *ir.Graph, gen *generation) {
	for i := range sub.Nodes {
		if sub.Nodes[i].Op == ir.OpParam {
			continue
		}
		sub.Nodes[i].Pos, sub.Nodes[i].Call = lazycore.H.Site(gen.tr, c.posOf[i])
	}
}

// explainMiss says what differs between g and the nearest graph compiled
// recently (kcache locked).
func explainMiss(g *ir.Graph) string {
	if len(kcache.recent) == 0 {
		return "first batch"
	}
	var best *ir.Graph
	bestDiff := -1
	for _, h := range kcache.recent {
		d := graphDiff(g, h)
		if bestDiff < 0 || d < bestDiff {
			best, bestDiff = h, d
		}
	}
	if len(best.Nodes) != len(g.Nodes) {
		return fmt.Sprintf("%d nodes, nearest cached graph has %d; first difference: %s", len(g.Nodes), len(best.Nodes), firstDiff(g, best))
	}
	return fmt.Sprintf("%d of %d nodes differ from the nearest cached graph; first: %s", bestDiff, len(g.Nodes), firstDiff(g, best))
}

func graphDiff(a, b *ir.Graph) int {
	d := max(len(a.Nodes), len(b.Nodes)) - min(len(a.Nodes), len(b.Nodes))
	for i := range min(len(a.Nodes), len(b.Nodes)) {
		if ir.FormatNode(a, ir.Value(i)) != ir.FormatNode(b, ir.Value(i)) {
			d++
		}
	}
	return d
}

func firstDiff(a, b *ir.Graph) string {
	for i := range min(len(a.Nodes), len(b.Nodes)) {
		x, y := ir.FormatNode(a, ir.Value(i)), ir.FormatNode(b, ir.Value(i))
		if x != y {
			return fmt.Sprintf("%s, cached: %s", x, y)
		}
	}
	if len(a.Nodes) > len(b.Nodes) {
		return "extra node " + ir.FormatNode(a, ir.Value(len(b.Nodes)))
	}
	if len(a.Nodes) < len(b.Nodes) {
		return "missing node " + ir.FormatNode(b, ir.Value(len(a.Nodes)))
	}
	return fmt.Sprintf("outputs %v, cached %v", a.Outputs, b.Outputs)
}
