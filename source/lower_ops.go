package source

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// Arithmetic, comparisons, conversions, builtins and math functions, each
// with Go's semantics on amd64 (see the table in docs/source.md).

func (fl *funcLower) binop(in *ssa.BinOp) string {
	t := in.X.Type()
	ty := llType(t)
	x, y := fl.val(in.X), fl.val(in.Y)
	switch in.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return fl.compare(in.Op, t, ty, x, y)
	case token.SHL, token.SHR:
		return fl.shift(in)
	}
	if isFloat(t) {
		op := map[token.Token]string{token.ADD: "fadd", token.SUB: "fsub", token.MUL: "fmul", token.QUO: "fdiv"}[in.Op]
		if op == "" {
			fl.fail(in.Pos(), "operator %s on %s: not supported in compiled functions", in.Op, t)
		}
		return fl.def("%s %s %s, %s", op, ty, x, y)
	}
	if !isInteger(t) && !isBool(t) {
		fl.fail(in.Pos(), "operator %s on %s: not supported in compiled functions", in.Op, t)
	}
	switch in.Op {
	case token.ADD:
		return fl.def("add %s %s, %s", ty, x, y)
	case token.SUB:
		return fl.def("sub %s %s, %s", ty, x, y)
	case token.MUL:
		return fl.def("mul %s %s, %s", ty, x, y)
	case token.AND:
		return fl.def("and %s %s, %s", ty, x, y)
	case token.OR:
		return fl.def("or %s %s, %s", ty, x, y)
	case token.XOR:
		return fl.def("xor %s %s, %s", ty, x, y)
	case token.AND_NOT:
		ny := fl.def("xor %s %s, -1", ty, y)
		return fl.def("and %s %s, %s", ty, x, ny)
	case token.QUO, token.REM:
		return fl.divide(in, ty, x, y)
	}
	fl.fail(in.Pos(), "operator %s: not supported in compiled functions", in.Op)
	return ""
}

func (fl *funcLower) compare(op token.Token, t types.Type, ty, x, y string) string {
	if isFloat(t) {
		p := map[token.Token]string{token.EQL: "oeq", token.NEQ: "une", token.LSS: "olt", token.LEQ: "ole", token.GTR: "ogt", token.GEQ: "oge"}[op]
		return fl.def("fcmp %s %s %s, %s", p, ty, x, y)
	}
	var p string
	switch op {
	case token.EQL:
		p = "eq"
	case token.NEQ:
		p = "ne"
	default:
		s := "s"
		if isUnsigned(t) {
			s = "u"
		}
		p = s + map[token.Token]string{token.LSS: "lt", token.LEQ: "le", token.GTR: "gt", token.GEQ: "ge"}[op]
	}
	return fl.def("icmp %s %s %s, %s", p, ty, x, y)
}

// divide is Go's integer / and %: division by zero fails at the user's line;
// MinInt / -1 is MinInt and MinInt % -1 is 0, where LLVM's sdiv and srem
// are undefined.
func (fl *funcLower) divide(in *ssa.BinOp, ty, x, y string) string {
	signed := !isUnsigned(in.X.Type())
	quo := in.Op == token.QUO
	if c, ok := in.Y.(*ssa.Const); ok && c.Value != nil {
		if signed && c.Int64() == -1 {
			if quo {
				return fl.def("sub %s 0, %s", ty, x)
			}
			return "0"
		}
		if constant.Sign(c.Value) != 0 {
			return fl.def("%s %s %s, %s", divOp(signed, quo), ty, x, y)
		}
	}
	nz := fl.def("icmp ne %s %s, 0", ty, y)
	fl.check(nz, fl.m.addSite(in.Pos(), siteDivide), "0", "0")
	if !signed {
		return fl.def("%s %s %s, %s", divOp(false, quo), ty, x, y)
	}
	m1 := fl.def("icmp eq %s %s, -1", ty, y)
	sy := fl.def("select i1 %s, %s 1, %s %s", m1, ty, ty, y)
	r := fl.def("%s %s %s, %s", divOp(true, quo), ty, x, sy)
	alt := "0"
	if quo {
		alt = fl.def("sub %s 0, %s", ty, x)
	}
	return fl.def("select i1 %s, %s %s, %s %s", m1, ty, alt, ty, r)
}

