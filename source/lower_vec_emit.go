package source

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Emission of a vectorized loop (see lower_vec.go).

// vecAbort stops the emission of a vector loop; the scalar loop alone runs.
type vecAbort struct{}

type vecEmit struct {
	fl     *funcLower
	p      *vecPlan
	id     string
	ph     map[string]func() string // placeholders, filled at the end
	stores []string                 // the group's stores, emitted at its end
	wrote  map[ssa.Value]bool       // slices stored to
	bail   bool                     // the bail block is used
	safe   string                   // a scalar slot loads of inactive lanes read
	anyOf  map[string]string        // any(mask), by mask
}

// A vregion is a loop body being linearized: blocks run under masks.
type vregion struct {
	set   map[*ssa.BasicBlock]bool
	h     *ssa.BasicBlock
	nl    *natLoop // nil: the vectorized loop itself
	entry string   // the header's mask
	edges map[[2]*ssa.BasicBlock]string
	back  []vedge
	exits []vedge
}

type vedge struct {
	from, to *ssa.BasicBlock
	mask     string
}

func (r *vregion) record(from, to *ssa.BasicBlock, m string) {
	switch {
	case to == r.h:
		r.back = append(r.back, vedge{from, to, m})
	case r.set[to]:
		r.edges[[2]*ssa.BasicBlock{from, to}] = m
	default:
		r.exits = append(r.exits, vedge{from, to, m})
	}
}

// emitVec emits the vector loop of p in place of the jump from p.pre to the
// loop, reporting false (nothing emitted) if it cannot.
func (fl *funcLower) emitVec(p *vecPlan) (ok bool) {
	saved := map[ssa.Value]string{}
	for b := range p.l.body {
		for _, ins := range b.Instrs {
			if v, ok := ins.(ssa.Value); ok {
				if n, ok := fl.names[v]; ok {
					saved[v] = n
				}
			}
		}
	}
	cur, label := fl.cur, fl.label
	var buf strings.Builder
	fl.cur = &buf
	e := &vecEmit{fl: fl, p: p, id: fl.newLabel(""), ph: map[string]func() string{}, anyOf: map[string]string{}, wrote: map[ssa.Value]bool{}}
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(vecAbort); !is {
				panic(r)
			}
			ok = false
		}
		for b := range p.l.body {
			for _, ins := range b.Instrs {
				if v, is := ins.(ssa.Value); is {
					delete(fl.names, v)
				}
			}
		}
		for v, n := range saved {
			fl.names[v] = n
		}
		fl.cur = cur
		if !ok {
			fl.label = label
			p.js = ""
			return
		}
		text := buf.String()
		for k, f := range e.ph {
			text = strings.Replace(text, k, f(), 1)
		}
		fl.cur.WriteString(text)
	}()
	e.run()
	return true
}

func (e *vecEmit) abort() { panic(vecAbort{}) }

func (e *vecEmit) lab(s string) string { return s + e.id + "." + fmt.Sprint(e.fl.newLabel("")) }

// placeholder writes a marker that f's text replaces at the end.
func (e *vecEmit) placeholder(f func() string) {
	k := fmt.Sprintf(";@@ph%d@@\n", len(e.ph))
	e.ph[k] = f
	e.fl.cur.WriteString(k)
}

func vt(ty string) string { return fmt.Sprintf("<%d x %s>", vecW, ty) }

func vtype(t types.Type) string { return vt(llType(t)) }

var onesMask = func() string {
	s := make([]string, vecW)
	for i := range s {
		s[i] = "i1 true"
	}
	return "<" + strings.Join(s, ", ") + ">"
}()

var laneSteps = func() string {
	s := make([]string, vecW)
	for i := range s {
		s[i] = fmt.Sprintf("i64 %d", i)
	}
	return "<" + strings.Join(s, ", ") + ">"
}()

func (e *vecEmit) splat(ty, s string) string {
	fl := e.fl
	a := fl.def("insertelement %s poison, %s %s, i64 0", vt(ty), ty, s)
	return fl.def("shufflevector %s %s, %s poison, <%d x i32> zeroinitializer", vt(ty), a, vt(ty), vecW)
}

// vec returns v as a vector.
func (e *vecEmit) vec(v ssa.Value) string {
	if e.p.vary[v] {
		return e.fl.val(v)
	}
	return e.splat(llType(v.Type()), e.fl.val(v))
}

func (e *vecEmit) and(a, b string) string {
	if a == onesMask {
		return b
	}
	if b == onesMask {
		return a
	}
	return e.fl.def("and %s %s, %s", vt("i1"), a, b)
}

