package source

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Outer-loop vectorization. LLVM vectorizes innermost loops, but a loop
// nest whose inner loop is a sequential float reduction (pairwise
// distances: s += t*t over k) or has a data-dependent exit (a Newton
// iteration per element) stays scalar: reassociating the sum would change
// Go's result, and a loop with a data-dependent break has no trip count.
// Both have independent iterations of the outer loop, so the lowering runs
// vecW of them at once, one per vector lane, each lane doing exactly the
// arithmetic Go does for its iteration, in Go's order: the results are
// Go's bit for bit.
//
// The vectorized loop L is a counting loop (see lower_loop.go) whose body
// holds at least one inner loop. Inside it a value is uniform (the same
// for every lane: a scalar) or varying (a vector); control flow that
// depends on varying values is turned into masks: every block has a mask
// of the lanes executing it, an inner loop runs while any lane is in it,
// and each lane's values leaving the loop are captured when that lane
// exits. An inner loop whose branches are all uniform keeps its control
// flow. Loads are masked (a scalar load for a uniform index, a vector load
// for lane-consecutive indices, a gather otherwise); stores must be
// lane-consecutive and outside inner loops.
//
// The vector loop runs groups of vecW iterations and leaves the rest to
// the original scalar loop, which starts where it stopped. A failing
// bounds check in a group sends that whole group to the scalar loop, which
// reports it as Go would; so a group's stores wait for its end (in their
// order), and a slice stored to may not be read after the store.
// Slices written must not overlap other slices the loop reads or writes
// (checked on entry, else only the scalar loop runs).

const vecW = 8

// A natLoop is a natural loop inside a vectorized loop.
type natLoop struct {
	header  *ssa.BasicBlock
	body    map[*ssa.BasicBlock]bool
	parent  *natLoop // nil: directly in the vectorized loop
	exits   [][2]*ssa.BasicBlock
	liveOut []ssa.Value // defined inside, used outside
	uniform bool        // all branches uniform and one exit: control flow kept
}

// A vecPlan is a loop chosen for vectorization.
type vecPlan struct {
	l      *loop
	pre    *ssa.BasicBlock // the loop's one predecessor outside it
	loops  []*natLoop      // the inner loops
	inner  map[*ssa.BasicBlock]*natLoop
	vary   map[ssa.Value]bool
	consec map[ssa.Value]bool // varying ints with lane i = lane 0 + i
	slices []ssa.Value        // slices accessed
	stored map[ssa.Value]ssa.Value
	chunk  bool   // l is the loop of a parallel chunk (pre is nil)
	js     string // the scalar loop's start, once emitted
	xlabel string // the block that enters the scalar loop
}

// naturalLoops returns every natural loop of f.
func naturalLoops(f *ssa.Function) []*natLoop {
	var ls []*natLoop
	for _, h := range f.Blocks {
		body := map[*ssa.BasicBlock]bool{h: true}
		var work []*ssa.BasicBlock
		for _, p := range h.Preds {
			if h.Dominates(p) {
				work = append(work, p)
			}
		}
		if len(work) == 0 {
			continue
		}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if body[b] {
				continue
			}
			body[b] = true
			work = append(work, b.Preds...)
		}
		ls = append(ls, &natLoop{header: h, body: body})
	}
	return ls
}

// planVecs chooses the loops of region r to vectorize, keyed by their
// preheaders (nil for the loop of a parallel chunk, which starts at the
// chunk's entry).
func (fl *funcLower) planVecs(r *region) map[*ssa.BasicBlock]*vecPlan {
	if fl.loops == nil || r.spill || len(r.yields) > 0 {
		return nil
	}
	in := func(b *ssa.BasicBlock) bool { return r.set == nil || r.set[b] }
	nat := naturalLoops(fl.fn)
	var plans []*vecPlan
	for _, l := range fl.loops.loops {
		chunk := r.chunk != nil && l.header == r.chunk.header
		if chunk && len(r.chunk.reds) > 0 {
			continue
		}
		if p := planVec(l, nat, in, chunk); p != nil {
			plans = append(plans, p)
		}
	}
	// Of nested candidates, the innermost.
	out := map[*ssa.BasicBlock]*vecPlan{}
	for _, p := range plans {
		ok := true
		for _, q := range plans {
			if q != p && p.l.body[q.l.header] {
				ok = false
			}
		}
		if ok {
			out[p.pre] = p
		}
	}
	return out
}

