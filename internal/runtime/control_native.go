package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/llvm"
)

// Running control flow in generated code: the drivers of codegen.Drivers
// and the tables of buffers and compiled entries they take (see the top
// of control.go).

// nativeLoop reports whether a while over regions cond and body runs in
// the generated loop driver: every executable involved is compiled and
// none splits across threads (a region with control flow inside counts by
// its steps, which the sequence driver runs), and the drivers are
// available.
func nativeLoop(cond, body *Executable) bool {
	if !nativeOK(cond) || !nativeOK(body) {
		return false
	}
	_, err := drivers()
	return err == nil
}

// nativeOK reports whether e can run in generated code: compiled, not
// split across threads and not dynamic; a staged e when all its steps'
// and regions' executables can (as last built: eviction does not change
// what an executable is). Kernels that check indices qualify: the
// drivers stop at the first call that records a bad index, and the run
// is done again from Go (native.failed).
func nativeOK(e *Executable) bool {
	if e.staged != nil {
		for _, s := range e.staged.steps {
			for _, x := range s.exes {
				if sub := x.exe.Load(); sub == nil || !nativeOK(sub) {
					return false
				}
			}
		}
		return true
	}
	return e.kernel != nil && !e.parallel && e.Dynamic == nil
}

// driverSet is the compiled drivers (codegen.Drivers).
type driverSet struct {
	k    *llvm.Kernel // its entry calls x[0](x[1])
	loop uintptr      // the loop driver
	seq  uintptr      // the sequence driver
}

var (
	driverOnce sync.Once
	driverSetV driverSet
	driverErr  error
)

// drivers returns the compiled drivers, compiling them on first use. They
// are the same code for every graph (the regions are data), so they are
// compiled once per process and never evicted.
func drivers() (*driverSet, error) {
	driverOnce.Do(func() {
		const call, loop, seq = "gojit_call_driver", "gojit_loop_driver", "gojit_seq_driver"
		obj, err := llvm.Compile(call+".ll", codegen.Drivers(call, loop, seq), llvm.Options{OptLevel: 2})
		if err != nil {
			driverErr = err
			return
		}
		k, err := llvm.Load(obj.Object, call)
		if err != nil {
			driverErr = err
			return
		}
		d := driverSet{k: k}
		if d.loop, err = k.Lookup(loop); err == nil {
			d.seq, err = k.Lookup(seq)
		}
		driverSetV, driverErr = d, err
	})
	return &driverSetV, driverErr
}

// native collects what one run in generated code holds: pinned memory,
// arrays referenced only by address, acquired executables and frames.
type native struct {
	drv  *driverSet
	pin  goruntime.Pinner
	keep []any
	held []*Executable
	puts []func()
	// Tables are carved from chunks, each pinned once. The sets below are
	// small (a few entries per step), so slices searched linearly beat
	// maps, which this per-call work would otherwise allocate.
	chunk  []uintptr
	pinset []unsafe.Pointer // buffers pinned (pinning one takes a lock)
	frames []nativeFrame
	temps  []nativeTemps
	subs   []nativeSub // acquired once per run
	// errs is the run's error slot, shared by every kernel of the run
	// that checks indices (errWords words, pinned, in chunk), once
	// errSlot made it.
	errs []uintptr
}

type nativeFrame struct {
	e  *Executable
	fr *frame
}

type nativeTemps struct {
	st *staged
	tp *[][]uint64
}

type nativeSub struct {
	x *subExec
	e *Executable
}

func newNative(drv *driverSet) *native { return &native{drv: drv} }

// errSlot returns the address of the run's error slot, zeroed, allocating
// it on first use: every kernel and driver table of the run gets the same.
func (nt *native) errSlot() uintptr {
	if nt.errs == nil {
		nt.words(make([]uintptr, errWords))
		nt.errs = nt.chunk[len(nt.chunk)-errWords:]
	}
	return uintptr(unsafe.Pointer(&nt.errs[0]))
}