func (e *vecEmit) or(a, b string) string {
	if a == "" || a == "zeroinitializer" {
		return b
	}
	if b == "" || b == "zeroinitializer" {
		return a
	}
	return e.fl.def("or %s %s, %s", vt("i1"), a, b)
}

func (e *vecEmit) not(a string) string { return e.fl.def("xor %s %s, %s", vt("i1"), a, onesMask) }

func (e *vecEmit) any(m string) string {
	if m == onesMask {
		return "true"
	}
	if a, ok := e.anyOf[m]; ok {
		return a
	}
	f := fmt.Sprintf("llvm.vector.reduce.or.v%di1", vecW)
	e.fl.m.declare(f, fmt.Sprintf("declare i1 @%s(%s)", f, vt("i1")))
	a := e.fl.def("call i1 @%s(%s %s)", f, vt("i1"), m)
	e.anyOf[m] = a
	return a
}

// bailIf sends the group to the scalar loop when bad (an i1) holds.
func (e *vecEmit) bailIf(bad string) {
	e.bail = true
	ok := e.lab("vok")
	e.fl.emit("br i1 %s, label %%vbail%s, label %%%s", bad, e.id, ok)
	e.fl.startBlock(ok)
	e.anyOf = map[string]string{}
}

func (e *vecEmit) run() {
	fl, p, l := e.fl, e.p, e.p.l
	id := e.id
	fl.emit("br label %%vg%s", id)
	fl.startBlock("vg" + id)
	e.safe = fmt.Sprintf("%%vsafe%s", id)
	// Written slices must not overlap the others.
	guard := "true"
	rng := map[ssa.Value][2]string{}
	bounds := func(s ssa.Value) [2]string {
		if r, ok := rng[s]; ok {
			return r
		}
		ptr, n, _, elem := fl.seqBase(s)
		lo := fl.def("ptrtoint ptr %s to i64", ptr)
		sz := fl.def("mul i64 %s, %d", n, sizeOf(elem))
		r := [2]string{lo, fl.def("add i64 %s, %s", lo, sz)}
		rng[s] = r
		return r
	}
	for _, s := range p.slices {
		if _, ok := p.stored[s]; !ok {
			continue
		}
		for _, a := range p.slices {
			if a == s {
				continue
			}
			rs, ra := bounds(s), bounds(a)
			d1 := fl.def("icmp ule i64 %s, %s", rs[1], ra[0])
			d2 := fl.def("icmp ule i64 %s, %s", ra[1], rs[0])
			d := fl.def("or i1 %s, %s", d1, d2)
			guard = fl.def("and i1 %s, %s", guard, d)
		}
	}
	init, n := "%start", "%end"
	if !p.chunk {
		init = fl.val(l.init)
	}
	if p.chunk {
	} else if c, ok := l.n.(*ssa.Call); ok && p.inside(c) {
		_, ln, lc, _ := fl.seqBase(c.Call.Args[0]) // len or cap in the header
		n = ln
		if c.Call.Value.(*ssa.Builtin).Name() == "cap" {
			n = lc
		}
	} else {
		n = fl.val(l.n)
	}
	fl.emit("br i1 %s, label %%vh%s, label %%vx%s", guard, id, id)
	fl.startBlock("vh" + id)
	j0 := "%vj" + id
	latch := ""
	e.placeholder(func() string {
		return fmt.Sprintf("  %s = phi i64 [ %s, %%vg%s ], [ %%vjn%s, %%%s ]\n", j0, init, id, id, latch)
	})
	last := fl.def("sext i64 %s to i128", j0)
	span := vecW - 1 + l.c
	if l.bottom {
		// The test comes last, and the scalar loop runs its first
		// iteration untested: leave it one.
		span = vecW + l.c - 1
	}
	last = fl.def("add i128 %s, %d", last, span)
	nn := fl.def("sext i64 %s to i128", n)
	t := fl.def("icmp slt i128 %s, %s", last, nn)
	fl.emit("br i1 %s, label %%vb%s, label %%vx%s", t, id, id)
	fl.startBlock("vb" + id)
	fl.names[l.iv] = fl.def("add %s %s, %s", vt("i64"), e.splat("i64", j0), laneSteps)
	r := &vregion{set: l.body, h: l.header, entry: onesMask, edges: map[[2]*ssa.BasicBlock]string{}}
	e.linearize(r)
	for _, st := range e.stores {
		fl.emit("%s", st)
	}
	fl.emit("%%vjn%s = add i64 %s, %d", id, j0, vecW)
	latch = fl.label
	fl.emit("br label %%vh%s", id)
	inc := fmt.Sprintf("[ %s, %%vg%s ], [ %s, %%vh%s ]", init, id, j0, id)
	if e.bail {
		fl.startBlock("vbail" + id)
		fl.emit("br label %%vx%s", id)
		inc += fmt.Sprintf(", [ %s, %%vbail%s ]", j0, id)
	}
	fl.startBlock("vx" + id)
	p.js = "%vjs" + id
	fl.emit("%s = phi i64 %s", p.js, inc)
	p.xlabel = "vx" + id
	fmt.Fprintf(&fl.allocs, "  %s = alloca i64, align 8\n  store i64 0, ptr %s\n", e.safe, e.safe)
	if !p.chunk {
		fl.emit("br label %%b%d", l.header.Index)
	}
}

