package gojit

import (
	"errors"
	"fmt"
	"reflect"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/runtime"
)

// Func is a compiled function. Each distinct input signature (the dtypes
// and shapes of the array arguments and the values of the static ones) is
// traced and compiled once, on its first call; later calls with the same
// signature run the compiled code directly. A Func is safe for concurrent
// use.
type Func struct {
	fn     reflect.Value
	name   string
	params []param
	out    outKind
	cfg    config

	mu       sync.Mutex
	entries  map[string]*entry
	order    []string // keys of entries, oldest first
	lastMiss string
	warned   bool
	last     atomic.Pointer[entry]

	calls, traces, rebuilds   atomic.Int64
	buildNanos, maxBuildNanos atomic.Int64
}

// maxFuncEntries bounds how many signatures one Func remembers; the oldest
// is forgotten first (its kernel stays in the process-wide cache).
const maxFuncEntries = 256

type param struct {
	tensor bool
	typ    reflect.Type
}

type outKind struct {
	slice    bool // returns []*Tensor
	tensors  int  // number of *Tensor results (when not slice)
	trailErr bool // last result is an error
}

// entry is one traced and compiled signature.
type entry struct {
	specs  []argSpec
	traced *ir.Graph // as recorded, before compaction: for Lower
	// traced2 is the second trace of a signature with a dynamic
	// dimension (see dynamic.go); traced is the first.
	traced2 *ir.Graph
	dyn     bool // the signature has a dynamic dimension
	exe     atomic.Pointer[runtime.Executable]
	outs    []outSpec
	ready   chan struct{}
	err     error
	// checked is one more than the largest dynamic size whose memory
	// needs were checked (checkMemory), so that a call checks only a new
	// maximum.
	checked atomic.Int64
	// empty lists the reductions a dynamic size can leave with nothing
	// to reduce (see emptyCheck).
	empty []emptyCheck
}

type argSpec struct {
	dtype  DType
	shape  []int
	static any
	// cmp says static compares with ==. Other static values (slices, maps)
	// are compared by their %#v text: holding the caller's slice would
	// miss changes made to it between calls.
	cmp  bool
	text string
}

type outSpec struct {
	dtype DType
	shape []int
	dyn   []runtime.Scaled // with a dynamic dimension: how each dim follows it
}

var tensorType = reflect.TypeFor[*Tensor]()
var tensorSliceType = reflect.TypeFor[[]*Tensor]()
var errorType = reflect.TypeFor[error]()

// errNilFunc is what the methods of a nil *Func return: the usual cause is
// a Compile error that was not checked.
var errNilFunc = errors.New("gojit: method called on a nil *Func (did Compile return an error?)")

// ErrArgs is wrapped by the errors Call returns for arguments that do not
// fit the function: wrong count, wrong type, or a malformed Array.
var ErrArgs = errors.New("bad arguments")

// Compile wraps fn for tracing and compilation. fn's *Tensor parameters are
// traced inputs; parameters of any other type are static: their values are
// baked into the trace and are part of the signature, like JAX's
// static_argnums. fn returns one or more *Tensor, or a []*Tensor,
// optionally followed by an error.
//
// Compile checks fn's type; tracing and compiling happen on the first Call
// with each new signature.
func Compile(fn any, opts ...Option) (*Func, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("gojit: Compile: want a function, got %T", fn)
	}
	t := v.Type()
	if t.IsVariadic() {
		return nil, fmt.Errorf("gojit: Compile: variadic functions are not supported (%s)", t)
	}
	f := &Func{fn: v, name: funcName(v), cfg: defaultConfig(), entries: map[string]*entry{}}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("gojit: Compile: option %d is nil", i)
		}
		o(&f.cfg)
	}
	if f.cfg.err != nil {
		return nil, f.cfg.err
	}
	for i := range t.NumIn() {
		in := t.In(i)
		f.params = append(f.params, param{tensor: in == tensorType, typ: in})
	}
	if err := f.checkDynamic(); err != nil {
		return nil, err
	}
	if !f.cfg.interpret {
		runtime.Warm() // the first build's host facts, while the caller traces
	}
	nout := t.NumOut()
	if nout > 0 && t.Out(nout-1) == errorType {
		f.out.trailErr = true
		nout--
	}
	switch {
	case nout == 1 && t.Out(0) == tensorSliceType:
		f.out.slice = true
	case nout >= 1:
		for i := range nout {
			if t.Out(i) != tensorType {
				return nil, fmt.Errorf("gojit: Compile: result %d of %s is %s; want *gojit.Tensor, []*gojit.Tensor or a trailing error", i, t, t.Out(i))
			}
		}
		f.out.tensors = nout
	default:
		return nil, fmt.Errorf("gojit: Compile: %s returns no tensors", t)
	}
	return f, nil
}

