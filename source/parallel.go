package source

import (
	"fmt"
	"go/token"
	"go/types"
	"math"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Range marks a parallel loop: for i := range source.Range(n) runs its
// iterations 0..n-1 like for i := range n, and, in a compiled function,
// may run them on several threads. The compiler checks that the
// iterations are independent: the loop writes only s[i] of slices s
// (through the loop's own index i), reads a written slice only at s[i],
// and carries no variable from one iteration to the next except
// reductions s = s op x with op one of + * min max, which each thread
// computes over its chunk and the chunks' results combine in order
// (so a float sum is rounded differently from the serial loop's). Slices
// are assumed not to overlap one another, as in Numba's prange. What the
// compiler cannot prove independent is rejected with a diagnostic.
//
// A failing check inside the loop (an index out of range) reports the
// failure of the lowest-numbered chunk, which is the first in iteration
// order, as Go would; iterations of later chunks may have run.
func Range(n int) int { return n }

// How a function with parallel loops runs. Its SSA is cut at each
// parallel loop into segments: segment 0 runs from the entry to the first
// parallel loop it reaches, segment j from the exit of loop j onwards.
// Each segment is an LLVM function; reaching a parallel loop's header it
// stores the loop's trip count and its reductions' initial values in the
// spill area and returns to Go ("yields"), which runs the loop's chunk
// function over [start, end) chunks on the worker pool, combines the
// reductions and calls the kernel again to run segment j. Values that one
// segment defines and a later one (or a chunk) uses are stored in the
// spill area where they are defined and loaded where they are used.
//
// The spill area, in 64-bit words:
//
//	[0] the segment to run   [1] the loop it yielded to (0: returned)
//	[2..] three words per spilled value, then per loop: n and the initial
//	values of its reductions, then chunk records of (status[3], partials).

// A parLoop is one parallel loop.
type parLoop struct {
	num    int // 1-based
	header *ssa.BasicBlock
	body   map[*ssa.BasicBlock]bool
	exit   *ssa.BasicBlock
	test   *ssa.If
	iv     *ssa.Phi
	n      ssa.Value
	bottom bool
	reds   []reduction
	chunk  string // the chunk function's symbol

	nSlot    int // spill word of n
	initSlot int // spill words of the reductions' initial values
	partBase int // spill word of chunk 0's record
}

// A reduction is a variable the loop carries: phi = phi op x.
type reduction struct {
	phi    *ssa.Phi
	update ssa.Value // the back-edge value
	op     string    // "+", "*", "min", "max"
	kind   types.BasicKind
	chain  map[ssa.Value]bool // p and every value between p and the update
}

// maxChunkRecords bounds the chunks of one parallel loop.
const maxChunkRecords = 64

// parState is a module's parallel-loop layout.
type parState struct {
	loops []*parLoop
	slots map[ssa.Value]int // spill word of each spilled value
	words int               // spill area size
	sets  []map[*ssa.BasicBlock]bool
}

func (p *parState) chunkWords(pl *parLoop) int { return statusWords + len(pl.reds) }

// findParallel finds the parallel loops of the compiled function, checks
// them, and reports every problem as one *Error.
func (m *module) findParallel(fl *funcLower) []*parLoop {
	f := fl.fn
	var ps []*parLoop
	var diags []Diagnostic
	bad := func(pos token.Pos, format string, args ...any) {
		if !pos.IsValid() {
			pos = f.Pos()
		}
		diags = append(diags, m.u.diag(pos, format, args...))
	}
	for _, l := range fl.loops.loops {
		call, ok := l.n.(*ssa.Call)
		if !ok {
			continue
		}
		callee, ok := call.Common().Value.(*ssa.Function)
		if !ok || !isRange(callee) {
			continue
		}
		pos := call.Pos()
		if c, ok := l.init.(*ssa.Const); !ok || c.Int64() != 0 || l.c != boolInt(l.bottom) {
			bad(pos, "parallel loop: write it as for i := range source.Range(n)")
			continue
		}
		for _, o := range fl.loops.loops {
			if o != l && o.body[l.header] && len(o.body) > len(l.body) {
				bad(pos, "parallel loop inside another loop: not supported in compiled functions")
			}
		}
		pl := &parLoop{num: len(ps) + 1, header: l.header, body: l.body, iv: l.iv, n: l.n, bottom: l.bottom}
		test := l.header
		if l.bottom {
			for _, p := range l.header.Preds {
				if l.body[p] {
					test = p
				}
			}
		}
		pl.test, _ = lastIf(test)
		pl.exit = test.Succs[1]
		m.checkParallel(pl, fl.loops, bad)
		ps = append(ps, pl)
	}
	if len(diags) > 0 {
		panic(diagsError{diags})
	}
	return ps
}

type diagsError struct{ diags []Diagnostic }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// checkParallel proves the iterations of pl independent or reports why not.
func (m *module) checkParallel(pl *parLoop, li *loopInfo, bad func(token.Pos, string, ...any)) {
	h := pl.header
	written := map[ssa.Value]bool{}
	inLoop := func(v ssa.Value) bool {
		in, ok := v.(ssa.Instruction)
		return ok && in.Block() != nil && pl.body[in.Block()]
	}
	// Exits: only the loop's own test may leave it.
	for b := range pl.body {
		for _, s := range b.Succs {
			if !pl.body[s] && !(s == pl.exit && lastIfIs(b, pl.test)) {
				bad(lastPos(b), "break or return in a parallel loop: not supported in compiled functions")
			}
		}
	}
	// Carried variables must be reductions.
	for _, in := range h.Instrs {
		p, ok := in.(*ssa.Phi)
		if !ok || p == pl.iv {
			continue
		}
		r, ok := reductionOf(p, pl)
		if !ok {
			bad(p.Pos(), "variable %s is carried from one iteration of the parallel loop to the next and is not a reduction (s = s + x, s * x, min(s, x), max(s, x))", p.Comment)
			continue
		}
		pl.reds = append(pl.reds, r)
	}
	blocks := make([]*ssa.BasicBlock, 0, len(pl.body))
	for b := range pl.body {
		blocks = append(blocks, b)
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Index < blocks[j].Index })
	for _, b := range blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Store:
				switch a := in.Addr.(type) {
				case *ssa.IndexAddr:
					if a.Index != pl.iv && !rowIndex(a.Index, pl, li) || inLoop(a.X) {
						bad(in.Pos(), "parallel loop writes %s at an index other than the loop's own: iterations may depend on each other", a.X.Name())
					}
					written[a.X] = true
				case *ssa.Alloc:
					if !inLoop(a) {
						bad(in.Pos(), "parallel loop assigns %s, declared outside it: iterations may depend on each other", a.Comment)
					}
				default:
					bad(in.Pos(), "parallel loop stores through a pointer: not supported")
				}
			case *ssa.Call:
				if callee, ok := in.Common().Value.(*ssa.Function); ok && callee.Pkg == m.u.pkg {
					for _, a := range in.Common().Args {
						if _, ok := a.Type().Underlying().(*types.Slice); ok {
							bad(in.Pos(), "parallel loop passes a slice to %s, which may write it: not supported", callee.Name())
						}
					}
				}
			}
			// Values of the loop used after it: only reductions.
			if v, ok := in.(ssa.Value); ok && v != ssa.Value(pl.iv) && !isReduction(v, pl) {
				for _, ref := range *v.Referrers() {
					if ref.Block() != nil && !pl.body[ref.Block()] {
						name := "a value"
						if ph, ok := ref.(*ssa.Phi); ok && ph.Comment != "" {
							name = "variable " + ph.Comment
						}
						bad(v.Pos(), "%s is assigned in the parallel loop and used after it: not supported (only reductions s = s + x, s * x, min(s, x), max(s, x) are)", name)
						break
					}
				}
			}
		}
	}
	for _, ref := range *pl.iv.Referrers() {
		if ref.Block() != nil && !pl.body[ref.Block()] {
			bad(ref.Pos(), "the index of a parallel loop is used after it: not supported")
		}
	}
	for _, b := range blocks {
		for _, in := range b.Instrs {
			u, ok := in.(*ssa.UnOp)
			if !ok || u.Op != token.MUL {
				continue
			}
			if a, ok := u.X.(*ssa.IndexAddr); ok && written[a.X] && a.Index != pl.iv && !rowIndex(a.Index, pl, li) {
				bad(u.Pos(), "parallel loop reads %s, which it writes, at an index other than the loop's own: iterations may depend on each other", a.X.Name())
			}
		}
	}
}