func sizeOf(t types.Type) int { return bitsOf(t) / 8 }

// nodes returns r's blocks and child loops in topological order, each
// child loop as its header.
func (e *vecEmit) nodes(r *vregion) []*ssa.BasicBlock {
	node := func(b *ssa.BasicBlock) *ssa.BasicBlock {
		nl := e.p.inner[b]
		if nl == r.nl {
			return b
		}
		for nl.parent != r.nl {
			nl = nl.parent
		}
		return nl.header
	}
	succs := func(b *ssa.BasicBlock) []*ssa.BasicBlock {
		if nl := e.p.loopOf(b); nl != nil && nl != r.nl {
			var s []*ssa.BasicBlock
			for _, x := range nl.exits {
				s = append(s, x[1])
			}
			return s
		}
		return b.Succs
	}
	seen := map[*ssa.BasicBlock]bool{}
	var post []*ssa.BasicBlock
	var dfs func(b *ssa.BasicBlock)
	dfs = func(b *ssa.BasicBlock) {
		seen[b] = true
		for _, s := range succs(b) {
			if s == r.h || !r.set[s] {
				continue
			}
			if s = node(s); !seen[s] {
				dfs(s)
			}
		}
		post = append(post, b)
	}
	dfs(r.h)
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// linearize emits r's blocks under masks.
func (e *vecEmit) linearize(r *vregion) {
	for _, b := range e.nodes(r) {
		if nl := e.p.loopOf(b); nl != nil && nl != r.nl {
			if nl.uniform {
				e.uniformLoop(nl, r)
			} else {
				e.maskedLoop(nl, r)
			}
			continue
		}
		e.block(b, r)
	}
}

// inMask is the OR of the recorded masks of the edges into b from outside
// skip.
func (e *vecEmit) inMask(b *ssa.BasicBlock, r *vregion, skip map[*ssa.BasicBlock]bool) string {
	m := ""
	for _, p := range b.Preds {
		if skip[p] {
			continue
		}
		if pm, ok := r.edges[[2]*ssa.BasicBlock{p, b}]; ok {
			m = e.or(m, pm)
		}
	}
	if m == "" {
		return "zeroinitializer"
	}
	return m
}

func (e *vecEmit) block(b *ssa.BasicBlock, r *vregion) {
	fl := e.fl
	mask := r.entry
	if b != r.h {
		mask = e.inMask(b, r, nil)
		for _, ins := range b.Instrs {
			ph, ok := ins.(*ssa.Phi)
			if !ok {
				break
			}
			res := ""
			for i, v := range ph.Edges {
				pm, ok := r.edges[[2]*ssa.BasicBlock{b.Preds[i], b}]
				if !ok {
					continue
				}
				switch {
				case res == "":
					res = fl.val(v)
					if e.p.vary[ph] {
						res = e.vec(v)
					}
				case !e.p.vary[ph]:
				default:
					res = fl.def("select %s %s, %s %s, %s %s", vt("i1"), pm, vtype(ph.Type()), e.vec(v), vtype(ph.Type()), res)
				}
			}
			if res == "" {
				res = "poison"
			}
			fl.names[ph] = res
		}
	}
	for _, ins := range b.Instrs {
		if _, ok := ins.(*ssa.Phi); !ok {
			e.instr(ins, mask)
		}
	}
	switch t := b.Instrs[len(b.Instrs)-1].(type) {
	case *ssa.Jump:
		r.record(b, b.Succs[0], mask)
	case *ssa.If:
		var m0, m1 string
		if e.p.vary[t.Cond] {
			c := fl.val(t.Cond)
			m0 = e.and(mask, c)
			m1 = e.and(mask, e.not(c))
		} else {
			c := fl.val(t.Cond)
			m0 = fl.def("select i1 %s, %s %s, %s zeroinitializer", c, vt("i1"), mask, vt("i1"))
			m1 = fl.def("select i1 %s, %s zeroinitializer, %s %s", c, vt("i1"), vt("i1"), mask)
		}
		r.record(b, b.Succs[0], m0)
		r.record(b, b.Succs[1], m1)
	}
}

// maskedLoop emits inner loop nl, run while any lane is in it.
func (e *vecEmit) maskedLoop(nl *natLoop, r *vregion) {
	fl := e.fl
	h := nl.header
	outside := map[*ssa.BasicBlock]bool{}
	for _, p := range h.Preds {
		if nl.body[p] {
			outside[p] = true // skip the latches
		}
	}
	mE := e.inMask(h, r, outside)
	// Values entering through the header's phis.
	type hphi struct {
		ph        *ssa.Phi
		name, in  string
		back      string
		ty        string
		isVarying bool
	}
	var phis []*hphi
	for _, ins := range h.Instrs {
		ph, ok := ins.(*ssa.Phi)
		if !ok {
			break
		}
		x := &hphi{ph: ph, name: fl.tmp(), isVarying: e.p.vary[ph], ty: llType(ph.Type())}
		if x.isVarying {
			x.ty = vt(x.ty)
		}
		for i, v := range ph.Edges {
			if !nl.body[h.Preds[i]] {
				if x.isVarying {
					x.in = e.vec(v)
				} else {
					x.in = fl.val(v)
				}
			}
		}
		phis = append(phis, x)
	}
	pre := fl.label
	hdr, exitL := e.lab("vlh"), e.lab("vlx")
	fl.emit("br label %%%s", hdr)
	fl.startBlock(hdr)
	m := fl.tmp()
	caps := map[ssa.Value]string{}
	capNext := map[ssa.Value]string{}
	accs := map[[2]*ssa.BasicBlock]string{}
	accNext := map[[2]*ssa.BasicBlock]string{}
	latch, mb := "", ""
	e.placeholder(func() string {
		var s strings.Builder
		fmt.Fprintf(&s, "  %s = phi %s [ %s, %%%s ], [ %s, %%%s ]\n", m, vt("i1"), mE, pre, mb, latch)
		for _, x := range phis {
			fmt.Fprintf(&s, "  %s = phi %s [ %s, %%%s ], [ %s, %%%s ]\n", x.name, x.ty, x.in, pre, x.back, latch)
		}
		for _, v := range nl.liveOut {
			fmt.Fprintf(&s, "  %s = phi %s [ poison, %%%s ], [ %s, %%%s ]\n", caps[v], vtype(v.Type()), pre, capNext[v], latch)
		}
		for _, x := range nl.exits {
			fmt.Fprintf(&s, "  %s = phi %s [ zeroinitializer, %%%s ], [ %s, %%%s ]\n", accs[x], vt("i1"), pre, accNext[x], latch)
		}
		return s.String()
	})
	for _, v := range nl.liveOut {
		caps[v] = fl.tmp()
	}
	for _, x := range nl.exits {
		accs[x] = fl.tmp()
	}
	for _, x := range phis {
		fl.names[x.ph] = x.name
	}
	sub := &vregion{set: nl.body, h: h, nl: nl, entry: m, edges: map[[2]*ssa.BasicBlock]string{}}
	e.linearize(sub)
	for _, b := range sub.back {
		mb = e.or(mb, b.mask)
	}
	if mb == "" {
		mb = "zeroinitializer"
	}
	for _, x := range phis {
		res := ""
		for _, b := range sub.back {
			v := x.ph.Edges[predIndex(h, b.from)]
			switch {
			case res == "" && x.isVarying:
				res = e.vec(v)
			case res == "":
				res = fl.val(v)
			case x.isVarying:
				res = fl.def("select %s %s, %s %s, %s %s", vt("i1"), b.mask, x.ty, e.vec(v), x.ty, res)
			}
		}
		if res == "" {
			res = "poison"
		}
		x.back = res
	}
	anyExit := ""
	for _, x := range nl.exits {
		em := ""
		for _, s := range sub.exits {
			if s.from == x[0] && s.to == x[1] {
				em = e.or(em, s.mask)
			}
		}
		if em == "" {
			em = "zeroinitializer"
		}
		accNext[x] = fl.def("or %s %s, %s", vt("i1"), accs[x], em)
		anyExit = e.or(anyExit, em)
	}
	if anyExit == "" {
		anyExit = "zeroinitializer"
	}
	for _, v := range nl.liveOut {
		capNext[v] = fl.def("select %s %s, %s %s, %s %s", vt("i1"), anyExit, vtype(v.Type()), e.vec(v), vtype(v.Type()), caps[v])
	}
	cont := e.any(mb)
	latch = fl.label
	fl.emit("br i1 %s, label %%%s, label %%%s", cont, hdr, exitL)
	fl.startBlock(exitL)
	e.anyOf = map[string]string{}
	for _, v := range nl.liveOut {
		fl.names[v] = capNext[v]
	}
	for _, x := range nl.exits {
		r.record(x[0], x[1], accNext[x])
	}
}

func predIndex(b, p *ssa.BasicBlock) int {
	for i, q := range b.Preds {
		if q == p {
			return i
		}
	}
	panic("not a predecessor")
}

// uniformLoop emits inner loop nl, whose branches are uniform, keeping its
// control flow: every lane entering it runs it the same way.
func (e *vecEmit) uniformLoop(nl *natLoop, r *vregion) {
	fl := e.fl
	h := nl.header
	skip := map[*ssa.BasicBlock]bool{}
	for p := range nl.body {
		skip[p] = true
	}
	mE := e.inMask(h, r, skip)
	labels := map[*ssa.BasicBlock]string{}
	ends := map[*ssa.BasicBlock]string{}
	var order []*ssa.BasicBlock
	for _, b := range fl.fn.DomPreorder() {
		if nl.body[b] {
			order = append(order, b)
			labels[b] = e.lab(fmt.Sprintf("vu%d.", b.Index))
		}
	}
	// Phi operands, per edge, computed in the predecessor.
	inc := map[*ssa.Phi][]string{}
	phiName := map[*ssa.Phi]string{}
	for _, b := range order {
		for _, ins := range b.Instrs {
			if ph, ok := ins.(*ssa.Phi); ok {
				phiName[ph] = fl.tmp()
				fl.names[ph] = phiName[ph]
			}
		}
	}
	edgeVals := func(from, to *ssa.BasicBlock, label string) {
		i := predIndex(to, from)
		for _, ins := range to.Instrs {
			ph, ok := ins.(*ssa.Phi)
			if !ok {
				break
			}
			v := fl.val(ph.Edges[i])
			if e.p.vary[ph] {
				v = e.vec(ph.Edges[i])
			}
			inc[ph] = append(inc[ph], fmt.Sprintf("[ %s, %%%s ]", v, label))
		}
	}
	run := e.any(mE)
	pre := fl.label
	for _, p := range h.Preds {
		if !nl.body[p] {
			edgeVals(p, h, pre)
		}
	}
	// No lane entering: skip the loop, whose uniform values may then be
	// anything (a loop over them might not end).
	skipL, joinL := e.lab("vus"), e.lab("vuj")
	fl.emit("br i1 %s, label %%%s, label %%%s", run, labels[h], skipL)
	xl := e.lab("vux")
	target := func(t *ssa.BasicBlock) string {
		if nl.body[t] {
			return labels[t]
		}
		return xl
	}
	for _, b := range order {
		fl.startBlock(labels[b])
		e.anyOf = map[string]string{}
		bb := b
		e.placeholder(func() string {
			var s strings.Builder
			for _, ins := range bb.Instrs {
				ph, ok := ins.(*ssa.Phi)
				if !ok {
					break
				}
				ty := llType(ph.Type())
				if e.p.vary[ph] {
					ty = vt(ty)
				}
				fmt.Fprintf(&s, "  %s = phi %s %s\n", phiName[ph], ty, strings.Join(inc[ph], ", "))
			}
			return s.String()
		})
		for _, ins := range b.Instrs {
			if _, ok := ins.(*ssa.Phi); !ok {
				e.instr(ins, mE)
			}
		}
		for _, s := range b.Succs {
			if nl.body[s] {
				edgeVals(b, s, fl.label)
			}
		}
		ends[b] = fl.label
		switch t := b.Instrs[len(b.Instrs)-1].(type) {
		case *ssa.Jump:
			fl.emit("br label %%%s", target(b.Succs[0]))
		case *ssa.If:
			fl.emit("br i1 %s, label %%%s, label %%%s", fl.val(t.Cond), target(b.Succs[0]), target(b.Succs[1]))
		}
	}
	fl.startBlock(xl)
	fl.emit("br label %%%s", joinL)
	fl.startBlock(skipL)
	fl.emit("br label %%%s", joinL)
	fl.startBlock(joinL)
	e.anyOf = map[string]string{}
	for _, v := range nl.liveOut {
		ty := llType(v.Type())
		if e.p.vary[v] {
			ty = vt(ty)
		}
		fl.names[v] = fl.def("phi %s [ %s, %%%s ], [ poison, %%%s ]", ty, fl.val(v), xl, skipL)
	}
	x := nl.exits[0]
	r.record(x[0], x[1], mE)
}