// funcName names fn in messages: its package-qualified name, such as
// "bench.Chain5" or "main.main.func1", or its type if Go has no name for it.
func funcName(fn reflect.Value) string {
	if rf := goruntime.FuncForPC(fn.Pointer()); rf != nil {
		name := rf.Name()
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if name != "" {
			return name
		}
	}
	return fn.Type().String()
}

// Call runs the function: args are *Array values for the Tensor parameters
// and Go values for the static ones. It returns one new Array per result,
// or nil and the error. The arrays, and any slice taken from them, are the
// caller's to keep for as long as it likes.
//
// Results of 1 KiB and more reuse the memory of earlier results once the
// garbage collector has found them unreachable (neither the Array nor any
// slice of its data reachable): they are not zeroed first, since the
// compiled code writes every element. Only a collection finds such
// results, so when the pool of buffers of a result's size runs low, Call
// may start a collection in the background (runtime.GC on another
// goroutine; Call does not wait for it), if the time it is expected to
// save, allocating and zeroing new buffers, is at least what collections
// have been measured to cost. A program with a large live heap, with
// costly collections, or one that keeps its results, so that collections
// find few to reuse, gets few of them; with GOGC=off, none. The pool keeps
// up to 64 MiB per size and 256 MiB in all, and drops buffers no Call has
// used for a few seconds. A caller that is done with a result at once can
// say so with Array.Release, which gives its buffer back without waiting
// for a collection. CallInto writes into arrays the caller provides and
// allocates nothing.
func (f *Func) Call(args ...any) ([]*Array, error) {
	e, b, err := f.lookup(args)
	if err != nil {
		return nil, err
	}
	if e.dyn {
		if err := e.checkSize(b); err != nil {
			return nil, fmt.Errorf("gojit: %s: %w", f.name, err)
		}
	}
	outs := newOutputs(e, b)
	if err := f.run(e, b, outs, args); err != nil {
		// The outputs may hold stale data from recycled buffers
		// (outputs.go): never hand them out unwritten.
		return nil, err
	}
	return outs, nil
}

// CallInto is Call writing into caller-provided arrays, which must have the
// results' dtypes and shapes. It allocates nothing for the results. An
// output that shares memory with an input is computed into a temporary and
// copied, so in-place updates are allowed.
func (f *Func) CallInto(outs []*Array, args ...any) error {
	e, b, err := f.lookup(args)
	if err != nil {
		return err
	}
	if len(outs) != len(e.outs) {
		return fmt.Errorf("gojit: %s: %w: %d output arrays for %d results", f.name, ErrArgs, len(outs), len(e.outs))
	}
	for i, o := range outs {
		want := e.outs[i]
		if o == nil || o.err != nil || o.dtype != want.dtype || !want.fits(o.shape, b) {
			return fmt.Errorf("gojit: %s: %w: output %d is %s, want %s%s", f.name, ErrArgs, i, describe(o), want.dtype, ir.Shape(want.at(b)))
		}
	}
	if e.dyn {
		if err := e.checkSize(b); err != nil {
			return fmt.Errorf("gojit: %s: %w", f.name, err)
		}
	}
	return f.run(e, b, outs, args)
}