func lastIfIs(b *ssa.BasicBlock, want *ssa.If) bool {
	br, ok := lastIf(b)
	return ok && br == want
}

func lastPos(b *ssa.BasicBlock) token.Pos {
	for i := len(b.Instrs) - 1; i >= 0; i-- {
		if p := b.Instrs[i].Pos(); p.IsValid() {
			return p
		}
	}
	return token.NoPos
}

func isReduction(v ssa.Value, pl *parLoop) bool {
	for _, r := range pl.reds {
		if r.chain[v] {
			return true
		}
	}
	return false
}

// reductionOf recognizes p = p op x, op one of + * min max, where p and
// the update are used in the loop only by each other.
func reductionOf(p *ssa.Phi, pl *parLoop) (reduction, bool) {
	var upd ssa.Value
	for i, e := range p.Edges {
		if !pl.body[pl.header.Preds[i]] {
			continue
		}
		if upd != nil && upd != e {
			return reduction{}, false
		}
		upd = e
	}
	b, ok := basic(p.Type())
	if !ok || b.Kind() == types.Bool || upd == nil {
		return reduction{}, false
	}
	r := reduction{phi: p, update: upd, kind: b.Kind(), chain: map[ssa.Value]bool{p: true}}
	// The update is p op x, or a phi of the loop's (an if in the body)
	// each of whose edges is such an update or p itself.
	var walk func(v ssa.Value) bool
	walk = func(v ssa.Value) bool {
		if v == ssa.Value(p) {
			return true
		}
		if r.chain[v] {
			return true
		}
		in, ok := v.(ssa.Instruction)
		if !ok || !pl.body[in.Block()] {
			return false
		}
		r.chain[v] = true
		var op string
		var args []ssa.Value
		switch u := v.(type) {
		case *ssa.Phi:
			for _, e := range u.Edges {
				if !walk(e) {
					return false
				}
			}
			return true
		case *ssa.BinOp:
			switch u.Op {
			case token.ADD:
				op = "+"
			case token.MUL:
				op = "*"
			}
			args = []ssa.Value{u.X, u.Y}
		case *ssa.Call:
			if bi, ok := u.Common().Value.(*ssa.Builtin); ok && (bi.Name() == "min" || bi.Name() == "max") && len(u.Common().Args) == 2 {
				op = bi.Name()
				args = u.Common().Args
			}
		}
		if op == "" || r.op != "" && r.op != op {
			return false
		}
		r.op = op
		// Exactly one operand continues the chain; the other must not
		// depend on it (it is checked by the uses test below).
		a0, a1 := args[0], args[1]
		if r.chain[a1] || a1 == ssa.Value(p) {
			a0, a1 = a1, a0
		}
		return walk(a0) && !r.chain[a1] && a1 != ssa.Value(p)
	}
	if !walk(upd) || r.op == "" {
		return reduction{}, false
	}
	for v := range r.chain {
		for _, ref := range *v.Referrers() {
			if ref.Block() == nil || !pl.body[ref.Block()] {
				continue
			}
			if rv, ok := ref.(ssa.Value); !ok || !r.chain[rv] {
				return reduction{}, false
			}
		}
	}
	return r, true
}

