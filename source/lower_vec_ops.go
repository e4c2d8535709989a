package source

import (
	"fmt"
	"go/token"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Instructions of a vectorized loop (see lower_vec.go): a uniform one is
// lowered as in scalar code, a varying one on vectors of vecW lanes.

// instr emits one instruction for the lanes of mask.
func (e *vecEmit) instr(ins ssa.Instruction, mask string) {
	fl := e.fl
	v, _ := ins.(ssa.Value)
	if v != nil && !e.p.vary[v] {
		switch in := ins.(type) {
		case *ssa.IndexAddr:
			fl.names[in] = e.indexAddr(in, mask)
		case *ssa.UnOp:
			if in.Op == token.MUL {
				fl.names[in] = fl.def("load %s, ptr %s", llMemType(in.Type()), fl.val(in.X))
				return
			}
			fl.instr(ins)
		default:
			fl.instr(ins)
		}
		return
	}
	switch in := ins.(type) {
	case *ssa.DebugRef, *ssa.Jump, *ssa.If:
	case *ssa.BinOp:
		fl.names[in] = e.binop(in)
	case *ssa.UnOp:
		ty := vtype(in.Type())
		x := fl.val(in.X)
		switch in.Op {
		case token.MUL:
			fl.names[in] = e.load(in, mask)
		case token.NOT:
			fl.names[in] = e.not(x)
		case token.SUB:
			if isFloat(in.Type()) {
				fl.names[in] = fl.def("fneg %s %s", ty, x)
			} else {
				fl.names[in] = fl.def("sub %s zeroinitializer, %s", ty, x)
			}
		case token.XOR:
			fl.names[in] = fl.def("xor %s %s, %s", ty, x, e.splat(llType(in.Type()), "-1"))
		default:
			e.abort()
		}
	case *ssa.Convert:
		fl.names[in] = e.convert(in)
	case *ssa.ChangeType:
		fl.names[in] = fl.val(in.X)
	case *ssa.IndexAddr:
		fl.names[in] = e.indexAddr(in, mask)
	case *ssa.Store:
		e.store(in, mask)
	case *ssa.Call:
		fl.names[in] = e.call(in)
	default:
		e.abort()
	}
}

func (e *vecEmit) binop(in *ssa.BinOp) string {
	fl := e.fl
	t := in.X.Type()
	ty := vtype(t)
	x, y := e.vec(in.X), e.vec(in.Y)
	switch in.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		s := fl.compare(in.Op, t, ty, x, y)
		return s
	}
	if isFloat(t) {
		op := map[token.Token]string{token.ADD: "fadd", token.SUB: "fsub", token.MUL: "fmul", token.QUO: "fdiv"}[in.Op]
		if op == "" {
			e.abort()
		}
		return fl.def("%s %s %s, %s", op, ty, x, y)
	}
	switch in.Op {
	case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR:
		op := map[token.Token]string{token.ADD: "add", token.SUB: "sub", token.MUL: "mul", token.AND: "and", token.OR: "or", token.XOR: "xor"}[in.Op]
		return fl.def("%s %s %s, %s", op, ty, x, y)
	case token.AND_NOT:
		ny := fl.def("xor %s %s, %s", ty, y, e.splat(llType(t), "-1"))
		return fl.def("and %s %s, %s", ty, x, ny)
	}
	e.abort()
	return ""
}

func (e *vecEmit) convert(in *ssa.Convert) string {
	fl := e.fl
	from, to := in.X.Type(), in.Type()
	x := e.vec(in.X)
	fw, tw := bitsOf(from), bitsOf(to)
	op := ""
	switch {
	case isInteger(from) && isInteger(to):
		switch {
		case fw == tw:
			return x
		case fw > tw:
			op = "trunc"
		case isUnsigned(from):
			op = "zext"
		default:
			op = "sext"
		}
	case isInteger(from):
		op = "sitofp"
	case fw == tw:
		return x
	case fw < tw:
		op = "fpext"
	default:
		op = "fptrunc"
	}
	return fl.def("%s %s %s to %s", op, vtype(from), x, vtype(to))
}

func (e *vecEmit) call(in *ssa.Call) string {
	fl := e.fl
	com := in.Common()
	ty := vtype(in.Type())
	var f string
	switch c := com.Value.(type) {
	case *ssa.Builtin:
		t := in.Type()
		switch {
		case isFloat(t) && c.Name() == "min":
			f = "llvm.minimum"
		case isFloat(t) && c.Name() == "max":
			f = "llvm.maximum"
		case isUnsigned(t):
			f = "llvm.u" + c.Name()
		case isInteger(t):
			f = "llvm.s" + c.Name()
		default:
			e.abort()
		}
		f += fmt.Sprintf(".v%d%s", vecW, suffix(llType(t)))
		fl.m.declare(f, fmt.Sprintf("declare %s @%s(%s, %s)", ty, f, ty, ty))
		r := e.vec(com.Args[0])
		for _, a := range com.Args[1:] {
			r = fl.def("call %s @%s(%s %s, %s %s)", ty, f, ty, r, ty, e.vec(a))
		}
		return r
	case *ssa.Function:
		f = exactMath[c.Name()] + fmt.Sprintf(".v%df64", vecW)
	}
	var ps, as []string
	for _, a := range com.Args {
		ps = append(ps, ty)
		as = append(as, ty+" "+e.vec(a))
	}
	fl.m.declare(f, fmt.Sprintf("declare %s @%s(%s)", ty, f, strings.Join(ps, ", ")))
	r := fl.def("call %s @%s(%s)", ty, f, strings.Join(as, ", "))
	if c, ok := com.Value.(*ssa.Function); ok {
		if inf, ok := mathMaxMinInf[c.Name()]; ok && len(com.Args) == 2 {
			// Go's special case: the infinity wins over NaN (see mathCall).
			splat := e.splat("double", inf)
			a := fl.def("fcmp oeq %s %s, %s", ty, e.vec(com.Args[0]), splat)
			b := fl.def("fcmp oeq %s %s, %s", ty, e.vec(com.Args[1]), splat)
			r = fl.def("select %s %s, %s %s, %s %s", vt("i1"), fl.def("or %s %s, %s", vt("i1"), a, b), ty, splat, ty, r)
		}
	}
	return r
}