func describe(a *Array) string {
	switch {
	case a == nil:
		return "nil"
	case a.err != nil:
		return a.err.Error()
	}
	return fmt.Sprintf("%s%s", a.dtype, ir.Shape(a.shape))
}

// run executes e. Outputs overlapping an input or an earlier output go
// through temporaries, because the kernels assume they do not alias.
func (f *Func) run(e *entry, b int, outs []*Array, args []any) error {
	var insBuf [8]unsafe.Pointer
	var outsBuf [4]unsafe.Pointer
	ins := insBuf[:0]
	for i, p := range f.params {
		if p.tensor {
			ins = append(ins, args[i].(*Array).ptr)
		}
	}
	targets := outs
	var fixup []int
	for j, o := range outs {
		if f.aliases(o, outs[:j], args) {
			if fixup == nil {
				targets = append([]*Array(nil), outs...)
			}
			targets[j] = New(o.dtype, o.shape...)
			fixup = append(fixup, j)
		}
	}
	optr := outsBuf[:0]
	for _, o := range targets {
		optr = append(optr, o.ptr)
	}
	// Hold the kernel for the whole run, so the cache cannot free it
	// under us. If it has been evicted, rebuild it: rebuild returns a
	// kernel already held, taken while the cache still had it, so however
	// many kernels other calls build or evict meanwhile, eviction never
	// reaches the caller.
	exe := e.exe.Load()
	if !exe.Acquire() {
		var err error
		if exe, err = f.rebuild(e); err != nil {
			return err
		}
	}
	if err := runHeld(exe, ins, optr, runtime.RunOptions{Size: b, Threads: f.cfg.threads}); err != nil {
		if _, ok := errors.AsType[*ir.IndexError](err); ok {
			err = f.ownIndexError(e, ins, args, err)
		}
		return fmt.Errorf("gojit: %s: %w", f.name, err)
	}
	for _, j := range fixup {
		copyArray(outs[j], targets[j])
	}
	f.calls.Add(1)
	return nil
}

// ownIndexError returns the index error of e's own trace on these inputs
// (runtime.OwnIndexError): the kernel may have been built for another
// Func with the same graph, whose file:line it reports. A dynamic entry's
// trace has the trace's sizes, so it is traced again at the call's.
func (f *Func) ownIndexError(e *entry, ins []unsafe.Pointer, args []any, kerr error) error {
	g := e.traced
	if e.dyn {
		var err error
		if g, err = f.trace(args); err != nil {
			return kerr
		}
	}
	return runtime.OwnIndexError(g, ins, kerr)
}

// runHeld runs exe, which the caller has acquired, and releases it even if
// the run panics: a hold left behind would keep an evicted kernel from
// ever being freed, and its rebuild waiting for it forever.
func runHeld(exe *runtime.Executable, ins, outs []unsafe.Pointer, ro runtime.RunOptions) error {
	defer exe.Release()
	return exe.RunAcquired(ins, outs, ro)
}

func (f *Func) aliases(o *Array, earlier []*Array, args []any) bool {
	for i, p := range f.params {
		if p.tensor && overlaps(o, args[i].(*Array)) {
			return true
		}
	}
	for _, e := range earlier {
		if overlaps(o, e) {
			return true
		}
	}
	return false
}

func copyArray(dst, src *Array) {
	n := src.Size() * src.dtype.Size()
	if n > 0 {
		copy(unsafe.Slice((*byte)(dst.ptr), n), unsafe.Slice((*byte)(src.ptr), n))
	}
}

