package source

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// funcLower lowers one Go function.
type funcLower struct {
	m      *module
	fn     *ssa.Function
	ret    string                       // LLVM return type
	names  map[ssa.Value]string         // operand text of every lowered value
	allocs strings.Builder              // entry-block allocas
	blocks []*strings.Builder           // LLVM text of each ssa block (phis excluded)
	phis   [][]*ssa.Phi                 // phis of each block, emitted last
	end    []string                     // label of the LLVM block that ends each ssa block
	cur    *strings.Builder             // where instructions go
	label  string                       // the current LLVM block's label
	ntmp   int                          // temporaries
	loops  *loopInfo                    // induction variables, for hoisted bounds checks
	r      *region                      // what is being emitted
	vec    map[*ssa.BasicBlock]*vecPlan // loops vectorized, by preheader
}

func (fl *funcLower) tmp() string {
	fl.ntmp++
	return fmt.Sprintf("%%t%d", fl.ntmp)
}

func (fl *funcLower) newLabel(prefix string) string {
	fl.ntmp++
	return fmt.Sprintf("%s%d", prefix, fl.ntmp)
}

func (fl *funcLower) emit(format string, args ...any) {
	fl.cur.WriteString("  ")
	fmt.Fprintf(fl.cur, format, args...)
	fl.cur.WriteByte('\n')
}

// def emits "%t = <rhs>" and returns %t.
func (fl *funcLower) def(format string, args ...any) string {
	t := fl.tmp()
	fl.cur.WriteString("  " + t + " = ")
	fmt.Fprintf(fl.cur, format, args...)
	fl.cur.WriteByte('\n')
	return t
}

// startBlock begins a new LLVM block inside the current ssa block.
func (fl *funcLower) startBlock(label string) {
	fl.cur.WriteString(label + ":\n")
	fl.label = label
}

func (fl *funcLower) fail(pos token.Pos, format string, args ...any) {
	if !pos.IsValid() {
		pos = fl.fn.Pos()
	}
	if fl.fn.Pkg != nil && fl.fn.Pkg.Pkg.Path() == "math" {
		ms := fl.m.mathSrc()
		// Inside Go's math source: name the place there.
		format = "math.%s (%s): " + format
		args = append([]any{fl.fn.Name(), ms.fset.Position(pos)}, args...)
		pos = fl.m.u.fn.Pos()
	}
	fl.m.fail(pos, format, args...)
}

// retType is the LLVM type a Go function returns: void, the one result,
// or a struct of the results.
func retType(sig *types.Signature) string {
	switch sig.Results().Len() {
	case 0:
		return "void"
	case 1:
		return llType(sig.Results().At(0).Type())
	}
	return llType(sig.Results())
}

func (fl *funcLower) retPoison() string {
	if fl.ret == "void" {
		return "ret void"
	}
	return "ret " + fl.ret + " poison"
}

// A region is the part of a Go function one LLVM function holds: all of
// it, or (for a function with parallel loops, see parallel.go) one segment
// between parallel loops, or one parallel loop's body as a chunk.
type region struct {
	name   string                       // LLVM function name
	ret    string                       // LLVM return type
	params []string                     // LLVM parameters
	pre    string                       // entry block code
	set    map[*ssa.BasicBlock]bool     // the blocks (nil: all)
	start  *ssa.BasicBlock              // the first block (nil: the function's)
	yields map[*ssa.BasicBlock]*parLoop // parallel loop headers: yield to Go there
	seg    *parLoop                     // the loop whose exit starts this segment
	chunk  *parLoop                     // the loop this chunk runs
	spill  bool                         // store spilled values where defined
}