// liveIn lists the values the blocks of set use but do not define (the
// parameters excepted), in a stable order; with start, also start's phis.
func (p *parState) liveIn(f *ssa.Function, set map[*ssa.BasicBlock]bool, start *ssa.BasicBlock, yields map[*ssa.BasicBlock]*parLoop) []ssa.Value {
	seen := map[ssa.Value]bool{}
	var out []ssa.Value
	add := func(v ssa.Value) {
		switch v := v.(type) {
		case *ssa.Const, *ssa.Parameter, *ssa.Function, *ssa.Builtin, nil:
			return
		case ssa.Instruction:
			if set[v.Block()] && !isStartPhi(v.(ssa.Value), start) {
				return
			}
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, b := range f.Blocks {
		if !set[b] {
			continue
		}
		if pl := yields[b]; pl != nil {
			add(pl.n)
			for _, r := range pl.reds {
				add(exitEdgeOutside(r.phi, pl))
			}
			continue
		}
		for _, in := range b.Instrs {
			if ph, ok := in.(*ssa.Phi); ok {
				if b == start {
					add(ph)
					continue
				}
				for i, e := range ph.Edges {
					if set[b.Preds[i]] && yields[b.Preds[i]] == nil {
						add(e)
					}
				}
				continue
			}
			var ops []*ssa.Value
			for _, o := range in.Operands(ops) {
				if o != nil {
					add(*o)
				}
			}
		}
	}
	return out
}

func isStartPhi(v ssa.Value, start *ssa.BasicBlock) bool {
	p, ok := v.(*ssa.Phi)
	return ok && start != nil && p.Block() == start
}

// lowerParallel lowers the compiled function ps's loops cut it into:
// segments and chunks (see above).
func (m *module) lowerParallel(fl *funcLower, ps []*parLoop, params []string) {
	f := fl.fn
	st := &parState{loops: ps, slots: map[ssa.Value]int{}}
	m.par = st
	m.ploops = ps
	headers := map[*ssa.BasicBlock]*parLoop{}
	for _, pl := range ps {
		headers[pl.header] = pl
	}
	// The blocks of each segment: reachable from its start without
	// entering a parallel loop (whose header it yields at).
	starts := []*ssa.BasicBlock{f.Blocks[0]}
	for _, pl := range ps {
		starts = append(starts, pl.exit)
	}
	for _, s := range starts {
		set := map[*ssa.BasicBlock]bool{}
		work := []*ssa.BasicBlock{s}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if set[b] {
				continue
			}
			set[b] = true
			if headers[b] != nil {
				continue
			}
			work = append(work, b.Succs...)
		}
		st.sets = append(st.sets, set)
	}
	// Spill slots: every value a segment or chunk uses and does not define.
	next := 2
	slot := func(v ssa.Value) {
		if _, ok := st.slots[v]; !ok {
			st.slots[v] = next
			next += 3
		}
	}
	for j, set := range st.sets {
		var start *ssa.BasicBlock
		if j > 0 {
			start = starts[j]
			for _, p := range start.Preds {
				if set[p] {
					m.fail(start.Instrs[0].Pos(), "code after a parallel loop that jumps back to the loop's exit: not supported in compiled functions")
				}
			}
		}
		for _, v := range st.liveIn(f, set, start, headers) {
			if isStartPhi(v, start) {
				e := exitEdge(v.(*ssa.Phi), ps[j-1])
				if _, ok := e.(*ssa.Const); !ok {
					slot(e)
				}
				continue
			}
			slot(v)
		}
	}
	for _, pl := range ps {
		for _, v := range st.liveIn(f, pl.body, nil, nil) {
			slot(v)
		}
	}
	for _, pl := range ps {
		pl.nSlot = next
		pl.initSlot = next + 1
		next += 1 + len(pl.reds)
	}
	part := next
	for _, pl := range ps {
		pl.partBase = part
		next = max(next, part+maxChunkRecords*st.chunkWords(pl))
	}
	st.words = next
	ret := retType(f.Signature)
	segParams := append([]string{params[0], "ptr %sp"}, params[1:]...)
	for j, set := range st.sets {
		r := &region{name: segName(m, j), ret: ret, params: segParams, set: set, yields: map[*ssa.BasicBlock]*parLoop{}, spill: true}
		if j > 0 {
			r.start, r.seg = starts[j], ps[j-1]
		}
		for b := range set {
			if pl := headers[b]; pl != nil {
				r.yields[b] = pl
			}
		}
		fl.emitRegion(r)
	}
	for _, pl := range ps {
		pl.chunk = fmt.Sprintf("%s_chunk%d", m.sym, pl.num)
		pre := fmt.Sprintf("  %%sp = getelementptr ptr, ptr %%args, i64 1\n  %%sp.p = load ptr, ptr %%sp\n  %%sp.f = load ptr, ptr %%args\n"+
			"  %%st.off = mul i64 %%group, %d\n  %%st.w = add i64 %%st.off, %d\n  %%st = getelementptr i64, ptr %%sp.p, i64 %%st.w\n",
			st.chunkWords(pl), pl.partBase)
		pre += m.loadParams("%sp.f", "%cp")
		r := &region{name: "@" + pl.chunk, ret: "void", params: []string{"ptr %args", "i64 %group", "i64 %start", "i64 %end", "i64 %size"},
			pre: pre, set: pl.body, start: pl.header, chunk: pl}
		fl.emitRegion(r)
	}
}

func segName(m *module, j int) string {
	return fmt.Sprintf("@\"go.%s.seg%d\"", m.u.fn.Name(), j)
}

// exitEdge is the value p (a phi of loop pl's exit block) receives when
// the loop ends.
func exitEdge(p *ssa.Phi, pl *parLoop) ssa.Value {
	for i, e := range p.Edges {
		if pl.body[p.Block().Preds[i]] {
			return e
		}
	}
	return p
}

// spillPtr returns a pointer to spill word w.
func (fl *funcLower) spillPtr(w int) string {
	base := "%sp"
	if fl.r.chunk != nil {
		base = "%sp.p"
	}
	return fl.def("getelementptr i64, ptr %s, i64 %d", base, w)
}

// loadSpill loads v (or, for a segment's start phi, its value on leaving
// the loop) from the spill area.
func (fl *funcLower) loadSpill(v ssa.Value) string {
	st := fl.m.par
	if isStartPhi(v, fl.r.start) && fl.r.seg != nil {
		e := exitEdge(v.(*ssa.Phi), fl.r.seg)
		if c, ok := e.(*ssa.Const); ok {
			return fl.m.constLit(c)
		}
		v = e
	}
	w, ok := st.slots[v]
	if !ok {
		fl.fail(v.Pos(), "internal error: value %s has no spill slot", v.Name())
	}
	ty := llType(v.Type())
	return fl.def("load %s, ptr %s", ty, fl.spillPtr(w))
}

// storeSpill stores v if a later segment or a chunk needs it.
func (fl *funcLower) storeSpill(v ssa.Value) {
	st := fl.m.par
	if st == nil {
		return
	}
	w, ok := st.slots[v]
	if !ok {
		return
	}
	fl.emit("store %s %s, ptr %s", llType(v.Type()), fl.names[v], fl.spillPtr(w))
}

// yield ends a segment at parallel loop pl's header: it stores the trip
// count and the reductions' initial values and returns to Go.
func (fl *funcLower) yield(pl *parLoop) {
	fl.emit("store i64 %s, ptr %s", fl.val(pl.n), fl.spillPtr(pl.nSlot))
	for i, r := range pl.reds {
		init := exitEdgeOutside(r.phi, pl)
		fl.emit("store %s %s, ptr %s", llType(r.phi.Type()), fl.val(init), fl.spillPtr(pl.initSlot+i))
	}
	fl.emit("store i64 %d, ptr %s", pl.num, fl.spillPtr(1))
	fl.emit("%s", fl.retPoison())
}

// exitEdgeOutside is p's value on entering the loop.
func exitEdgeOutside(p *ssa.Phi, pl *parLoop) ssa.Value {
	for i, e := range p.Edges {
		if !pl.body[pl.header.Preds[i]] {
			return e
		}
	}
	return nil
}

// chunkInit is the value header phi p starts a chunk with: start for the
// index, the operation's identity for a reduction.
func (fl *funcLower) chunkInit(p *ssa.Phi) string {
	pl := fl.r.chunk
	if p == pl.iv {
		return "%start"
	}
	for _, r := range pl.reds {
		if r.phi == p {
			return identity(r.op, p.Type())
		}
	}
	fl.fail(p.Pos(), "internal error: header phi %s of a parallel loop", p.Name())
	return ""
}

func identity(op string, t types.Type) string {
	ty := llType(t)
	bits := bitsOf(t)
	switch {
	case op == "+" && isFloat(t):
		return floatLit(math.Copysign(0, -1), ty) // -0 + x == x for every x
	case op == "+":
		return "0"
	case op == "*" && isFloat(t):
		return floatLit(1, ty)
	case op == "*":
		return "1"
	case isFloat(t) && op == "min":
		return "0x7FF0000000000000"
	case isFloat(t):
		return "0xFFF0000000000000"
	case isUnsigned(t) && op == "min":
		return "-1"
	case isUnsigned(t):
		return "0"
	case op == "min":
		return fmt.Sprint(int64(1)<<(bits-1) - 1)
	}
	return fmt.Sprint(-int64(1) << (bits - 1))
}

// chunkTest replaces the loop's test against n by one against the chunk's
// end.
func (fl *funcLower) chunkTest(in *ssa.If) {
	cmp := in.Cond.(*ssa.BinOp)
	c := fl.def("icmp slt i64 %s, %%end", fl.val(cmp.X))
	fl.emit("br i1 %s, label %%b%d, label %%chunk.exit", c, in.Block().Succs[0].Index)
}

// chunkExit emits the chunk's exit block: it stores the partial reductions.
func (fl *funcLower) chunkExit() string {
	pl := fl.r.chunk
	if pl == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("chunk.exit:\n")
	for i, r := range pl.reds {
		v := r.phi
		var val string
		if pl.bottom {
			val = fl.names[r.update]
		} else {
			val = fl.names[v]
		}
		fmt.Fprintf(&b, "  %%red%d.p = getelementptr i64, ptr %%st, i64 %d\n  store %s %s, ptr %%red%d.p\n", i, statusWords+i, llType(v.Type()), val, i)
	}
	b.WriteString("  ret void\n")
	return b.String()
}

// loadParams emits loads of the function's parameters from the frame at
// ptr frame, naming them %p0, %p1, ... as the Go function's own are.
func (m *module) loadParams(frame, prefix string) string {
	var w strings.Builder
	sig := m.u.fn.Signature
	pslots, _, _ := frameLayout(sig)
	for i := 0; i < sig.Params().Len(); i++ {
		t := sig.Params().At(i).Type()
		q := fmt.Sprintf("%s%d", prefix, i)
		fmt.Fprintf(&w, "  %s.a = getelementptr i64, ptr %s, i64 %d\n", q, frame, pslots[i])
		if _, ok := t.Underlying().(*types.Slice); ok {
			fmt.Fprintf(&w, "  %%p%d = load {ptr, i64, i64}, ptr %s.a\n", i, q)
			continue
		}
		if isBool(t) {
			fmt.Fprintf(&w, "  %s.b = load i8, ptr %s.a\n  %%p%d = trunc i8 %s.b to i1\n", q, q, i, q)
			continue
		}
		fmt.Fprintf(&w, "  %%p%d = load %s, ptr %s.a\n", i, llType(t), q)
	}
	return w.String()
}

// rowIndex reports whether idx is i*c + j, i the parallel loop's index, c
// loop-invariant and j the index of a loop inside it counting from a
// non-negative start while j < c: row i of a matrix with c columns, which
// no other iteration touches. (If i*c overflows, rows could overlap; a
// bounds-checked index that large does not occur in practice.)
func rowIndex(idx ssa.Value, pl *parLoop, li *loopInfo) bool {
	add, ok := idx.(*ssa.BinOp)
	if !ok || add.Op != token.ADD {
		return false
	}
	for _, pair := range [][2]ssa.Value{{add.X, add.Y}, {add.Y, add.X}} {
		mul, ok := pair[0].(*ssa.BinOp)
		if !ok || mul.Op != token.MUL {
			continue
		}
		var c ssa.Value
		switch {
		case mul.X == ssa.Value(pl.iv):
			c = mul.Y
		case mul.Y == ssa.Value(pl.iv):
			c = mul.X
		default:
			continue
		}
		if !invariant(c, pl.body) {
			continue
		}
		for _, l := range li.loops {
			if l.iv != pair[1] || l.bottom || l.c != 0 || l.n != c || !pl.body[l.header] {
				continue
			}
			if k, ok := l.init.(*ssa.Const); ok && k.Int64() >= 0 {
				return true
			}
		}
	}
	return false
}