func divOp(signed, quo bool) string {
	switch {
	case signed && quo:
		return "sdiv"
	case signed:
		return "srem"
	case quo:
		return "udiv"
	}
	return "urem"
}

// shift is Go's << and >>: a count of the width or more gives 0 (or the
// sign for a signed >>), a negative count fails at the user's line.
func (fl *funcLower) shift(in *ssa.BinOp) string {
	t := in.X.Type()
	ty := llType(t)
	w := bitsOf(t)
	x := fl.val(in.X)
	left := in.Op == token.SHL
	signed := !isUnsigned(t)
	big := func() string { // the result for counts >= w
		if !left && signed {
			return fl.def("ashr %s %s, %d", ty, x, w-1)
		}
		return "0"
	}
	op := "shl"
	if !left {
		op = "lshr"
		if signed {
			op = "ashr"
		}
	}
	if c, ok := in.Y.(*ssa.Const); ok && c.Value != nil {
		if constant.Sign(c.Value) < 0 {
			// A negative constant count (a typed constant reaching the
			// shift, e.g. through a variable go/ssa folded) panics in Go.
			v, _ := constant.Int64Val(constant.ToInt(c.Value))
			fl.check("false", fl.m.addSite(in.Pos(), siteShift), strconv.FormatInt(v, 10), "0")
			return big()
		}
		n, exact := constant.Uint64Val(constant.ToInt(c.Value))
		if !exact || n >= uint64(w) {
			return big()
		}
		return fl.def("%s %s %s, %d", op, ty, x, n)
	}
	yt := in.Y.Type()
	yty := llType(yt)
	y := fl.val(in.Y)
	if !isUnsigned(yt) {
		nn := fl.def("icmp sge %s %s, 0", yty, y)
		fl.check(nn, fl.m.addSite(in.Pos(), siteShift), fl.toI64(in.Y), "0")
	}
	isBig := fl.def("icmp uge %s %s, %d", yty, y, w)
	amt := y
	switch yw := bitsOf(yt); {
	case yw > w:
		amt = fl.def("trunc %s %s to %s", yty, y, ty)
	case yw < w:
		amt = fl.def("zext %s %s to %s", yty, y, ty)
	}
	r := fl.def("%s %s %s, %s", op, ty, x, amt)
	return fl.def("select i1 %s, %s %s, %s %s", isBig, ty, big(), ty, r)
}

func (fl *funcLower) unop(in *ssa.UnOp) string {
	t := in.X.Type()
	ty := llType(t)
	x := fl.val(in.X)
	switch in.Op {
	case token.MUL:
		return fl.load(in.X)
	case token.NOT:
		return fl.def("xor i1 %s, true", x)
	case token.SUB:
		if isFloat(t) {
			return fl.def("fneg %s %s", ty, x)
		}
		return fl.def("sub %s 0, %s", ty, x)
	case token.XOR:
		return fl.def("xor %s %s, -1", ty, x)
	}
	fl.fail(in.Pos(), "operator %s: not supported in compiled functions", in.Op)
	return ""
}