func (fl *funcLower) lower() {
	f := fl.fn
	m := fl.m
	if len(f.Blocks) == 0 {
		fl.fail(f.Pos(), "function %s has no body: not supported in compiled functions", f.Name())
	}
	if len(f.FreeVars) > 0 || f.Parent() != nil {
		fl.fail(f.Pos(), "closure %s: not supported in compiled functions", f.Name())
	}
	if f.Recover != nil {
		fl.fail(f.Pos(), "recover: not supported in compiled functions")
	}
	fl.loops = analyzeLoops(f)
	params := []string{"ptr %st"}
	for i, p := range f.Params {
		ty := llType(p.Type())
		if ty == "" {
			fl.fail(p.Pos(), "parameter %s of type %s: not supported in compiled functions", p.Name(), p.Type())
		}
		params = append(params, fmt.Sprintf("%s %%p%d", ty, i))
	}
	if f == m.u.fn {
		if ps := m.findParallel(fl); len(ps) > 0 {
			m.lowerParallel(fl, ps, params)
			return
		}
	}
	fl.emitRegion(&region{name: m.funcs[f], ret: retType(f.Signature), params: params})
}

// emitRegion lowers the blocks of r into one LLVM function.
func (fl *funcLower) emitRegion(r *region) {
	f := fl.fn
	m := fl.m
	fl.r = r
	fl.ret = r.ret
	fl.names = map[ssa.Value]string{}
	fl.allocs.Reset()
	for i, p := range f.Params {
		fl.names[p] = fmt.Sprintf("%%p%d", i)
	}
	in := func(b *ssa.BasicBlock) bool { return r.set == nil || r.set[b] }
	start := f.Blocks[0]
	if r.start != nil {
		start = r.start
	}
	n := len(f.Blocks)
	fl.blocks = make([]*strings.Builder, n)
	fl.phis = make([][]*ssa.Phi, n)
	fl.end = make([]string, n)
	for _, b := range f.Blocks {
		fl.blocks[b.Index] = &strings.Builder{}
		if !in(b) {
			continue
		}
		for _, in := range b.Instrs {
			if p, ok := in.(*ssa.Phi); ok {
				fl.names[p] = fmt.Sprintf("%%phi%d.%d", b.Index, len(fl.phis[b.Index]))
				fl.phis[b.Index] = append(fl.phis[b.Index], p)
			}
		}
	}
	// Values from outside the region come from the spill area.
	var pre strings.Builder
	pre.WriteString(r.pre)
	if r.set != nil {
		fl.cur = &pre
		var segStart *ssa.BasicBlock
		if r.seg != nil {
			segStart = r.start
		}
		for _, v := range fl.m.par.liveIn(f, r.set, segStart, r.yields) {
			if _, done := fl.names[v]; done && !isStartPhi(v, segStart) {
				continue
			}
			fl.names[v] = fl.loadSpill(v)
		}
	}
	fl.vec = fl.planVecs(r)
	if p := fl.vec[nil]; p != nil {
		// The chunk's loop: vector groups first, in the entry.
		fl.cur, fl.label = &pre, "entry"
		if !fl.emitVec(p) {
			delete(fl.vec, nil)
		}
	}
	for _, b := range f.DomPreorder() {
		if !in(b) {
			continue
		}
		fl.cur = fl.blocks[b.Index]
		fl.label = fmt.Sprintf("b%d", b.Index)
		if pl := r.yields[b]; pl != nil {
			fl.yield(pl)
			fl.end[b.Index] = fl.label
			fl.phis[b.Index] = nil
			continue
		}
		if r.spill {
			for _, p := range fl.phis[b.Index] {
				fl.storeSpill(p)
			}
		}
		for _, in := range b.Instrs {
			if _, ok := in.(*ssa.Phi); ok {
				continue
			}
			fl.instr(in)
		}
		fl.end[b.Index] = fl.label
	}
	w := &m.body
	linkage := "internal "
	if r.chunk != nil {
		linkage = ""
	}
	attrs := ""
	if isMathSrc(f.Pkg) && bigFunc(f) {
		// Inlining Go's large math functions (Pow, Sin, ...) into each
		// caller made O3 take about a third longer for a call's few
		// nanoseconds.
		attrs = " noinline"
	}
	fmt.Fprintf(w, "\ndefine %s%s %s(%s)%s {\nentry:\n%s%s  br label %%b%d\n", linkage, r.ret, r.name, strings.Join(r.params, ", "), attrs, fl.allocs.String(), pre.String(), start.Index)
	for _, b := range f.Blocks {
		if !in(b) || fl.end[b.Index] == "" {
			continue // not in the region, or unreachable
		}
		fmt.Fprintf(w, "b%d:\n", b.Index)
		for _, p := range fl.phis[b.Index] {
			if b == r.start && r.seg != nil {
				continue // loaded in the entry block
			}
			ty := llType(p.Type())
			var inc []string
			for i, e := range p.Edges {
				pred := b.Preds[i]
				if !in(pred) || r.yields[pred] != nil {
					if vp := fl.vec[nil]; vp != nil && b == r.chunk.header {
						inc = append(inc, fmt.Sprintf("[ %s, %%%s ]", vp.js, vp.xlabel))
					} else if r.chunk != nil && b == r.chunk.header {
						inc = append(inc, fmt.Sprintf("[ %s, %%entry ]", fl.chunkInit(p)))
					}
					continue
				}
				if fl.end[pred.Index] == "" {
					continue
				}
				v := fl.val(e)
				if vp := fl.vec[pred]; vp != nil && vp.js != "" && p == vp.l.iv {
					v = vp.js // the vector loop ran the first iterations
				}
				inc = append(inc, fmt.Sprintf("[ %s, %%%s ]", v, fl.end[pred.Index]))
			}
			fmt.Fprintf(w, "  %s = phi %s %s\n", fl.names[p], ty, strings.Join(inc, ", "))
		}
		w.WriteString(fl.blocks[b.Index].String())
	}
	w.WriteString(fl.chunkExit())
	w.WriteString("}\n")
}