// failed reports whether a kernel of the run recorded an out-of-range
// index. The drivers then stopped at once, leaving the run's outputs
// undefined; the caller runs it again from Go, where every kernel has its
// own slot and the first error in the order the interpreter runs them is
// the one reported, with its node.
func (nt *native) failed() bool {
	return nt.errs != nil && nt.errs[1] != 0
}

func (nt *native) done() {
	for _, e := range nt.held {
		e.Release()
	}
	for _, f := range nt.puts {
		f()
	}
	nt.pin.Unpin()
	goruntime.KeepAlive(nt.keep)
}

// run calls fn(arg) in generated code.
func (nt *native) run(fn, arg uintptr) {
	nt.words([]uintptr{fn, arg})
	x := nt.chunk[len(nt.chunk)-2:]
	nt.drv.k.Call(unsafe.Pointer(&x[0]))
	goruntime.KeepAlive(nt.keep)
}

func (nt *native) pinned(p unsafe.Pointer) unsafe.Pointer {
	if p == nil {
		return p
	}
	if !slices.Contains(nt.pinset, p) {
		nt.pinset = append(nt.pinset, p)
		nt.pin.Pin(p)
	}
	return p
}

// words copies a table of words into pinned memory and returns its
// address.
func (nt *native) words(w []uintptr) uintptr {
	if len(w) == 0 {
		return 0
	}
	if len(nt.chunk)+len(w) > cap(nt.chunk) {
		nt.chunk = make([]uintptr, 0, max(256, len(w)))
		nt.keep = append(nt.keep, nt.chunk)
		nt.pin.Pin(unsafe.SliceData(nt.chunk))
	}
	at := len(nt.chunk)
	nt.chunk = append(nt.chunk, w...)
	return uintptr(unsafe.Pointer(&nt.chunk[at]))
}

// acquire holds x's executable for the run, once however often the run
// uses it.
func (nt *native) acquire(x *subExec) (*Executable, error) {
	for _, s := range nt.subs {
		if s.x == x {
			return s.e, nil
		}
	}
	e, err := x.acquire()
	if err != nil {
		return nil, err
	}
	nt.held = append(nt.held, e)
	nt.subs = append(nt.subs, nativeSub{x, e})
	if !nativeOK(e) {
		// Rebuilt since nativeOK looked (it is the same graph, so this
		// does not happen); refuse rather than run it wrongly.
		return nil, fmt.Errorf("runtime: internal error: an executable of a generated run cannot run in generated code")
	}
	return e, nil
}

// frameOf is e's frame for the whole run, its temporaries pinned.
func (nt *native) frameOf(e *Executable) *frame {
	for _, f := range nt.frames {
		if f.e == e {
			return f.fr
		}
	}
	fr := e.frames.Get().(*frame)
	nt.puts = append(nt.puts, func() { e.frames.Put(fr) })
	for _, t := range fr.temps {
		if len(t) > 0 {
			nt.pin.Pin(&t[0])
		}
	}
	nt.frames = append(nt.frames, nativeFrame{e, fr})
	return fr
}

// call returns the function, argument and copy table that run e (which
// nativeOK accepts) on buffers ins and outs in generated code: e's entry
// and its slot array, or for a staged e the sequence driver and a table
// of its steps.
func (nt *native) call(e *Executable, ins, outs []unsafe.Pointer) (fn, arg, copies uintptr, ncopies int, err error) {
	if e.staged != nil {
		t, err := nt.sequence(e.staged, ins, outs)
		return nt.drv.seq, t, 0, 0, err
	}
	fr := nt.frameOf(e)
	a := make([]uintptr, max(len(e.slots), 1))
	for i, sl := range e.slots {
		if sl.kind == fromError {
			a[i] = nt.errSlot()
			continue
		}
		a[i] = uintptr(nt.pinned(e.slotPointer(fr, sl, ins, outs)))
	}
	var c []uintptr // (dst, src, bytes) triples
	for _, cp := range e.copies {
		if cp.bytes == 0 {
			continue
		}
		src := ins
		if cp.src.kind == fromOutput {
			src = outs
		}
		c = append(c, uintptr(outs[cp.out]), uintptr(src[cp.src.i]), uintptr(cp.bytes))
	}
	return e.kernel.Addr(), nt.words(a), nt.words(c), len(c) / 3, nil
}

