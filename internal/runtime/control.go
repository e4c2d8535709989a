package runtime

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
)

// Graphs with control flow (cond, while) run as a sequence of steps: the
// straight-line code between control-flow ops is cut into segments, each
// an ordinary Executable (fused, compiled, cached, split across threads
// like any graph), and each control-flow op is a step that runs its
// regions, themselves Executables built the same way (recursively, so a
// cond in a loop body is a step of the body's executable).
//
// A graph with a loop runs in generated code when nothing in it splits a
// loop nest across threads (nativeOK): three drivers (codegen.Drivers), one small
// module compiled once per process, take the graph's pieces as data. The
// sequence driver runs the steps, taking each cond's branch; the loop
// driver calls a while's compiled regions through pointers, tests the
// cond's flag and alternates the two sets of state buffers; a region with
// control flow inside is a sequence, and a loop a step of one, so they
// nest, and a whole call is one call of native code. A graph without a
// loop runs its steps from Go, which is cheaper than building the
// drivers' tables (runStaged). When some nest is large enough to split
// across threads, the steps run from Go too
// (run), one call of each region's executable per iteration, so that every
// nest of such a body still runs on the worker pool (generated code cannot
// reach Go's pool without calling back into Go); a loop inside that runs
// on one thread still runs in the loop driver (loopNative). The Go-driven
// call costs a few hundred nanoseconds, nothing next to a body worth
// splitting (the Newton iteration over 1e6 values spends about a
// millisecond per iteration in its body); the generated driver a few
// nanoseconds, which is what a loop over a small state needs
// (BenchmarkForLoopScalar in the root package measures it).

// stepKind says what a step of a staged executable does.
type stepKind uint8

const (
	stepSegment stepKind = iota // run a straight-line executable
	stepCond                    // run one of two regions
	stepWhile                   // run a body region while a cond region says so
)

// buf names a buffer of a staged run: a caller's input or output, or a
// temporary of the run's frame.
type buf = source

// step is one step of a staged executable.
type step struct {
	kind stepKind
	// exes: the segment's executable, or the regions (cond: then, else;
	// while: cond, body).
	exes []*subExec
	ins  []buf // operands (cond: the predicate first)
	outs []buf // results
	// while only: carried is the number of loop-carried values; scratch
	// holds the other half of the double-buffered state, cond the
	// predicate's byte.
	carried int
	scratch []buf
	cond    buf
}

// subExec is an executable a staged one runs, rebuilt if the cache
// evicted it.
type subExec struct {
	g   *ir.Graph
	opt Options
	exe atomic.Pointer[Executable]
}

// acquire returns the executable held for the caller (see Acquire),
// building it again if it was evicted.
func (s *subExec) acquire() (*Executable, error) {
	if e := s.exe.Load(); e != nil && e.Acquire() {
		return e, nil
	}
	e, err := BuildAcquired(s.g, s.opt)
	if err != nil {
		return nil, err
	}
	s.exe.Store(e)
	return e, nil
}

// acquireAll acquires the executables of xs, each distinct subExec once
// (the regions of a cond may be one graph).
func acquireAll(xs []*subExec) ([]*Executable, error) {
	exes := make([]*Executable, len(xs))
	for i, x := range xs {
		if j := slices.Index(xs[:i], x); j >= 0 {
			exes[i] = exes[j]
			continue
		}
		e, err := x.acquire()
		if err != nil {
			releaseAll(xs[:i], exes[:i])
			return nil, err
		}
		exes[i] = e
	}
	return exes, nil
}

// releaseAll releases what acquireAll acquired.
func releaseAll(xs []*subExec, exes []*Executable) {
	for i, e := range exes {
		if slices.Index(xs[:i], xs[i]) < 0 {
			e.Release()
		}
	}
}

// staged is how an executable with control flow runs.
type staged struct {
	steps []step
	temps []int // bytes of each temporary
	// copies fill outputs no step writes (an input returned as is, a
	// value returned twice, a result of a loop that ran zero times is
	// written, so it is not here).
	copies []outCopy
	frames sync.Pool // of [][]uint64, one slice per temporary
	loops  bool      // some step is a while, or has one in a region
}