// val returns the operand text of v.
func (fl *funcLower) val(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Const:
		return fl.m.constLit(v)
	case *ssa.Global:
		return fl.m.global(v)
	}
	if n, ok := fl.names[v]; ok {
		return n
	}
	fl.fail(v.Pos(), "value %s (%T): not supported in compiled functions", v.Name(), v)
	return ""
}

// typed returns "T v".
func (fl *funcLower) typed(v ssa.Value) string {
	return llType(v.Type()) + " " + fl.val(v)
}

func (fl *funcLower) set(v ssa.Value, s string) {
	fl.names[v] = s
	if fl.r != nil && fl.r.spill {
		fl.storeSpill(v)
	}
}

func (fl *funcLower) instr(in ssa.Instruction) {
	switch in := in.(type) {
	case *ssa.DebugRef:
	case *ssa.Jump:
		if p := fl.vec[in.Block()]; p != nil && fl.emitVec(p) {
			return
		}
		fl.emit("br label %%b%d", in.Block().Succs[0].Index)
	case *ssa.If:
		s := in.Block().Succs
		if fl.r.chunk != nil && fl.r.chunk.test == in {
			fl.chunkTest(in)
			return
		}
		fl.emit("br i1 %s, label %%b%d, label %%b%d", fl.val(in.Cond), s[0].Index, s[1].Index)
	case *ssa.Return:
		fl.ret0(in)
	case *ssa.BinOp:
		fl.set(in, fl.binop(in))
	case *ssa.UnOp:
		fl.set(in, fl.unop(in))
	case *ssa.Convert:
		fl.set(in, fl.convert(in.X, in.Type(), in.Pos()))
	case *ssa.ChangeType:
		fl.set(in, fl.val(in.X))
	case *ssa.Alloc:
		fl.alloc(in)
	case *ssa.Store:
		fl.store(in)
	case *ssa.IndexAddr:
		fl.set(in, fl.indexAddr(in))
	case *ssa.Index:
		fl.set(in, fl.index(in))
	case *ssa.Slice:
		fl.set(in, fl.slice(in))
	case *ssa.Call:
		fl.call(in)
	case *ssa.Extract:
		fl.set(in, fl.def("extractvalue %s, %d", fl.typed(in.Tuple), in.Index))
	case *ssa.MakeInterface:
		// Only the argument of a panic (whose value the error does not
		// carry) is supported.
		for _, r := range *in.Referrers() {
			if _, ok := r.(*ssa.Panic); !ok {
				fl.fail(in.Pos(), "interface: not supported in compiled functions")
			}
		}
	case *ssa.Panic:
		s := fl.m.addSite(in.Pos(), sitePanic)
		fl.storeStatus(s, "0", "0")
		fl.emit("%s", fl.retPoison())
	default:
		pos := token.NoPos
		if v, ok := in.(ssa.Value); ok {
			pos = v.Pos()
		}
		if !pos.IsValid() {
			pos = in.Pos()
		}
		fl.fail(pos, "%s: not supported in compiled functions", describe(in))
	}
}