// lookup finds or builds the entry for args' signature. The common case,
// the same signature as the previous call, compares against it without
// allocating.
func (f *Func) lookup(args []any) (*entry, int, error) {
	if f == nil {
		return nil, 0, errNilFunc
	}
	if len(args) != len(f.params) {
		return nil, 0, fmt.Errorf("gojit: %s: %w: got %d arguments, want %d", f.name, ErrArgs, len(args), len(f.params))
	}
	if e := f.last.Load(); e != nil {
		if b, ok := e.matches(args); ok {
			return e, b, nil
		}
	}
	key, specs, b, err := f.signature(args)
	if err != nil {
		return nil, 0, err
	}
	f.mu.Lock()
	e, ok := f.entries[key]
	var why string
	if !ok {
		why = f.explainMiss(specs)
		f.lastMiss = why
		e = &entry{specs: specs, ready: make(chan struct{})}
		e.dyn = e.dynamic()
		f.entries[key] = e
		f.order = append(f.order, key)
		if len(f.order) > maxFuncEntries {
			delete(f.entries, f.order[0])
			f.order = f.order[1:]
		}
	}
	f.mu.Unlock()
	if !ok {
		if l := cacheLogger(&f.cfg); l != nil {
			l.Info("gojit: cache miss", "func", f.name, "reason", why)
		}
		e.err = f.build(e, args)
		if e.err != nil {
			f.mu.Lock()
			if f.entries[key] == e {
				delete(f.entries, key) // let a later call retry
				f.order = slices.DeleteFunc(f.order, func(k string) bool { return k == key })
			}
			f.mu.Unlock()
		} else {
			f.checkRecompiles()
		}
		close(e.ready)
	} else {
		<-e.ready
	}
	if e.err != nil {
		return nil, 0, e.err
	}
	f.last.Store(e)
	return e, b, nil
}

// matches reports whether args have e's signature, and returns the size of
// the dynamic dimension (a -1 in a spec's shape) if it has one.
func (e *entry) matches(args []any) (b int, ok bool) {
	if !e.dyn {
		return 0, e.matchesStatic(args)
	}
	b = -1
	for i := range e.specs {
		s := &e.specs[i]
		if s.shape != nil {
			a, ok := args[i].(*Array)
			if !ok || a == nil || a.err != nil || a.dtype != s.dtype || len(a.shape) != len(s.shape) {
				return 0, false
			}
			for k, d := range a.shape {
				switch w := s.shape[k]; {
				case w == dynamicDim && (b < 0 || b == d):
					b = d
				case d != w:
					return 0, false
				}
			}
			continue
		}
		if !s.sameStatic(args[i]) {
			return 0, false
		}
	}
	return max(b, 0), true
}

// sameStatic reports whether arg is the static value s was made from.
func (s *argSpec) sameStatic(arg any) bool {
	if s.cmp {
		if arg == s.static {
			return true
		}
		// A number of another type that converted to s.static (2 for a
		// float64 parameter): rare, so the reflection is acceptable.
		if arg != nil && s.static != nil && reflect.TypeOf(arg) != reflect.TypeOf(s.static) {
			c, err := convertStatic(arg, reflect.TypeOf(s.static))
			return err == nil && c == s.static
		}
		return false
	}
	return fmt.Sprintf("%T=%#v", arg, arg) == s.text
}

// matchesStatic is matches for a signature without a dynamic dimension.
func (e *entry) matchesStatic(args []any) bool {
	for i := range e.specs {
		s := &e.specs[i] // not a copy: a spec is 72 bytes
		if s.shape != nil {
			a, ok := args[i].(*Array)
			if !ok || a == nil || a.err != nil || a.dtype != s.dtype || !slices.Equal(a.shape, s.shape) {
				return false
			}
			continue
		}
		if !s.sameStatic(args[i]) {
			return false
		}
	}
	return true
}