// indexAddr checks the index of in for the lanes of mask and returns the
// address: a pointer (uniform index: a safe one when no lane runs; a
// lane-consecutive index: lane 0's) or a vector of pointers.
func (e *vecEmit) indexAddr(in *ssa.IndexAddr, mask string) string {
	fl := e.fl
	ptr, n, _, elem := fl.seqBase(in.X)
	ty := llMemType(elem)
	if !e.p.vary[in.Index] {
		idx := fl.toI64(in.Index)
		ok := fl.def("icmp ult i64 %s, %s", idx, n)
		run := e.any(mask)
		if run != "true" {
			bad := fl.def("xor i1 %s, true", ok)
			e.bailIf(fl.def("and i1 %s, %s", bad, run))
		} else {
			e.bailIf(fl.def("xor i1 %s, true", ok))
		}
		a := fl.def("getelementptr inbounds %s, ptr %s, i64 %s", ty, ptr, idx)
		if run == "true" {
			return a
		}
		return fl.def("select i1 %s, ptr %s, ptr %s", ok, a, e.safe)
	}
	idx := fl.val(in.Index)
	if b := bitsOf(in.Index.Type()); b < 64 {
		op := "sext"
		if isUnsigned(in.Index.Type()) {
			op = "zext"
		}
		idx = fl.def("%s %s %s to %s", op, vtype(in.Index.Type()), idx, vt("i64"))
	}
	ok := fl.def("icmp ult %s %s, %s", vt("i64"), idx, e.splat("i64", n))
	bad := e.and(mask, e.not(ok))
	e.bailIf(e.any(bad))
	if e.p.consec[in.Index] {
		// Not inbounds: lane 0 may be inactive and its element outside.
		i0 := fl.def("extractelement %s %s, i64 0", vt("i64"), idx)
		return fl.def("getelementptr %s, ptr %s, i64 %s", ty, ptr, i0)
	}
	return fl.def("getelementptr %s, ptr %s, %s %s", ty, ptr, vt("i64"), idx)
}

func vsuffix(ty string) string { return fmt.Sprintf("v%d%s", vecW, suffix(ty)) }

func (e *vecEmit) load(in *ssa.UnOp, mask string) string {
	fl := e.fl
	ia := in.X.(*ssa.IndexAddr)
	if e.wrote[ia.X] {
		e.abort() // the store is deferred: this would read the old value
	}
	ty := llType(in.Type())
	al := sizeOf(in.Type())
	if e.p.consec[ia.Index] {
		f := "llvm.masked.load." + vsuffix(ty) + ".p0"
		fl.m.declare(f, fmt.Sprintf("declare %s @%s(ptr, i32, %s, %s)", vt(ty), f, vt("i1"), vt(ty)))
		return fl.def("call %s @%s(ptr %s, i32 %d, %s %s, %s poison)", vt(ty), f, fl.val(ia), al, vt("i1"), mask, vt(ty))
	}
	f := fmt.Sprintf("llvm.masked.gather.%s.v%dp0", vsuffix(ty), vecW)
	fl.m.declare(f, fmt.Sprintf("declare %s @%s(%s, i32, %s, %s)", vt(ty), f, vt("ptr"), vt("i1"), vt(ty)))
	return fl.def("call %s @%s(%s %s, i32 %d, %s %s, %s poison)", vt(ty), f, vt("ptr"), fl.val(ia), al, vt("i1"), mask, vt(ty))
}

func (e *vecEmit) store(in *ssa.Store, mask string) {
	fl := e.fl
	ty := llType(in.Val.Type())
	f := "llvm.masked.store." + vsuffix(ty) + ".p0"
	fl.m.declare(f, fmt.Sprintf("declare void @%s(%s, ptr, i32, %s)", f, vt(ty), vt("i1")))
	e.stores = append(e.stores, fmt.Sprintf("call void @%s(%s %s, ptr %s, i32 %d, %s %s)", f, vt(ty), e.vec(in.Val), fl.val(in.Addr), sizeOf(in.Val.Type()), vt("i1"), mask))
	e.wrote[in.Addr.(*ssa.IndexAddr).X] = true
}