// describe names an unsupported instruction for a diagnostic.
func describe(in ssa.Instruction) string {
	switch in := in.(type) {
	case *ssa.MakeMap, *ssa.MapUpdate, *ssa.Lookup:
		return "map"
	case *ssa.MakeInterface, *ssa.TypeAssert:
		return "interface"
	case *ssa.Go:
		return "go statement"
	case *ssa.Defer, *ssa.RunDefers:
		return "defer"
	case *ssa.MakeChan, *ssa.Send, *ssa.Select:
		return "channel"
	case *ssa.MakeClosure:
		return "closure"
	case *ssa.MakeSlice:
		return "make of a slice"
	case *ssa.FieldAddr, *ssa.Field:
		return "struct field"
	case *ssa.Range, *ssa.Next:
		return "range over " + in.String()
	}
	return fmt.Sprintf("%T", in)
}

func (fl *funcLower) ret0(in *ssa.Return) {
	switch len(in.Results) {
	case 0:
		fl.emit("ret void")
	case 1:
		fl.emit("ret %s", fl.typed(in.Results[0]))
	default:
		agg := "poison"
		for i, r := range in.Results {
			agg = fl.def("insertvalue %s %s, %s, %d", fl.ret, agg, fl.typed(r), i)
		}
		fl.emit("ret %s %s", fl.ret, agg)
	}
}

// storeStatus records a failed check in the frame's status words.
func (fl *funcLower) storeStatus(site int, a, b string) {
	fl.emit("store i64 %d, ptr %%st", site)
	p1 := fl.def("getelementptr i64, ptr %%st, i64 1")
	fl.emit("store i64 %s, ptr %s", a, p1)
	p2 := fl.def("getelementptr i64, ptr %%st, i64 2")
	fl.emit("store i64 %s, ptr %s", b, p2)
}

// check continues when ok (an i1) holds and otherwise reports site with the
// values a and b (i64) and returns.
func (fl *funcLower) check(ok string, site int, a, b string) {
	okL, errL := fl.newLabel("ok"), fl.newLabel("fail")
	fl.emit("br i1 %s, label %%%s, label %%%s, !prof !0", ok, okL, errL)
	fl.startBlock(errL)
	fl.storeStatus(site, a, b)
	fl.emit("%s", fl.retPoison())
	fl.startBlock(okL)
}

func (fl *funcLower) alloc(in *ssa.Alloc) {
	et := in.Type().Underlying().(*types.Pointer).Elem()
	ty := llMemType(et)
	if ty == "" || strings.Contains(ty, "ptr") {
		fl.fail(in.Pos(), "local variable of type %s: not supported in compiled functions", et)
	}
	a := fmt.Sprintf("%%a%d", fl.ntmp+1)
	fl.ntmp++
	fmt.Fprintf(&fl.allocs, "  %s = alloca %s, align 16\n", a, ty)
	fl.emit("store %s zeroinitializer, ptr %s", ty, a)
	fl.set(in, a)
}

// memType is the in-memory type behind pointer value p.
func memElem(p ssa.Value) types.Type {
	return p.Type().Underlying().(*types.Pointer).Elem()
}

func (fl *funcLower) store(in *ssa.Store) {
	et := memElem(in.Addr)
	v := fl.val(in.Val)
	if isBool(et) {
		v = fl.def("zext i1 %s to i8", v)
	}
	fl.emit("store %s %s, ptr %s", llMemType(et), v, fl.val(in.Addr))
}

func (fl *funcLower) load(addr ssa.Value) string {
	et := memElem(addr)
	ty := llMemType(et)
	if ty == "" {
		fl.fail(addr.Pos(), "load of %s: not supported in compiled functions", et)
	}
	v := fl.def("load %s, ptr %s", ty, fl.val(addr))
	if isBool(et) {
		v = fl.def("trunc i8 %s to i1", v)
	}
	return v
}