// signature validates args and returns their cache key and specs, and the
// size of the dynamic dimension if the Func has one.
func (f *Func) signature(args []any) (string, []argSpec, int, error) {
	var b strings.Builder
	specs := make([]argSpec, len(args))
	dyn := f.dynamicSizes()
	for i, p := range f.params {
		if p.tensor {
			a, ok := args[i].(*Array)
			switch {
			case ok && a == nil:
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d is a nil *gojit.Array", f.name, ErrArgs, i)
			case args[i] == nil:
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d is nil, want a *gojit.Array", f.name, ErrArgs, i)
			case !ok:
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d is %T, want *gojit.Array", f.name, ErrArgs, i, args[i])
			}
			if a.err != nil {
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d: %w", f.name, ErrArgs, i, a.err)
			}
			shape := append([]int{}, a.shape...)
			if err := dyn.mark(i, shape); err != nil {
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: %v", f.name, ErrArgs, err)
			}
			specs[i] = argSpec{dtype: a.dtype, shape: shape}
			b.WriteString(a.dtype.String()) // as "%s%v;" with ir.Shape, without fmt
			b.WriteByte('[')
			for j, d := range shape {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(d))
			}
			b.WriteString("];")
			continue
		}
		arg := args[i]
		if arg == nil {
			if !canBeNil(p.typ) {
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d is nil, want %s", f.name, ErrArgs, i, p.typ)
			}
		} else if !reflect.TypeOf(arg).AssignableTo(p.typ) {
			var err error
			if arg, err = convertStatic(arg, p.typ); err != nil {
				return "", nil, 0, fmt.Errorf("gojit: %s: %w: argument %d: %v", f.name, ErrArgs, i, err)
			}
		}
		text := fmt.Sprintf("%T=%#v", arg, arg)
		specs[i] = argSpec{static: arg, cmp: arg == nil || comparable(arg), text: text}
		b.WriteString(text)
		b.WriteByte(';')
	}
	return b.String(), specs, dyn.size, nil
}

// convertStatic converts a Go number to the numeric type of a static
// parameter when the value survives the conversion exactly, so that
// f.Call(x, 2) works for a float64 parameter and f.Call(x, 2.0) for an int
// one, while 2.5 for an int, 300 for a uint8 or 1<<60 for a float32 (which
// would round) are errors.
func convertStatic(arg any, typ reflect.Type) (any, error) {
	v := reflect.ValueOf(arg)
	if isNumber(v.Kind()) && isNumber(typ.Kind()) && v.CanConvert(typ) {
		c := v.Convert(typ)
		if back := c.Convert(v.Type()); back.Equal(v) && sameSign(v, c) {
			return c.Interface(), nil
		}
		return nil, fmt.Errorf("%T %v does not convert exactly to %s", arg, arg, typ)
	}
	return nil, fmt.Errorf("is %T, want %s", arg, typ)
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// sameSign rejects conversions that round-trip but flip a sign, such as
// int8(-1) through uint64.
func sameSign(a, b reflect.Value) bool { return sign(a) == sign(b) }

func sign(v reflect.Value) int {
	switch {
	case v.CanInt():
		return cmpZero(v.Int() < 0, v.Int() > 0)
	case v.CanUint():
		return cmpZero(false, v.Uint() > 0)
	}
	return cmpZero(v.Float() < 0, v.Float() > 0)
}

func cmpZero(neg, pos bool) int {
	switch {
	case neg:
		return -1
	case pos:
		return 1
	}
	return 0
}

// comparable reports whether v can be compared with == without panicking
// (an array or struct holding a slice cannot, though its type says so).
func comparable(v any) bool { return reflect.ValueOf(v).Comparable() }

func canBeNil(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		return true
	}
	return false
}

