package codegen

import (
	"fmt"

	"github.com/gojit/gojit/internal/ir"
)

// call emits a call to an intrinsic or libm function and records its
// declaration. args are typed operands, e.g. "float %t3".
func (f *fn) call(ret, name string, argTypes []string, args ...string) string {
	f.declare(name, fmt.Sprintf("declare %s @%s(%s)", ret, name, joinComma(argTypes)))
	typed := make([]string, len(args))
	for i, a := range args {
		typed[i] = argTypes[i] + " " + a
	}
	return f.ins("call %s @%s(%s)", ret, name, joinComma(typed))
}

// intrinsic1 calls a one-operand overloaded intrinsic such as llvm.exp.f32.
func (f *fn) intrinsic1(name string, dt ir.DType, x string) string {
	t := regType(dt)
	return f.call(t, "llvm."+name+"."+intrinsicSuffix(dt), []string{t}, x)
}

func (f *fn) intrinsic2(name string, dt ir.DType, x, y string) string {
	t := regType(dt)
	return f.call(t, "llvm."+name+"."+intrinsicSuffix(dt), []string{t, t}, x, y)
}

// libm calls the C math function for dt: tanhf for float, tanh for double.
func (f *fn) libm(name string, dt ir.DType, x string) string {
	t := regType(dt)
	if dt == ir.Float32 {
		name += "f"
	}
	return f.call(t, name, []string{t}, x)
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// unary lowers a one-operand elementwise op on x of dtype dt.
func (f *fn) unary(op ir.Op, dt ir.DType, x string) string {
	t := regType(dt)
	fl := dt.IsFloat()
	switch op {
	case ir.OpNeg:
		if fl {
			return f.ins("fneg %s %s", t, x)
		}
		return f.ins("sub %s 0, %s", t, x)
	case ir.OpAbs:
		switch {
		case fl:
			return f.intrinsic1("fabs", dt, x)
		case dt == ir.Uint8:
			return x
		}
		return f.call(t, "llvm.abs."+t, []string{t, "i1"}, x, "false")
	case ir.OpExp:
		return f.exp(dt, x)
	case ir.OpLog:
		return f.intrinsic1("log", dt, x)
	case ir.OpSin:
		return f.intrinsic1("sin", dt, x)
	case ir.OpCos:
		return f.intrinsic1("cos", dt, x)
	case ir.OpSqrt:
		return f.intrinsic1("sqrt", dt, x)
	case ir.OpRsqrt:
		s := f.intrinsic1("sqrt", dt, x)
		return f.ins("fdiv %s %s, %s", t, floatLit(dt, 1), s)
	case ir.OpTanh:
		if dt == ir.Float32 {
			return f.tanhf(x)
		}
		return f.libm("tanh", dt, x)
	case ir.OpSigmoid:
		nx := f.ins("fneg %s %s", t, x)
		e := f.exp(dt, nx)
		d := f.ins("fadd %s %s, %s", t, floatLit(dt, 1), e)
		return f.ins("fdiv %s %s, %s", t, floatLit(dt, 1), d)
	case ir.OpFloor, ir.OpCeil, ir.OpRound:
		if !fl {
			return x
		}
		name := map[ir.Op]string{ir.OpFloor: "floor", ir.OpCeil: "ceil", ir.OpRound: "roundeven"}[op]
		return f.intrinsic1(name, dt, x)
	case ir.OpLog1p, ir.OpExpm1, ir.OpErf:
		return f.unaryMore(op, dt, x)
	}
	panic(fmt.Sprintf("codegen: unary op %s", op))
}

// binary lowers a two-operand arithmetic op.
func (f *fn) binary(op ir.Op, dt ir.DType, x, y string) string {
	t := regType(dt)
	fl := dt.IsFloat()
	pick := func(float, integer string) string {
		if fl {
			return float
		}
		return integer
	}
	switch op {
	case ir.OpAdd:
		return f.ins("%s %s %s, %s", pick("fadd", "add"), t, x, y)
	case ir.OpSub:
		return f.ins("%s %s %s, %s", pick("fsub", "sub"), t, x, y)
	case ir.OpMul:
		return f.ins("%s %s %s, %s", pick("fmul", "mul"), t, x, y)
	case ir.OpDiv:
		if fl {
			return f.ins("fdiv %s %s, %s", t, x, y)
		}
		return f.intDiv(dt, x, y)
	case ir.OpPow:
		// The base goes through an arithmetic fence, which LLVM neither
		// folds nor sees through: for a constant base 2^n it rewrites
		// pow(2^n, y) as exp2(n*y) even without fast-math flags, and the
		// rounding of n*y becomes a relative error of the result of up
		// to n*y units in the product's last place (9 ulps in float32
		// and hundreds in float64 for 2^31; found by
		// FuzzCompiledVsInterpreter). The fence is hoisted out of loops,
		// so a loop still vectorizes; the rewrites on the exponent that
		// are exact (pow(x, 2) = x*x) stay.
		x = f.intrinsic1("arithmetic.fence", dt, x)
		return f.intrinsic2("pow", dt, x, y)
	case ir.OpMax, ir.OpMin:
		name := map[ir.Op]string{ir.OpMax: "max", ir.OpMin: "min"}[op]
		switch {
		case fl:
			return f.intrinsic2(name+"imum", dt, x, y)
		case dt == ir.Uint8:
			return f.intrinsic2("u"+name, dt, x, y)
		}
		return f.intrinsic2("s"+name, dt, x, y)
	case ir.OpMod:
		return f.mod(dt, x, y)
	}
	panic(fmt.Sprintf("codegen: binary op %s", op))
}

// intDiv is integer division that never traps: x/0 = 0 and MinInt/-1 = MinInt,
// as the interpreter defines them. The divisor is made safe before dividing,
// because LLVM's sdiv/udiv by zero is undefined behaviour (and #DE on x86).
func (f *fn) intDiv(dt ir.DType, x, y string) string {
	t := regType(dt)
	zero := f.ins("icmp eq %s %s, 0", t, y)
	if dt == ir.Uint8 {
		safe := f.ins("select i1 %s, %s 1, %s %s", zero, t, t, y)
		q := f.ins("udiv %s %s, %s", t, x, safe)
		return f.ins("select i1 %s, %s 0, %s %s", zero, t, t, q)
	}
	m1 := f.ins("icmp eq %s %s, -1", t, y)
	bad := f.ins("or i1 %s, %s", zero, m1)
	safe := f.ins("select i1 %s, %s 1, %s %s", bad, t, t, y)
	q := f.ins("sdiv %s %s, %s", t, x, safe)
	neg := f.ins("sub %s 0, %s", t, x)
	r := f.ins("select i1 %s, %s %s, %s %s", m1, t, neg, t, q)
	return f.ins("select i1 %s, %s 0, %s %s", zero, t, t, r)
}

// compare lowers eq ne lt le gt ge to an i1.
func (f *fn) compare(op ir.Op, dt ir.DType, x, y string) string {
	t := regType(dt)
	if dt.IsFloat() {
		pred := map[ir.Op]string{ir.OpEq: "oeq", ir.OpNe: "une", ir.OpLt: "olt", ir.OpLe: "ole", ir.OpGt: "ogt", ir.OpGe: "oge"}[op]
		return f.ins("fcmp %s %s %s, %s", pred, t, x, y)
	}
	signed := map[ir.Op]string{ir.OpEq: "eq", ir.OpNe: "ne", ir.OpLt: "slt", ir.OpLe: "sle", ir.OpGt: "sgt", ir.OpGe: "sge"}
	unsigned := map[ir.Op]string{ir.OpEq: "eq", ir.OpNe: "ne", ir.OpLt: "ult", ir.OpLe: "ule", ir.OpGt: "ugt", ir.OpGe: "uge"}
	pred := signed[op]
	if dt == ir.Uint8 || dt == ir.Bool {
		pred = unsigned[op]
	}
	return f.ins("icmp %s %s %s, %s", pred, t, x, y)
}

// cast converts x from one dtype to another with the interpreter's rules:
// float to integer truncates and saturates (NaN becomes 0), integer
// narrowing wraps, anything to bool tests for non-zero.
func (f *fn) cast(from, to ir.DType, x string) string {
	if from == to {
		return x
	}
	if from.IsHalf() || to.IsHalf() {
		return f.castHalf(from, to, x)
	}
	ft, tt := regType(from), regType(to)
	switch {
	case to == ir.Bool:
		if from.IsFloat() {
			return f.ins("fcmp une %s %s, %s", ft, x, floatLit(from, 0))
		}
		return f.ins("icmp ne %s %s, 0", ft, x)
	case from == ir.Bool:
		if to.IsFloat() {
			return f.ins("uitofp i1 %s to %s", x, tt)
		}
		return f.ins("zext i1 %s to %s", x, tt)
	case from.IsFloat() && to.IsFloat():
		if from == ir.Float32 {
			return f.ins("fpext float %s to double", x)
		}
		return f.ins("fptrunc double %s to float", x)
	case from.IsFloat() && to == ir.Uint8:
		// Saturate in floating point, then convert the in-range value:
		// maxnum returns its other operand for a NaN (so NaN becomes 0),
		// and truncation toward zero is what fptoui.sat does. LLVM lowers
		// a vector llvm.fptoui.sat to i8 one lane at a time on x86; this
		// becomes max, min, cvttps2dq and a narrowing move.
		sfx := intrinsicSuffix(from)
		y := f.call(ft, "llvm.maxnum."+sfx, []string{ft, ft}, x, floatLit(from, 0))
		y = f.call(ft, "llvm.minnum."+sfx, []string{ft, ft}, y, floatLit(from, 255))
		return f.ins("trunc i32 %s to i8", f.ins("fptosi %s %s to i32", ft, y))
	case from.IsFloat():
		name := "llvm.fptosi.sat"
		if to == ir.Uint8 {
			name = "llvm.fptoui.sat"
		}
		return f.call(tt, fmt.Sprintf("%s.%s.%s", name, tt, intrinsicSuffix(from)), []string{ft}, x)
	case to.IsFloat():
		if from == ir.Uint8 {
			return f.ins("uitofp %s %s to %s", ft, x, tt)
		}
		return f.ins("sitofp %s %s to %s", ft, x, tt)
	}
	// integer to integer
	switch fb, tb := from.Size(), to.Size(); {
	case fb > tb:
		return f.ins("trunc %s %s to %s", ft, x, tt)
	case from == ir.Uint8:
		return f.ins("zext %s %s to %s", ft, x, tt)
	default:
		return f.ins("sext %s %s to %s", ft, x, tt)
	}
}