// toI64 widens an integer value to i64 by its signedness.
func (fl *funcLower) toI64(v ssa.Value) string {
	t := v.Type()
	switch b := bitsOf(t); {
	case b == 64:
		return fl.val(v)
	case isUnsigned(t):
		return fl.def("zext %s to i64", fl.typed(v))
	default:
		return fl.def("sext %s to i64", fl.typed(v))
	}
}

// seqBase returns the element pointer, the length, the capacity (i64
// operands) and element type of x, a slice or a pointer to an array.
func (fl *funcLower) seqBase(x ssa.Value) (ptr, n, c string, elem types.Type) {
	switch t := x.Type().Underlying().(type) {
	case *types.Slice:
		s := fl.typed(x)
		return fl.def("extractvalue %s, 0", s), fl.def("extractvalue %s, 1", s), fl.def("extractvalue %s, 2", s), t.Elem()
	case *types.Pointer:
		if a, ok := t.Elem().Underlying().(*types.Array); ok {
			l := fmt.Sprint(a.Len())
			return fl.val(x), l, l, a.Elem()
		}
	}
	fl.fail(x.Pos(), "indexing a value of type %s: not supported in compiled functions", x.Type())
	return
}

func (fl *funcLower) indexAddr(in *ssa.IndexAddr) string {
	ptr, n, _, elem := fl.seqBase(in.X)
	ty := llMemType(elem)
	if ty == "" {
		fl.fail(in.Pos(), "slice of %s: not supported in compiled functions", elem)
	}
	idx := fl.toI64(in.Index)
	if !fl.provenInBounds(in, n) {
		ok := fl.def("icmp ult i64 %s, %s", idx, n)
		if h := fl.hoistedCheck(in); h != "" {
			ok = fl.def("or i1 %s, %s", h, ok)
		}
		fl.check(ok, fl.m.addSite(in.Pos(), siteIndex), idx, n)
	}
	return fl.def("getelementptr inbounds %s, ptr %s, i64 %s", ty, ptr, idx)
}

// provenInBounds reports whether the index of in is a constant within a
// fixed-size array's length.
func (fl *funcLower) provenInBounds(in *ssa.IndexAddr, n string) bool {
	c, ok := in.Index.(*ssa.Const)
	if !ok || c.Value == nil {
		return false
	}
	if _, isPtr := in.X.Type().Underlying().(*types.Pointer); !isPtr {
		return false
	}
	i := c.Int64()
	var l int64
	fmt.Sscan(n, &l)
	return i >= 0 && i < l
}

func (fl *funcLower) index(in *ssa.Index) string {
	at, ok := in.X.Type().Underlying().(*types.Array)
	if !ok {
		fl.fail(in.Pos(), "indexing a value of type %s: not supported in compiled functions", in.X.Type())
	}
	// Spill the array value to memory and index it there.
	ty := llMemType(at)
	a := fmt.Sprintf("%%a%d", fl.ntmp+1)
	fl.ntmp++
	fmt.Fprintf(&fl.allocs, "  %s = alloca %s, align 16\n", a, ty)
	fl.emit("store %s %s, ptr %s", ty, fl.val(in.X), a)
	idx := fl.toI64(in.Index)
	n := fmt.Sprint(at.Len())
	ok2 := fl.def("icmp ult i64 %s, %s", idx, n)
	fl.check(ok2, fl.m.addSite(in.Pos(), siteIndex), idx, n)
	p := fl.def("getelementptr inbounds %s, ptr %s, i64 %s", llMemType(at.Elem()), a, idx)
	v := fl.def("load %s, ptr %s", llMemType(at.Elem()), p)
	if isBool(at.Elem()) {
		v = fl.def("trunc i8 %s to i1", v)
	}
	return v
}