// build traces fn for the signature of args and compiles the graph.
func (f *Func) build(e *entry, args []any) error {
	start := time.Now()
	traceArgs := args
	if e.dynamic() {
		traceArgs = dynamicArgs(args, e.specs, dynamicTrace1)
	}
	g, err := f.trace(traceArgs)
	if err != nil {
		return f.dynamicTraceError(e, args, err)
	}
	traced := time.Since(start)
	setupCache()
	if e.dynamic() {
		if e.traced2, err = f.trace(dynamicArgs(args, e.specs, dynamicTrace2)); err != nil {
			return f.dynamicTraceError(e, args, err)
		}
	}
	e.traced = g
	if e.traced2 != nil {
		e.empty = emptyChecks(e.traced, e.traced2)
	}
	exe, err := f.buildKernel(e, false)
	if err != nil {
		return err
	}
	e.exe.Store(exe)
	for j, v := range exe.Graph.Outputs {
		n := exe.Graph.Node(v)
		o := outSpec{dtype: DType(n.DType), shape: append([]int{}, n.Shape...)}
		if exe.Dynamic != nil {
			o.dyn = exe.Dynamic.Outputs[j]
		}
		e.outs = append(e.outs, o)
	}
	if !e.dyn {
		if err := checkMemory(exe, e.outs, 0); err != nil {
			return fmt.Errorf("gojit: %s: %w", f.name, err)
		}
	}
	f.traces.Add(1)
	f.recordBuild(time.Since(start))
	if l := cacheLogger(&f.cfg); l != nil {
		l.Debug("gojit: compiled", "func", f.name, "nodes", len(g.Nodes), "groups", len(exe.Plan.Roots),
			"trace", traced, "total", time.Since(start), "interpreted", exe.Interpreted(), "from_disk", exe.FromDisk)
	}
	return nil
}

func (f *Func) runtimeOptions() runtime.Options {
	return runtime.Options{Interpret: f.cfg.interpret, OptLevel: f.cfg.optLevel, FastMath: f.cfg.fastMath, Backend: f.cfg.backend,
		Passes: f.cfg.passes, Name: f.name}
}