// convert is Go's conversion T(x) between numeric types. Float to integer
// follows amd64: out-of-range and NaN inputs give what CVTTSD2SI gives
// (the most negative value of the 32- or 64-bit intermediate), as the Go
// compiler's conversion tables arrange.
func (fl *funcLower) convert(xv ssa.Value, to types.Type, pos token.Pos) string {
	from := xv.Type()
	fty, tty := llType(from), llType(to)
	x := fl.val(xv)
	if fty == "" || tty == "" || isBool(from) || isBool(to) {
		fl.fail(pos, "conversion from %s to %s: not supported in compiled functions", from, to)
	}
	fw, tw := bitsOf(from), bitsOf(to)
	switch {
	case isInteger(from) && isInteger(to):
		switch {
		case tw < fw:
			return fl.def("trunc %s %s to %s", fty, x, tty)
		case tw > fw && isUnsigned(from):
			return fl.def("zext %s %s to %s", fty, x, tty)
		case tw > fw:
			return fl.def("sext %s %s to %s", fty, x, tty)
		}
		return x
	case isInteger(from):
		if isUnsigned(from) {
			return fl.def("uitofp %s %s to %s", fty, x, tty)
		}
		return fl.def("sitofp %s %s to %s", fty, x, tty)
	case isInteger(to):
		var r string
		switch {
		case tw == 64 && isUnsigned(to):
			// x < 2^63 ? cvt64(x) : cvt64(x - 2^63) | MinInt64
			c := floatLit(1<<63, fty)
			lt := fl.def("fcmp olt %s %s, %s", fty, x, c)
			a := fl.cvtt(fty, x, 64)
			d := fl.def("fsub %s %s, %s", fty, x, c)
			b := fl.cvtt(fty, d, 64)
			b = fl.def("or i64 %s, -9223372036854775808", b)
			return fl.def("select i1 %s, i64 %s, i64 %s", lt, a, b)
		case tw == 64 || (tw == 32 && isUnsigned(to)):
			r = fl.cvtt(fty, x, 64)
			if tw == 32 {
				r = fl.def("trunc i64 %s to i32", r)
			}
			return r
		default:
			r = fl.cvtt(fty, x, 32)
			if tw < 32 {
				r = fl.def("trunc i32 %s to %s", r, tty)
			}
			return r
		}
	default:
		switch {
		case tw > fw:
			return fl.def("fpext %s %s to %s", fty, x, tty)
		case tw < fw:
			return fl.def("fptrunc %s %s to %s", fty, x, tty)
		}
		return x
	}
}

// cvtt is x86's truncating conversion of float x to a bits-wide signed
// integer: the integer indefinite value (MinInt) when out of range or NaN.
func (fl *funcLower) cvtt(fty, x string, bits int) string {
	ity := fmt.Sprintf("i%d", bits)
	lim := math.Ldexp(1, bits-1)
	lo := fl.def("fcmp oge %s %s, %s", fty, x, floatLit(-lim, fty))
	if fty == "double" && bits == 32 {
		lo = fl.def("fcmp ogt double %s, %s", x, floatLit(-lim-1, fty))
	}
	hi := fl.def("fcmp olt %s %s, %s", fty, x, floatLit(lim, fty))
	in := fl.def("and i1 %s, %s", lo, hi)
	v := fl.def("fptosi %s %s to %s", fty, x, ity)
	return fl.def("select i1 %s, %s %s, %s %d", in, ity, v, ity, -int64(lim))
}

func (fl *funcLower) builtin(in *ssa.Call, name string, args []ssa.Value) string {
	switch name {
	case "len", "cap":
		_, n, c, _ := fl.seqBase(args[0])
		if name == "cap" {
			return c
		}
		return n
	case "min", "max":
		t := in.Type()
		ty := llType(t)
		var f string
		switch {
		case isFloat(t) && name == "min":
			f = "llvm.minimum"
		case isFloat(t):
			f = "llvm.maximum"
		case isUnsigned(t):
			f = "llvm.u" + name
		case isInteger(t):
			f = "llvm.s" + name
		default:
			fl.fail(in.Pos(), "%s of %s: not supported in compiled functions", name, t)
		}
		f += "." + suffix(ty)
		fl.m.declare(f, fmt.Sprintf("declare %s @%s(%s, %s)", ty, f, ty, ty))
		r := fl.val(args[0])
		for _, a := range args[1:] {
			r = fl.def("call %s @%s(%s %s, %s)", ty, f, ty, r, fl.typed(a))
		}
		return r
	}
	fl.fail(in.Pos(), "builtin %s: not supported in compiled functions", name)
	return ""
}

// suffix is the overload suffix of an LLVM intrinsic for type ty.
func suffix(ty string) string {
	switch ty {
	case "float":
		return "f32"
	case "double":
		return "f64"
	}
	return ty
}

// exactMath are the math functions whose LLVM intrinsic gives Go's result
// bit for bit (they are exactly rounded in both).
var exactMath = map[string]string{
	"Sqrt": "llvm.sqrt", "Abs": "llvm.fabs", "Floor": "llvm.floor", "Ceil": "llvm.ceil",
	"Trunc": "llvm.trunc", "Round": "llvm.round", "RoundToEven": "llvm.roundeven",
	"Max": "llvm.maximum", "Min": "llvm.minimum", "Copysign": "llvm.copysign", "FMA": "llvm.fma",
}