// sequence builds the sequence driver's table for staged st run on ins
// and outs.
func (nt *native) sequence(st *staged, ins, outs []unsafe.Pointer) (uintptr, error) {
	var tp *[][]uint64
	for _, t := range nt.temps {
		if t.st == st {
			tp = t.tp
		}
	}
	if tp == nil {
		tp = st.frames.Get().(*[][]uint64)
		nt.puts = append(nt.puts, func() { st.frames.Put(tp) })
		for _, t := range *tp {
			if len(t) > 0 {
				nt.pin.Pin(&t[0])
			}
		}
		nt.temps = append(nt.temps, nativeTemps{st, tp})
	}
	temps := *tp
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
	ptrs := func(bs []buf) []unsafe.Pointer {
		out := make([]unsafe.Pointer, len(bs))
		for i, b := range bs {
			out[i] = nt.pinned(ptr(b))
		}
		return out
	}
	t := make([]uintptr, codegen.SeqHeader) // the count and the error slot, set below
	copyStep := func(c []uintptr) {
		if len(c) > 0 {
			w := make([]uintptr, codegen.SeqStepWords)
			w[codegen.SeqCopiesA], w[codegen.SeqNCopiesA] = nt.words(c), uintptr(len(c)/3)
			t = append(t, w...)
		}
	}
	for si := range st.steps {
		s := &st.steps[si]
		if s.kind == stepWhile {
			d, init, err := nt.loopTable(st, s, ptr)
			if err != nil {
				return 0, err
			}
			copyStep(init) // the initial state, every time the loop starts
			w := make([]uintptr, codegen.SeqStepWords)
			w[codegen.SeqFnA], w[codegen.SeqArgsA] = nt.drv.loop, d
			t = append(t, w...)
			continue
		}
		w := make([]uintptr, codegen.SeqStepWords)
		ins := ptrs(s.ins)
		if s.kind == stepCond {
			w[codegen.SeqKind], w[codegen.SeqPred] = codegen.SeqCond, uintptr(ins[0])
			ins = ins[1:]
		}
		outs := ptrs(s.outs)
		for j, x := range s.exes {
			e, err := nt.acquire(x)
			if err != nil {
				return 0, err
			}
			fn, arg, cp, ncp, err := nt.call(e, ins, outs)
			if err != nil {
				return 0, err
			}
			base := codegen.SeqFnA + j*(codegen.SeqFnB-codegen.SeqFnA)
			w[base], w[base+1], w[base+2], w[base+3] = fn, arg, cp, uintptr(ncp)
		}
		t = append(t, w...)
	}
	// The staged executable's own copies, as a step that only copies.
	var c []uintptr
	for _, cp := range st.copies {
		if cp.bytes > 0 {
			c = append(c, uintptr(outs[cp.out]), uintptr(nt.pinned(ptr(cp.src))), uintptr(cp.bytes))
		}
	}
	copyStep(c)
	t[0] = uintptr((len(t) - codegen.SeqHeader) / codegen.SeqStepWords)
	t[1] = nt.errSlot()
	return nt.words(t), nil
}