func (fl *funcLower) slice(in *ssa.Slice) string {
	ptr, n, c, elem := fl.seqBase(in.X)
	ty := llMemType(elem)
	capKind := siteSliceCap
	if _, isPtr := in.X.Type().Underlying().(*types.Pointer); isPtr {
		capKind = siteSliceLen
	}
	lo, hi, mx := "0", n, c
	if in.Max != nil {
		mx = fl.toI64(in.Max)
		ok := fl.def("icmp ule i64 %s, %s", mx, c)
		fl.check(ok, fl.m.addSite(in.Pos(), capKind), mx, c)
	}
	if in.High != nil {
		hi = fl.toI64(in.High)
		ok := fl.def("icmp ule i64 %s, %s", hi, mx)
		k := capKind
		if in.Max != nil {
			k = siteSliceLo // [:hi:max]
		}
		a, b := hi, mx
		fl.check(ok, fl.m.addSite(in.Pos(), k), a, b)
	}
	if in.Low != nil {
		lo = fl.toI64(in.Low)
		ok := fl.def("icmp ule i64 %s, %s", lo, hi)
		fl.check(ok, fl.m.addSite(in.Pos(), siteSliceLo), lo, hi)
	}
	np := fl.def("getelementptr inbounds %s, ptr %s, i64 %s", ty, ptr, lo)
	nl := fl.def("sub i64 %s, %s", hi, lo)
	nc := fl.def("sub i64 %s, %s", mx, lo)
	s := fl.def("insertvalue {ptr, i64, i64} poison, ptr %s, 0", np)
	s = fl.def("insertvalue {ptr, i64, i64} %s, i64 %s, 1", s, nl)
	return fl.def("insertvalue {ptr, i64, i64} %s, i64 %s, 2", s, nc)
}

func (fl *funcLower) call(in *ssa.Call) {
	com := in.Common()
	if com.IsInvoke() {
		fl.fail(in.Pos(), "method call through an interface: not supported in compiled functions")
	}
	switch callee := com.Value.(type) {
	case *ssa.Builtin:
		fl.set(in, fl.builtin(in, callee.Name(), com.Args))
		return
	case *ssa.Function:
		if callee.Pkg != nil && callee.Pkg.Pkg.Path() == "math" {
			fl.set(in, fl.mathCall(in, callee.Name(), com.Args))
			return
		}
		if isRange(callee) {
			fl.set(in, fl.val(com.Args[0]))
			return
		}
		if callee.Pkg != nil && callee.Pkg.Pkg.Path() == "math/bits" {
			fl.set(in, fl.bitsCall(in, callee.Name(), com.Args))
			return
		}
		if callee.Pkg != fl.m.u.pkg && !isMathSrc(callee.Pkg) {
			fl.fail(in.Pos(), "call of %s: not supported in compiled functions (only math and functions of the same package)", callee.String())
		}
		if callee.TypeParams().Len() > 0 {
			fl.fail(in.Pos(), "call of generic function %s: not supported in compiled functions", callee.Name())
		}
		if r := fl.callGo(in, callee, com.Args); r != "" {
			fl.set(in, r)
		}
		return
	}
	fl.fail(in.Pos(), "call through a function value: not supported in compiled functions")
}

// isRange reports whether f is this package's Range marker.
func isRange(f *ssa.Function) bool {
	return f.Pkg != nil && f.Pkg.Pkg.Path() == rangePkgPath && f.Name() == "Range"
}

// rangePkgPath is the import path of this package, whose Range marks
// parallel loops.
const rangePkgPath = "github.com/gojit/gojit/source"

// callGo calls Go function callee, lowered alongside, and returns its
// result operand ("" for none).
func (fl *funcLower) callGo(in *ssa.Call, callee *ssa.Function, argv []ssa.Value) string {
	name := fl.m.funcName(callee)
	args := []string{"ptr %st"}
	for _, a := range argv {
		args = append(args, fl.typed(a))
	}
	rt := retType(callee.Signature)
	var r string
	if rt == "void" {
		fl.emit("call void %s(%s)", name, strings.Join(args, ", "))
	} else {
		r = fl.def("call %s %s(%s)", rt, name, strings.Join(args, ", "))
	}
	// A failed check in the callee is this function's failure too.
	s := fl.def("load i64, ptr %%st")
	ok := fl.def("icmp eq i64 %s, 0", s)
	okL, errL := fl.newLabel("ok"), fl.newLabel("up")
	fl.emit("br i1 %s, label %%%s, label %%%s, !prof !0", ok, okL, errL)
	fl.startBlock(errL)
	fl.emit("%s", fl.retPoison())
	fl.startBlock(okL)
	return r
}

// bigFunc reports whether f has more than a few dozen instructions.
func bigFunc(f *ssa.Function) bool {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Instrs)
	}
	return n > 40
}