func planVec(l *loop, nat []*natLoop, in func(*ssa.BasicBlock) bool, chunk bool) *vecPlan {
	if l.bottom && !chunk {
		return nil
	}
	h := l.header
	p := &vecPlan{l: l, chunk: chunk, inner: map[*ssa.BasicBlock]*natLoop{}, vary: map[ssa.Value]bool{l.iv: true},
		consec: map[ssa.Value]bool{l.iv: true}, stored: map[ssa.Value]ssa.Value{}}
	if !chunk {
		for _, b := range h.Preds {
			if !l.body[b] {
				p.pre = b
			}
		}
		if p.pre == nil || !in(p.pre) {
			return nil
		}
		if _, ok := p.pre.Instrs[len(p.pre.Instrs)-1].(*ssa.Jump); !ok {
			return nil
		}
	}
	for _, ins := range h.Instrs {
		if ph, ok := ins.(*ssa.Phi); ok && ph != l.iv {
			return nil
		}
	}
	for _, nl := range nat {
		if nl.header != h && l.body[nl.header] {
			p.loops = append(p.loops, &natLoop{header: nl.header, body: nl.body})
		}
	}
	if len(p.loops) == 0 {
		return nil
	}
	for _, a := range p.loops {
		for _, b := range p.loops {
			if a != b && b.body[a.header] && (a.parent == nil || len(b.body) < len(a.parent.body)) {
				a.parent = b
			}
		}
	}
	test := h // the block holding the loop's test, its only exit
	if l.bottom {
		for _, b := range h.Preds {
			if l.body[b] {
				test = b
			}
		}
	}
	blocks := blocksOf(l.body)
	for _, b := range blocks {
		if !in(b) {
			return nil
		}
		for _, s := range b.Succs {
			if !l.body[s] && b != test {
				return nil
			}
		}
		for _, nl := range p.loops {
			if nl.body[b] && (p.inner[b] == nil || len(nl.body) < len(p.inner[b].body)) {
				p.inner[b] = nl
			}
		}
	}
	for _, b := range blocks {
		for _, ins := range b.Instrs {
			if !p.allowed(ins) {
				return nil
			}
		}
	}
	// Exits and live-outs of the inner loops; a value leaving an inner
	// loop is varying (each lane leaves at its own time).
	for _, nl := range p.loops {
		for _, b := range blocksOf(nl.body) {
			for _, s := range b.Succs {
				if !nl.body[s] {
					nl.exits = append(nl.exits, [2]*ssa.BasicBlock{b, s})
				}
			}
			for _, ins := range b.Instrs {
				v, ok := ins.(ssa.Value)
				if !ok || v.Referrers() == nil {
					continue
				}
				for _, r := range *v.Referrers() {
					if !nl.body[r.Block()] {
						nl.liveOut = append(nl.liveOut, v)
						p.vary[v] = true
						break
					}
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range blocks {
			for _, ins := range b.Instrs {
				if v, ok := ins.(ssa.Value); ok && !p.vary[v] && p.varying(v) {
					p.vary[v], changed = true, true
				}
			}
		}
	}
	for _, b := range blocks {
		for _, ins := range b.Instrs {
			if v, ok := ins.(ssa.Value); ok {
				p.isConsec(v)
			}
		}
	}
	// Worth it only where LLVM cannot vectorize the inner loops itself:
	// a float carried across their iterations (a sequential sum), or
	// lanes leaving at different iterations.
	worth := false
	for _, nl := range p.loops {
		nl.uniform = len(nl.exits) == 1
		for b := range nl.body {
			if br, ok := lastIf(b); ok && p.vary[br.Cond] {
				nl.uniform = false
			}
		}
		if !nl.uniform {
			worth = true
		}
		for _, ins := range nl.header.Instrs {
			if ph, ok := ins.(*ssa.Phi); ok && isFloat(ph.Type()) && p.vary[ph] {
				worth = true
			}
		}
	}
	if !worth {
		return nil
	}
	// Memory: stores lane-consecutive, outside inner loops, and a slice
	// both read and written only at the store's index.
	seen := map[ssa.Value]bool{}
	for _, b := range blocks {
		for _, ins := range b.Instrs {
			ia, ok := ins.(*ssa.IndexAddr)
			if !ok {
				continue
			}
			if !seen[ia.X] {
				seen[ia.X] = true
				p.slices = append(p.slices, ia.X)
			}
			for _, r := range *ia.Referrers() {
				if st, ok := r.(*ssa.Store); ok {
					if p.inner[b] != nil || !p.consec[ia.Index] {
						return nil
					}
					if old, ok := p.stored[ia.X]; ok && old != ia.Index {
						return nil
					}
					p.stored[ia.X] = ia.Index
					_ = st
				}
			}
		}
	}
	for _, b := range blocks {
		for _, ins := range b.Instrs {
			if ia, ok := ins.(*ssa.IndexAddr); ok {
				if idx, ok := p.stored[ia.X]; ok && idx != ia.Index {
					return nil
				}
			}
		}
	}
	return p
}

// blocksOf lists a set of blocks in index order.
func blocksOf(set map[*ssa.BasicBlock]bool) []*ssa.BasicBlock {
	var bs []*ssa.BasicBlock
	for b := range set {
		bs = append(bs, b)
	}
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].Index < bs[j-1].Index; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	return bs
}

func numeric(t types.Type) bool {
	b, ok := basic(t)
	return ok && scalarBasic(b) && b.Kind() != types.Bool
}

func scalarOrBool(t types.Type) bool {
	b, ok := basic(t)
	return ok && scalarBasic(b)
}

// allowed reports whether ins can run in a vectorized loop.
func (p *vecPlan) allowed(ins ssa.Instruction) bool {
	switch in := ins.(type) {
	case *ssa.Jump, *ssa.If, *ssa.DebugRef:
		return true
	case *ssa.Phi:
		return scalarOrBool(in.Type())
	case *ssa.BinOp:
		if !scalarOrBool(in.X.Type()) {
			return false
		}
		switch in.Op {
		case token.QUO:
			return isFloat(in.X.Type())
		case token.REM, token.SHL, token.SHR:
			return false
		}
		return true
	case *ssa.UnOp:
		if in.Op == token.MUL {
			ia, ok := in.X.(*ssa.IndexAddr)
			return ok && p.l.body[ia.Block()]
		}
		return scalarOrBool(in.X.Type())
	case *ssa.Convert:
		f, t := in.X.Type(), in.Type()
		switch {
		case !numeric(f) || !numeric(t):
			return false
		case isInteger(f) && isInteger(t), isFloat(f) && isFloat(t):
			return true
		case isInteger(f) && isFloat(t):
			return !isUnsigned(f)
		}
		return false
	case *ssa.ChangeType:
		return scalarOrBool(in.Type())
	case *ssa.IndexAddr:
		if _, ok := in.X.Type().Underlying().(*types.Slice); !ok || !invariant(in.X, p.l.body) || !numeric(memElem(in)) {
			return false
		}
		for _, r := range *in.Referrers() {
			switch r := r.(type) {
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
			case *ssa.Store:
				if r.Addr != in || r.Val == in {
					return false
				}
			default:
				return false
			}
		}
		return true
	case *ssa.Store:
		_, ok := in.Addr.(*ssa.IndexAddr)
		return ok
	case *ssa.Call:
		com := in.Common()
		if com.IsInvoke() || !scalarOrBool(in.Type()) {
			return false
		}
		switch f := com.Value.(type) {
		case *ssa.Builtin:
			switch f.Name() {
			case "len", "cap":
				return invariant(com.Args[0], p.l.body)
			case "min", "max":
				return numeric(in.Type())
			}
		case *ssa.Function:
			_, ok := exactMath[f.Name()]
			return ok && f.Pkg != nil && f.Pkg.Pkg.Path() == "math"
		}
	}
	return false
}

// inside reports whether v is defined in the vectorized loop.
func (p *vecPlan) inside(v ssa.Value) bool {
	ins, ok := v.(ssa.Instruction)
	return ok && ins.Block() != nil && p.l.body[ins.Block()]
}

func (p *vecPlan) loopOf(h *ssa.BasicBlock) *natLoop {
	for _, nl := range p.loops {
		if nl.header == h {
			return nl
		}
	}
	return nil
}

// varying reports whether v differs between lanes, given what is known so
// far.
func (p *vecPlan) varying(v ssa.Value) bool {
	if ph, ok := v.(*ssa.Phi); ok {
		for _, e := range ph.Edges {
			if p.vary[e] {
				return true
			}
		}
		if nl := p.loopOf(ph.Block()); nl != nil {
			// A loop header: uniform while the lanes iterate together,
			// unless several latches bring different values.
			var back ssa.Value
			for i, e := range ph.Edges {
				if nl.body[ph.Block().Preds[i]] {
					if back != nil && back != e {
						return true
					}
					back = e
				}
			}
			return false
		}
		for _, e := range ph.Edges {
			if e != ph.Edges[0] {
				return true
			}
		}
		return false
	}
	ins, ok := v.(ssa.Instruction)
	if !ok {
		return false
	}
	for _, op := range ins.Operands(nil) {
		if *op != nil && p.vary[*op] {
			return true
		}
	}
	return false
}

func (p *vecPlan) isConsec(v ssa.Value) bool {
	if c, ok := p.consec[v]; ok {
		return c
	}
	c := false
	if b, ok := v.(*ssa.BinOp); ok && isInt(b.Type()) && p.vary[v] {
		switch b.Op {
		case token.ADD:
			c = p.isConsec(b.X) && !p.vary[b.Y] || p.isConsec(b.Y) && !p.vary[b.X]
		case token.SUB:
			c = p.isConsec(b.X) && !p.vary[b.Y]
		}
	}
	p.consec[v] = c
	return c
}