// loopTable builds the loop driver's table for while step s of st, whose
// buffers ptr resolves, and returns it with the copies that set the
// initial state (the operands to the result buffers, set 0; set 1 is the
// step's scratch buffers). The regions' argument arrays are built for
// both parities of the double-buffered state.
func (nt *native) loopTable(st *staged, s *step, ptr func(buf) unsafe.Pointer) (uintptr, []uintptr, error) {
	cond, err := nt.acquire(s.exes[0])
	if err != nil {
		return 0, nil, err
	}
	body, err := nt.acquire(s.exes[1])
	if err != nil {
		return 0, nil, err
	}
	k := s.carried
	n := len(s.ins)
	var sets [2][]unsafe.Pointer
	var init, final []uintptr
	for i := range k {
		sets[0] = append(sets[0], nt.pinned(ptr(s.outs[i])))
		sets[1] = append(sets[1], nt.pinned(ptr(s.scratch[i])))
		if bytes := bufBytes(st, s.outs[i], body.Graph, i); bytes > 0 {
			init = append(init, uintptr(sets[0][i]), uintptr(nt.pinned(ptr(s.ins[i]))), uintptr(bytes))
			final = append(final, uintptr(sets[0][i]), uintptr(sets[1][i]), uintptr(bytes))
		}
	}
	captures := make([]unsafe.Pointer, 0, n-k)
	for i := k; i < n; i++ {
		captures = append(captures, nt.pinned(ptr(s.ins[i])))
	}
	flag := nt.pinned(ptr(s.cond))
	d := make([]uintptr, codegen.DriverWords)
	for par := range 2 {
		state := append(append([]unsafe.Pointer(nil), sets[par]...), captures...)
		cfn, ca, cc, nc, err := nt.call(cond, state, []unsafe.Pointer{flag})
		if err != nil {
			return 0, nil, err
		}
		bfn, ba, bc, nb, err := nt.call(body, state, sets[1-par])
		if err != nil {
			return 0, nil, err
		}
		d[codegen.DriverCond], d[codegen.DriverBody] = cfn, bfn
		d[codegen.DriverCondArgs0+par] = ca
		d[codegen.DriverBodyArgs0+par] = ba
		d[codegen.DriverCondCopies0+2*par], d[codegen.DriverCondNCopies0+2*par] = cc, uintptr(nc)
		d[codegen.DriverBodyCopies0+2*par], d[codegen.DriverBodyNCopies0+2*par] = bc, uintptr(nb)
	}
	d[codegen.DriverFlag] = uintptr(flag)
	d[codegen.DriverFinal], d[codegen.DriverNFinal] = nt.words(final), uintptr(len(final)/3)
	d[codegen.DriverErr] = nt.errSlot()
	return nt.words(d), init, nil
}

// loopNative runs a while step in the generated loop driver (see
// nativeLoop), everything it points to pinned for the duration.
func (st *staged) loopNative(s *step, ptr func(buf) unsafe.Pointer) error {
	drv, err := drivers()
	if err != nil {
		return err
	}
	nt := newNative(drv)
	defer nt.done()
	d, _, err := nt.loopTable(st, s, ptr)
	if err != nil {
		return err
	}
	// The initial state, into the result buffers (set 0).
	for i := range s.carried {
		if bytes := bufBytes(st, s.outs[i], s.exes[1].g, i); bytes > 0 {
			copy(unsafe.Slice((*byte)(ptr(s.outs[i])), bytes), unsafe.Slice((*byte)(ptr(s.ins[i])), bytes))
		}
	}
	nt.run(drv.loop, d)
	if nt.failed() {
		return errRunFromGo
	}
	return nil
}

// runNative runs all of st in one call of generated code (see nativeOK).
func (st *staged) runNative(ins, outs []unsafe.Pointer) error {
	drv, err := drivers()
	if err != nil {
		return err
	}
	nt := newNative(drv)
	defer nt.done()
	pins := func(ps []unsafe.Pointer) {
		for _, p := range ps {
			nt.pinned(p)
		}
	}
	pins(ins)
	pins(outs)
	t, err := nt.sequence(st, ins, outs)
	if err != nil {
		return err
	}
	nt.run(drv.seq, t)
	if nt.failed() {
		return errRunFromGo
	}
	return nil
}

// errRunFromGo is what a run in generated code returns when a kernel met
// an out-of-range index: the caller runs the same work again step by step
// from Go, which reports the error (see native.failed).
var errRunFromGo = errors.New("runtime: run again from Go")