// mathMaxMinInf is, for math.Max and math.Min, the infinity that is their
// result whatever the other operand, NaN included (Go's special cases).
var mathMaxMinInf = map[string]string{"Max": "0x7FF0000000000000", "Min": "0xFFF0000000000000"}

// amd64Ports are the math functions Go implements in amd64 assembly with
// results of their own, ported to Go in lower_math.go's prelude.
var amd64Ports = map[string]string{"Exp": "exp", "Log": "log", "Hypot": "hypot"}

func (fl *funcLower) mathCall(in *ssa.Call, name string, args []ssa.Value) string {
	m := fl.m
	var ops []string
	for _, a := range args {
		ops = append(ops, fl.typed(a))
	}
	join := func() string {
		s := ""
		for i, o := range ops {
			if i > 0 {
				s += ", "
			}
			s += o
		}
		return s
	}
	params := func(n int) string {
		s := "double"
		for i := 1; i < n; i++ {
			s += ", double"
		}
		return s
	}
	if f, ok := exactMath[name]; ok {
		f += ".f64"
		m.declare(f, fmt.Sprintf("declare double @%s(%s)", f, params(len(args))))
		r := fl.def("call double @%s(%s)", f, join())
		if inf, ok := mathMaxMinInf[name]; ok {
			// math.Max(x, +Inf) is +Inf even when x is NaN (and
			// math.Min(x, -Inf) is -Inf): an infinity in the
			// function's direction wins over NaN, unlike llvm.maximum.
			a := fl.def("fcmp oeq double %s, %s", fl.val(args[0]), inf)
			b := fl.def("fcmp oeq double %s, %s", fl.val(args[1]), inf)
			r = fl.def("select i1 %s, double %s, double %s", fl.def("or i1 %s, %s", a, b), inf, r)
		}
		return r
	}
	switch name {
	case "Inf":
		pos := fl.def("icmp sge i64 %s, 0", fl.val(args[0]))
		return fl.def("select i1 %s, double 0x7FF0000000000000, double 0xFFF0000000000000", pos)
	case "NaN":
		return "0x7FF8000000000001"
	case "IsNaN":
		x := fl.val(args[0])
		return fl.def("fcmp uno double %s, %s", x, x)
	case "IsInf":
		x := fl.val(args[0])
		s := fl.val(args[1])
		pi := fl.def("fcmp oeq double %s, 0x7FF0000000000000", x)
		ni := fl.def("fcmp oeq double %s, 0xFFF0000000000000", x)
		sp := fl.def("icmp sge i64 %s, 0", s)
		sn := fl.def("icmp sle i64 %s, 0", s)
		a := fl.def("and i1 %s, %s", pi, sp)
		b := fl.def("and i1 %s, %s", ni, sn)
		return fl.def("or i1 %s, %s", a, b)
	case "Signbit":
		b := fl.def("bitcast double %s to i64", fl.val(args[0]))
		return fl.def("icmp slt i64 %s, 0", b)
	case "Float64bits":
		return fl.def("bitcast double %s to i64", fl.val(args[0]))
	case "Float64frombits":
		return fl.def("bitcast i64 %s to double", fl.val(args[0]))
	case "Float32bits":
		return fl.def("bitcast float %s to i32", fl.val(args[0]))
	case "Float32frombits":
		return fl.def("bitcast i32 %s to float", fl.val(args[0]))
	}
	if port, ok := amd64Ports[name]; ok {
		// Never Go's own body here: on amd64 it calls an assembly stub.
		if g := m.mathSrc().preludeFunc(port); g != nil {
			return fl.callGo(in, g, args)
		}
		fl.fail(in.Pos(), "math.%s: its Go port could not be built: %v", name, m.mathSrc().preludeErr())
		return ""
	}
	if g := m.mathSrc().fn(name); g != nil {
		return fl.callGo(in, g, args)
	}
	fl.fail(in.Pos(), "math.%s: not supported in compiled functions", name)
	return ""
}