func (f *Func) recordBuild(d time.Duration) {
	f.buildNanos.Add(int64(d))
	for {
		m := f.maxBuildNanos.Load()
		if int64(d) <= m || f.maxBuildNanos.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// rebuild replaces e's kernel after the process-wide cache evicted it,
// reusing e's trace: the kernel comes from the cache (another Func may have
// rebuilt it), the disk cache, or LLVM. The kernel it returns is acquired
// for the caller, who must release it.
func (f *Func) rebuild(e *entry) (*runtime.Executable, error) {
	start := time.Now()
	exe, err := f.buildKernel(e, true)
	if err != nil {
		return nil, err
	}
	e.exe.Store(exe)
	f.rebuilds.Add(1)
	f.recordBuild(time.Since(start))
	if l := cacheLogger(&f.cfg); l != nil {
		l.Info("gojit: cache miss", "func", f.name, "reason", "kernel was evicted from the in-memory cache", "from_disk", exe.FromDisk)
	}
	return exe, nil
}

// trace calls fn with parameter tensors and returns the recorded graph.
func (f *Func) trace(args []any) (g *ir.Graph, err error) {
	tr := newTracer()
	tr.params = true
	in := make([]reflect.Value, len(f.params))
	for i, p := range f.params {
		if p.tensor {
			a := args[i].(*Array)
			pcs := callers()
			v, err := tr.g.AddParam(a.dtype.ir(), ir.Shape(a.shape).Clone(), fmt.Sprintf("argument %d", i))
			if err != nil {
				return nil, err
			}
			tr.pcs = append(tr.pcs, pcs)
			in[i] = reflect.ValueOf(&Tensor{tr: tr, v: v})
			continue
		}
		if args[i] == nil {
			in[i] = reflect.Zero(p.typ)
		} else { // assignable, or a number signature converted exactly
			in[i] = reflect.ValueOf(args[i]).Convert(p.typ)
		}
	}
	out, err := f.callTraced(in)
	if err != nil {
		return nil, err
	}
	var results []*Tensor
	if f.out.slice {
		results = out[0].Interface().([]*Tensor)
	} else {
		for _, o := range out[:f.out.tensors] {
			results = append(results, o.Interface().(*Tensor))
		}
	}
	if f.out.trailErr {
		if e, _ := out[len(out)-1].Interface().(error); e != nil {
			return nil, fmt.Errorf("gojit: %s: %w", f.name, e)
		}
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("gojit: %s: returned no tensors", f.name)
	}
	pcs := callers()
	for i, r := range results {
		if r == nil {
			tr.errs = append(tr.errs, fmt.Errorf("result %d is a nil *Tensor", i))
			continue
		}
		if r.weak {
			r = tr.constant(ir.Float32, nil, r.val, pcs)
		}
		if r, ok := tr.own("return", i, r, pcs); ok {
			tr.g.Outputs = append(tr.g.Outputs, r.v)
		} else if len(tr.errs) == 0 {
			// Every poisoned value carries its errors; this is a backstop
			// against losing them, never a graph without its outputs.
			tr.errs = append(tr.errs, fmt.Errorf("result %d could not be traced", i))
		}
	}
	if len(tr.errs) > 0 {
		return nil, fmt.Errorf("gojit: tracing %s:\n%w", f.name, errorList(tr.errs))
	}
	for i := range tr.g.Nodes {
		if n := &tr.g.Nodes[i]; n.Pos == "" {
			n.Pos, n.Call = userSite(tr.pcs[i])
			if c, ok := tr.calls[ir.Value(i)]; ok {
				n.Call = c
			}
		}
	}
	return &tr.g, nil
}

// callTraced calls fn, turning a panic in user code into an error that
// gives the panic value and the line that panicked; the whole stack goes
// to the debug log (GOJIT_LOG=debug or WithLogger).
func (f *Func) callTraced(in []reflect.Value) (out []reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			where := panicSite()
			err = fmt.Errorf("gojit: %s panicked while tracing: %s%v", f.name, where, r)
			if l := cacheLogger(&f.cfg); l != nil {
				l.Debug("gojit: panic while tracing", "func", f.name, "value", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}
	}()
	return f.fn.Call(in), nil
}

// panicSite, called from a deferred recover, names the line that panicked:
// the first frame below the runtime's panic machinery, "file.go:12: ", and
// when that frame is inside gojit, also the user's line that called it.
func panicSite() string {
	var pcs [32]uintptr
	n := goruntime.Callers(3, pcs[:]) // above panicSite and the deferred func
	frames := goruntime.CallersFrames(pcs[:n])
	inPanic := false
	var own string
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic" || strings.HasPrefix(fr.Function, "runtime.panic"):
			inPanic = true
		case !inPanic || strings.HasPrefix(fr.Function, "runtime."):
		case isOwnFrame(fr.Function, fr.File):
			if own == "" {
				own = fmt.Sprintf("%s:%d (%s)", shortFile(fr.File), fr.Line, fr.Function)
			}
		case fr.File != "":
			pos := fmt.Sprintf("%s:%d: ", shortFile(fr.File), fr.Line)
			if own != "" {
				pos += "inside gojit at " + own + ": "
			}
			return pos
		}
		if !more {
			return ""
		}
	}
}

// FuncStats are a Func's counters.
type FuncStats struct {
	Calls      int64 // successful calls
	Traces     int64 // signatures traced and compiled (or loaded from disk)
	Signatures int   // signatures currently cached
	// Rebuilds counts kernels rebuilt after the process-wide cache
	// evicted them, without tracing again.
	Rebuilds int64
	// BuildTime is the total time spent tracing, compiling and loading;
	// MaxBuildTime the slowest one.
	BuildTime, MaxBuildTime time.Duration
	// LastMiss says why the most recent trace happened: "first call", or
	// what differed from the closest cached signature, such as
	// "arg 0 shape [32,128] → [64,128]".
	LastMiss string
}

// Stats returns the Func's counters.
func (f *Func) Stats() FuncStats {
	if f == nil {
		return FuncStats{}
	}
	f.mu.Lock()
	n, why := len(f.entries), f.lastMiss
	f.mu.Unlock()
	return FuncStats{
		Calls: f.calls.Load(), Traces: f.traces.Load(), Signatures: n, Rebuilds: f.rebuilds.Load(),
		BuildTime: time.Duration(f.buildNanos.Load()), MaxBuildTime: time.Duration(f.maxBuildNanos.Load()),
		LastMiss: why,
	}
}
