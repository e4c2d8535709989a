package source

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Bounds checks in loops. A check inside a loop is a branch to an exit,
// and LLVM's loop vectorizer gives up on loops with more than one exit. So
// for an index of the form iv+d, where iv is a loop's induction variable
// (start init, step 1, condition iv+c < n with n loop-invariant) and d and
// the slice are loop-invariant, the lowering ORs into the check a
// loop-invariant condition that proves it for every iteration:
//
//	init+d >= 0 && n-c+d <= len(s)     (computed in i128: no overflow)
//
// LLVM hoists that condition out of the loop and unswitches on it, leaving
// a copy of the loop without the branch, which vectorizes; when the
// condition is false the original checks run and report the first bad
// index exactly as Go would.

// A loop is a natural loop with a recognised counting induction variable.
type loop struct {
	header *ssa.BasicBlock
	body   map[*ssa.BasicBlock]bool // including header
	iv     *ssa.Phi
	init   ssa.Value // iv's value on entry
	c      int64     // the condition is iv+c < n
	bottom bool      // tested last, in the latch: the body also runs for the iv that fails the test
	n      ssa.Value
}

type loopInfo struct {
	loops []*loop
}

// analyzeLoops finds the counting loops of f among its natural loops.
func analyzeLoops(f *ssa.Function) *loopInfo {
	li := &loopInfo{}
	for _, nl := range naturalLoops(f) {
		if l := countingLoop(nl.header, nl.body); l != nil {
			li.loops = append(li.loops, l)
		}
	}
	return li
}

// invariant reports whether v is defined outside the loop body.
func invariant(v ssa.Value, body map[*ssa.BasicBlock]bool) bool {
	switch v := v.(type) {
	case *ssa.Const, *ssa.Parameter:
		return true
	case ssa.Instruction:
		return !body[v.Block()]
	}
	return false
}

func isInt(t types.Type) bool {
	b, ok := basic(t)
	return ok && (b.Kind() == types.Int || b.Kind() == types.Int64)
}

func countingLoop(h *ssa.BasicBlock, body map[*ssa.BasicBlock]bool) *loop {
	// The test is either first, in the header (for loops and range over a
	// slice), or last, in the only latch, which branches back to the
	// header (go/ssa's rotated range over an integer).
	var latches []*ssa.BasicBlock
	for _, p := range h.Preds {
		if body[p] {
			latches = append(latches, p)
		}
	}
	l := &loop{header: h, body: body}
	test := h
	if h.Succs[0] == h && len(latches) == 1 {
		l.bottom = true // a one-block loop: the test follows the body
	} else if br, ok := lastIf(h); !ok || !body[h.Succs[0]] || body[h.Succs[1]] || br == nil {
		if len(latches) != 1 {
			return nil
		}
		test = latches[0]
		if _, ok := lastIf(test); !ok || test.Succs[0] != h || body[test.Succs[1]] {
			return nil
		}
		l.bottom = true
	}
	br, _ := lastIf(test)
	cmp, ok := br.Cond.(*ssa.BinOp)
	if !ok || cmp.Op != token.LSS || !isInt(cmp.X.Type()) || !invariant(cmp.Y, body) && !lenOfInvariant(cmp.Y, body) {
		return nil
	}
	l.n = cmp.Y
	var iv *ssa.Phi
	switch x := cmp.X.(type) {
	case *ssa.Phi:
		iv = x
	case *ssa.BinOp:
		p, ok := x.X.(*ssa.Phi)
		k, ok2 := x.Y.(*ssa.Const)
		if !ok || !ok2 || x.Op != token.ADD || k.Int64() < 0 {
			return nil
		}
		iv, l.c = p, k.Int64()
	default:
		return nil
	}
	if iv.Block() != h {
		return nil
	}
	for i, e := range iv.Edges {
		pred := h.Preds[i]
		if !body[pred] {
			if l.init != nil && l.init != e {
				return nil
			}
			l.init = e
			continue
		}
		step, ok := e.(*ssa.BinOp)
		if !ok || step.Op != token.ADD || step.X != iv {
			return nil
		}
		if k, ok := step.Y.(*ssa.Const); !ok || k.Int64() != 1 {
			return nil
		}
	}
	if l.init == nil {
		return nil
	}
	// With a single way in, the entering block dominates the loop, so init
	// is available everywhere in it.
	if len(h.Preds)-len(latches) != 1 {
		return nil
	}
	l.iv = iv
	return l
}