// buildStaged cuts g (optimized, with control flow) into steps and builds
// the executables they run.
func buildStaged(g *ir.Graph, opt Options) (*Executable, error) {
	st := &staged{}
	// The pass dump shows the graph the user traced, already optimized
	// with its regions; the pieces cut from it are not dumped again.
	opt.Passes.Observe = nil
	isOut := g.IsOutput()
	users := g.Users()
	// seg[v] is the segment that computes v: the number of control-flow
	// ops before it; -1 for values in memory (parameters, results).
	seg := make([]int, len(g.Nodes))
	cf := 0
	for i := range g.Nodes {
		switch g.Nodes[i].Op.Kind() {
		case ir.KindControl:
			seg[i] = -1
			cf++
		case ir.KindGet:
			seg[i] = -1
		default:
			seg[i] = cf
			if g.Nodes[i].Op == ir.OpParam {
				seg[i] = -1
			}
		}
	}
	firstOut := map[ir.Value]int{}
	for j, v := range g.Outputs {
		if _, ok := firstOut[v]; !ok {
			firstOut[v] = j
		}
	}
	where := make([]buf, len(g.Nodes))
	placed := make([]bool, len(g.Nodes))
	temp := func(v ir.Value) buf {
		b := buf{fromTemp, len(st.temps)}
		n := &g.Nodes[v]
		st.temps = append(st.temps, n.Shape.Size()*n.DType.Size())
		return b
	}
	// home picks the buffer of a value computed here: the caller's output
	// when it is one, else a temporary.
	home := func(v ir.Value) buf {
		if j, ok := firstOut[v]; ok && g.Nodes[v].Op != ir.OpParam {
			return buf{fromOutput, j}
		}
		return temp(v)
	}
	// needed reports whether v, computed in segment s, is read outside it.
	needed := func(v ir.Value, s int) bool {
		if isOut[v] {
			return true
		}
		for _, u := range users[v] {
			if seg[u] != s {
				return true
			}
		}
		return false
	}
	type segBuilder struct {
		g    *ir.Graph
		val  map[ir.Value]ir.Value
		ins  []buf
		outs []ir.Value // outer values the segment returns
	}
	// One subExec per distinct graph: a run acquires each once, so it never
	// rebuilds a graph while holding an evicted copy of it (whose symbol
	// the rebuild would wait to see freed).
	//
	// A while's regions run once per iteration, however many there are,
	// so they take the full backend even when one run is Tiny
	// (codegen.Module.Tiny weighs a single run): the quick backend's code
	// is up to 1.5 times slower per element, which a long loop would pay
	// on every iteration to save a few milliseconds of compile once.
	loopOpt := opt
	if loopOpt.Backend == 0 {
		loopOpt.Backend = BackendFull
	}
	type subKey struct {
		graph   [32]byte
		backend int
	}
	subs := map[subKey]*subExec{}
	sub := func(g *ir.Graph, opt Options) *subExec {
		k := subKey{ir.Hash(g), opt.Backend}
		if x, ok := subs[k]; ok {
			return x
		}
		x := &subExec{g: g, opt: opt}
		subs[k] = x
		return x
	}
	var cur *segBuilder
	flush := func() error {
		if cur == nil {
			return nil
		}
		s := cur
		cur = nil
		var outs []buf
		for _, v := range s.outs {
			s.g.Outputs = append(s.g.Outputs, s.val[v])
			where[v], placed[v] = home(v), true
			outs = append(outs, where[v])
		}
		if len(outs) == 0 {
			return nil // nothing read later: dead code DCE should have removed
		}
		st.steps = append(st.steps, step{kind: stepSegment, exes: []*subExec{sub(s.g, opt)}, ins: s.ins, outs: outs})
		return nil
	}
	for i := range g.Nodes {
		v := ir.Value(i)
		n := g.Nodes[i]
		switch n.Op.Kind() {
		case ir.KindControl:
			if err := flush(); err != nil {
				return nil, err
			}
			stp := step{}
			for _, a := range n.Args {
				stp.ins = append(stp.ins, where[a])
			}
			// The results' buffers: where their gets live.
			res := ir.Results(&n)
			stp.outs = make([]buf, len(res))
			filled := make([]bool, len(res))
			for _, u := range users[v] {
				un := &g.Nodes[u]
				if un.Op == ir.OpGet && !filled[un.Index] {
					where[u], placed[u] = home(u), true
					stp.outs[un.Index], filled[un.Index] = where[u], true
				}
			}
			for r := range res {
				if !filled[r] {
					stp.outs[r] = buf{fromTemp, len(st.temps)}
					st.temps = append(st.temps, res[r].Shape.Size()*res[r].DType.Size())
				}
			}
			ro := opt
			if n.Op == ir.OpWhile {
				ro = loopOpt
			}
			for _, reg := range n.Regions {
				stp.exes = append(stp.exes, sub(reg, ro))
			}
			if n.Op == ir.OpCond {
				stp.kind = stepCond
			} else {
				stp.kind = stepWhile
				stp.carried = len(res)
				for r := range res {
					stp.scratch = append(stp.scratch, buf{fromTemp, len(st.temps)})
					st.temps = append(st.temps, res[r].Shape.Size()*res[r].DType.Size())
				}
				stp.cond = buf{fromTemp, len(st.temps)}
				st.temps = append(st.temps, 1)
			}
			st.steps = append(st.steps, stp)
		case ir.KindGet:
			// Placed with its control-flow op; a second get of the same
			// result reads the first one's buffer.
			if !placed[v] {
				for _, u := range users[n.Args[0]] {
					if un := &g.Nodes[u]; un.Op == ir.OpGet && un.Index == n.Index && placed[u] {
						where[v], placed[v] = where[u], true
						break
					}
				}
			}
		default:
			if n.Op == ir.OpParam {
				where[v], placed[v] = buf{fromInput, n.Index}, true
				continue
			}
			if cur == nil {
				cur = &segBuilder{g: &ir.Graph{}, val: map[ir.Value]ir.Value{}}
			}
			m := n
			m.Args = make([]ir.Value, len(n.Args))
			for j, a := range n.Args {
				sv, ok := cur.val[a]
				if !ok {
					an := &g.Nodes[a]
					if an.Op == ir.OpConst {
						sv, _ = cur.g.Add(ir.Node{Op: ir.OpConst, DType: an.DType, Shape: an.Shape, Const: an.Const})
					} else {
						var err error
						if sv, err = cur.g.AddParam(an.DType, an.Shape, an.Pos); err != nil {
							return nil, err
						}
						cur.ins = append(cur.ins, where[a])
					}
					cur.val[a] = sv
				}
				m.Args[j] = sv
			}
			nv, err := cur.g.Add(m)
			if err != nil {
				return nil, fmt.Errorf("runtime: cutting a graph at its control flow: %w", err)
			}
			cur.val[v] = nv
			if needed(v, seg[i]) {
				cur.outs = append(cur.outs, v)
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	// Outputs no step writes.
	for j, v := range g.Outputs {
		n := &g.Nodes[v]
		bytes := n.Shape.Size() * n.DType.Size()
		if w := where[v]; w != (buf{fromOutput, j}) {
			st.copies = append(st.copies, outCopy{j, w, bytes})
		}
	}
	st.frames.New = func() any {
		f := make([][]uint64, len(st.temps))
		for i, b := range st.temps {
			f[i] = make([]uint64, (b+7)/8)
		}
		return &f
	}
	// Build every executable now, so compile errors surface here.
	for si := range st.steps {
		for _, x := range st.steps[si].exes {
			e, err := x.acquire()
			if err != nil {
				return nil, err
			}
			e.Release()
		}
	}
	for _, s := range st.steps {
		st.loops = st.loops || s.kind == stepWhile
		for _, x := range s.exes {
			if sub := x.exe.Load(); sub != nil && sub.staged != nil {
				st.loops = st.loops || sub.staged.loops
			}
		}
	}
	e := &Executable{Graph: g, staged: st}
	for _, b := range st.temps {
		e.TempBytes += b
	}
	e.ArenaBytes = e.TempBytes
	return e, nil
}

// runStaged runs an executable with control flow: in one call of
// generated code when it has a loop and nothing in it splits across
// threads (nativeOK), else step by step.
func (e *Executable) runStaged(ins, outs []unsafe.Pointer, o RunOptions) error {
	// Without a loop, the steps are cheaper from Go: building the
	// driver's tables costs more (8-20 µs) than the few calls it saves
	// (the steps of a small Cond take 0.6 µs from Go).
	if e.staged.loops && nativeOK(e) {
		if _, err := drivers(); err == nil {
			if err := e.staged.runNative(ins, outs); err != errRunFromGo {
				return err
			}
		}
	}
	return e.staged.run(ins, outs, o)
}

// run executes the steps one by one from Go.
func (st *staged) run(ins, outs []unsafe.Pointer, o RunOptions) error {
	fp := st.frames.Get().(*[][]uint64)
	defer st.frames.Put(fp)
	temps := *fp
	ptr := func(b buf) unsafe.Pointer {
		switch b.kind {
		case fromInput:
			return ins[b.i]
		case fromOutput:
			return outs[b.i]
		}
		if t := temps[b.i]; len(t) > 0 {
			return unsafe.Pointer(&t[0])
		}
		return nil
	}
	ptrs := func(dst []unsafe.Pointer, bs []buf) []unsafe.Pointer {
		dst = dst[:0]
		for _, b := range bs {
			dst = append(dst, ptr(b))
		}
		return dst
	}
	ro := RunOptions{Threads: o.Threads}
	var in, out []unsafe.Pointer
	for si := range st.steps {
		s := &st.steps[si]
		exes, err := acquireAll(s.exes)
		if err != nil {
			return err
		}
		switch s.kind {
		case stepSegment:
			err = exes[0].RunAcquired(ptrs(in, s.ins), ptrs(out, s.outs), ro)
		case stepCond:
			pick := exes[1]
			if *(*byte)(ptr(s.ins[0])) != 0 {
				pick = exes[0]
			}
			err = pick.RunAcquired(ptrs(in, s.ins[1:]), ptrs(out, s.outs), ro)
		case stepWhile:
			if nativeLoop(exes[0], exes[1]) {
				err = st.loopNative(s, ptr)
			}
			if !nativeLoop(exes[0], exes[1]) || err == errRunFromGo {
				err = st.loop(s, exes[0], exes[1], ptr, ro)
			}
		}
		releaseAll(s.exes, exes)
		if err != nil {
			return err
		}
	}
	for _, c := range st.copies {
		if c.bytes > 0 {
			copy(unsafe.Slice((*byte)(outs[c.out]), c.bytes), unsafe.Slice((*byte)(ptr(c.src)), c.bytes))
		}
	}
	return nil
}

// loop runs a while step: the state lives in the step's result buffers
// and its scratch buffers in turn, the body reading one set and writing
// the other, so no iteration copies the state.
func (st *staged) loop(s *step, cond, body *Executable, ptr func(buf) unsafe.Pointer, ro RunOptions) error {
	k := s.carried
	n := len(s.ins)
	cur := make([]unsafe.Pointer, n) // state then captures: the regions' inputs
	next := make([]unsafe.Pointer, k)
	for i := range n {
		cur[i] = ptr(s.ins[i])
	}
	sizes := make([]int, k)
	for i := range k {
		sizes[i] = bufBytes(st, s.outs[i], body.Graph, i)
		dst := ptr(s.outs[i])
		if sizes[i] > 0 {
			copy(unsafe.Slice((*byte)(dst), sizes[i]), unsafe.Slice((*byte)(cur[i]), sizes[i]))
		}
		cur[i] = dst
		next[i] = ptr(s.scratch[i])
	}
	flag := ptr(s.cond)
	condOut := []unsafe.Pointer{flag}
	for {
		if err := cond.RunAcquired(cur, condOut, ro); err != nil {
			return err
		}
		if *(*byte)(flag) == 0 {
			break
		}
		if err := body.RunAcquired(cur, next, ro); err != nil {
			return err
		}
		for i := range k {
			cur[i], next[i] = next[i], cur[i]
		}
	}
	for i := range k {
		if dst := ptr(s.outs[i]); cur[i] != dst && sizes[i] > 0 {
			copy(unsafe.Slice((*byte)(dst), sizes[i]), unsafe.Slice((*byte)(cur[i]), sizes[i]))
		}
	}
	return nil
}

// bufBytes is the size of loop-carried value i, an output of body.
func bufBytes(_ *staged, _ buf, body *ir.Graph, i int) int {
	n := body.Node(body.Outputs[i])
	return n.Shape.Size() * n.DType.Size()
}

// noControl refuses a graph with control flow for a dynamic dimension,
// naming the user's call.
func noControl(g *ir.Graph) error {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.Op.Kind() != ir.KindControl {
			continue
		}
		call := n.Call
		if call == "" {
			call = n.Op.String()
		}
		msg := fmt.Sprintf("%s: control flow does not support a dynamic dimension yet; compile this function without WithDynamicDim (each batch size then compiles once)", call)
		if n.Pos != "" {
			msg = n.Pos + ": " + msg
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// LabeledModule is one generated module of an executable, with what it
// computes (Modules).
type LabeledModule struct {
	Label  string // "" for the executable's own module; else e.g. "step 2: while, body"
	Module *codegen.Module
}

// Modules returns the generated modules that run e: its own, or for an
// executable with control flow those of its steps and regions, in order
// (recursively, a nested region's labels extending its parent's). An
// interpreted executable has none.
func (e *Executable) Modules() []LabeledModule {
	if e.staged == nil {
		if e.Module == nil {
			return nil
		}
		if e.text != nil {
			e.textOnce.Do(func() { e.Module.Text = e.text() })
		}
		return []LabeledModule{{Module: e.Module}}
	}
	var out []LabeledModule
	for si, s := range e.staged.steps {
		names := []string{"segment"}
		switch s.kind {
		case stepCond:
			names = []string{"cond, then", "cond, else"}
		case stepWhile:
			names = []string{"while, cond", "while, body"}
		}
		for j, x := range s.exes {
			sub := x.exe.Load()
			if sub == nil {
				continue
			}
			label := fmt.Sprintf("step %d: %s", si, names[j])
			for _, m := range sub.Modules() {
				if m.Label != "" {
					m.Label = label + " / " + m.Label
				} else {
					m.Label = label
				}
				out = append(out, m)
			}
		}
	}
	return out
}