// lenOfInvariant reports whether v is len or cap of a loop-invariant
// slice (computed in the loop, as in for i := 0; i < len(x); i++, but with
// the same value in every iteration).
func lenOfInvariant(v ssa.Value, body map[*ssa.BasicBlock]bool) bool {
	c, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	b, ok := c.Call.Value.(*ssa.Builtin)
	if !ok || b.Name() != "len" && b.Name() != "cap" {
		return false
	}
	_, isSlice := c.Call.Args[0].Type().Underlying().(*types.Slice)
	return isSlice && invariant(c.Call.Args[0], body)
}

func lastIf(b *ssa.BasicBlock) (*ssa.If, bool) {
	if len(b.Instrs) == 0 {
		return nil, false
	}
	br, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	return br, ok
}

// innermost returns the innermost counting loop with iv+d = idx, and d.
func (li *loopInfo) match(b *ssa.BasicBlock, idx ssa.Value) (*loop, ssa.Value, int64) {
	var best *loop
	var bd ssa.Value
	var bk int64
	for _, l := range li.loops {
		if !l.body[b] || b == l.header && !l.bottom {
			continue
		}
		d, k, ok := offsetFrom(l, idx)
		if !ok {
			continue
		}
		if best == nil || len(l.body) < len(best.body) {
			best, bd, bk = l, d, k
		}
	}
	return best, bd, bk
}

// offsetFrom decomposes idx as l.iv + d + k, d loop-invariant (or nil), k
// a constant.
func offsetFrom(l *loop, idx ssa.Value) (ssa.Value, int64, bool) {
	if idx == l.iv {
		return nil, 0, true
	}
	b, ok := idx.(*ssa.BinOp)
	if !ok || !isInt(b.Type()) {
		return nil, 0, false
	}
	switch b.Op {
	case token.ADD:
		x, y := b.X, b.Y
		if y == l.iv {
			x, y = y, x
		}
		if k, ok := y.(*ssa.Const); ok {
			if d, k2, ok := offsetFrom(l, x); ok {
				return d, k2 + k.Int64(), true
			}
			return nil, 0, false
		}
		if x == l.iv && invariant(y, l.body) {
			return y, 0, true
		}
	case token.SUB:
		if k, ok := b.Y.(*ssa.Const); ok {
			if d, k2, ok := offsetFrom(l, b.X); ok {
				return d, k2 - k.Int64(), true
			}
		}
	}
	return nil, 0, false
}

// hoistedCheck returns an i1 operand that, when true, proves the index of
// in within bounds for every iteration of its loop, or "" if there is no
// such condition.
func (fl *funcLower) hoistedCheck(in *ssa.IndexAddr) string {
	if fl.loops == nil {
		return ""
	}
	l, d, k := fl.loops.match(in.Block(), in.Index)
	if l == nil || !invariant(in.X, l.body) {
		return ""
	}
	_, n, _, _ := fl.seqBase(in.X)
	wide := func(v ssa.Value) string { return fl.def("sext i64 %s to i128", fl.val(v)) }
	dd := "0"
	if d != nil {
		dd = wide(d)
	}
	init := wide(l.init)
	lo := fl.def("add i128 %s, %s", init, dd)
	lo = fl.def("add i128 %s, %d", lo, k)
	okLo := fl.def("icmp sge i128 %s, 0", lo)
	hi := fl.def("add i128 %s, %s", wide(l.n), dd)
	hi = fl.def("add i128 %s, %d", hi, k-l.c)
	wn := fl.def("zext i64 %s to i128", n)
	if !l.bottom {
		// The body runs for iv+c < n: the largest index is n-c-1+d+k.
		okHi := fl.def("icmp sle i128 %s, %s", hi, wn)
		return fl.def("and i1 %s, %s", okLo, okHi)
	}
	// The body runs for init, and for iv once iv-1+c < n: the largest
	// index is max(init, n-c)+d+k.
	okHi := fl.def("icmp slt i128 %s, %s", hi, wn)
	okInit := fl.def("icmp slt i128 %s, %s", lo, wn)
	ok := fl.def("and i1 %s, %s", okLo, okHi)
	return fl.def("and i1 %s, %s", ok, okInit)
}
