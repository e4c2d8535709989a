package codegen

import (
	"fmt"
	"math"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Vectorizable float32 exp and tanh.
//
// LLVM lowers llvm.exp.f32 and tanhf to scalar libm calls, which keep the
// loop vectorizer from vectorizing any loop that uses them. For float32
// the module instead carries its own definitions, straight-line code with
// no calls, branches or table lookups, marked alwaysinline so the inliner
// pastes them into the loop before the vectorizer runs (on AVX-512 hosts
// exp instead uses the definitions of vecmath_avx512.go). float64 exp uses
// those too on AVX-512 hosts; elsewhere it, and float64 tanh everywhere,
// still call the library.
//
// exp works in float32 arithmetic (16 lanes in an AVX-512 register):
// x is clamped to [-104, 89], where exp is 0 and +Inf once rounded to
// float32, then x = n*ln2 + r with n = rint(x*log2(e)) and |r| <= ln2/2
// (ln2 split in two parts, Cody and Waite); exp(r) is a Taylor polynomial
// and 2**n is built from exponent bits. The reduction and the polynomial
// use llvm.fmuladd, which the backend fuses where the target has FMA:
// that halves their instructions (BenchmarkSoftmax 1.23x faster on the
// development machine) and changes results by at most the one ulp the
// definition already allows, fused or not. It is within one ulp of the
// interpreter's float32(math.Exp(float64(x))) (TestVecMathF32 sweeps the
// float32 line); NaN is passed through by a final select.
//
// tanh works in float64, where the same reduction (expCoreDef, degree 10)
// is accurate to a few units of 1e-16, and rounds once to float32:
// tanh(x) = sign(x)*(1 - 2/(exp(2|x|)+1)) with |x| clamped to 20 (tanh is
// 1 in float32 long before), and for |x| < 0.04, where that form cancels,
// the odd Taylor series to x**11. It is the correctly rounded result but
// in rare near-ties.

const (
	expCore  = "gojit.exp.core"
	expF32   = "gojit.expf"
	tanhF32  = "gojit.tanhf"
	vecAttrs = "alwaysinline nounwind"
)

// dlit is a float64 LLVM constant.
func dlit(f float64) string { return floatLit(ir.Float64, f) }

// expf returns exp(x) for a float32 x through the vectorizable definition.
func (f *fn) expf(x string) string {
	if f.target.AVX512 {
		return f.expScalef(ir.Float32, x)
	}
	f.heavy = true
	f.defineVecMath()
	return f.ins("call float @%s(float %s)", expF32, x)
}

// tanhf returns tanh(x) for a float32 x through the vectorizable definition.
func (f *fn) tanhf(x string) string {
	f.defineVecMath()
	f.heavy = true
	return f.ins("call float @%s(float %s)", tanhF32, x)
}

// defineVecMath adds the definitions to the module (once: declarations are
// keyed by name).
func (f *fn) defineVecMath() {
	f.declare(expCore, expCoreDef())
	f.declare(expF32, expF32Def())
	f.declare(tanhF32, tanhF32Def())
	for _, d := range []string{"llvm.rint.f64", "llvm.fabs.f64", "llvm.minnum.f64", "llvm.maxnum.f64", "llvm.rint.f32", "llvm.minnum.f32", "llvm.maxnum.f32", "llvm.fmuladd.f32"} {
		t := "double"
		if strings.HasSuffix(d, "f32") {
			t = "float"
		}
		args := t
		if strings.Contains(d, "num") {
			args = t + ", " + t
		}
		if strings.Contains(d, "fmuladd") {
			args = t + ", " + t + ", " + t
		}
		f.declare(d, fmt.Sprintf("declare %s @%s(%s)", t, d, args))
	}
	f.declare("llvm.copysign.f64", "declare double @llvm.copysign.f64(double, double)")
}

// straight writes the body of a branch-free helper function.
type straight struct {
	b strings.Builder
	n int
}

func (s *straight) ins(format string, args ...any) string {
	s.n++
	name := fmt.Sprintf("%%v%d", s.n)
	fmt.Fprintf(&s.b, "  %s = ", name)
	fmt.Fprintf(&s.b, format, args...)
	s.b.WriteByte('\n')
	return name
}

// expCoreDef defines exp for a finite double c with |c| < 700, computed
// as 2**n * exp(r).
func expCoreDef() string {
	var s straight
	ln2hi := math.Float64frombits(0x3FE62E42FEE00000)
	ln2lo := math.Float64frombits(0x3DEA39EF35793C76)
	t := s.ins("fmul double %%c, %s", dlit(math.Log2E))
	n := s.ins("call double @llvm.rint.f64(double %s)", t)
	hi := s.ins("fmul double %s, %s", n, dlit(ln2hi))
	r0 := s.ins("fsub double %%c, %s", hi)
	lo := s.ins("fmul double %s, %s", n, dlit(ln2lo))
	r := s.ins("fsub double %s, %s", r0, lo)
	// Horner: p = sum r**k/k! for k = 0..10.
	fact := 1.0
	coef := make([]float64, 11)
	for k := range coef {
		if k > 0 {
			fact *= float64(k)
		}
		coef[k] = 1 / fact
	}
	p := dlit(coef[10])
	for k := 9; k >= 0; k-- {
		m := s.ins("fmul double %s, %s", p, r)
		p = s.ins("fadd double %s, %s", m, dlit(coef[k]))
	}
	ni := s.ins("fptosi double %s to i64", n)
	e := s.ins("add nsw i64 %s, 1023", ni)
	bits := s.ins("shl i64 %s, 52", e)
	scale := s.ins("bitcast i64 %s to double", bits)
	res := s.ins("fmul double %s, %s", p, scale)
	return fmt.Sprintf("define internal double @%s(double %%c) %s {\nentry:\n%s  ret double %s\n}\n", expCore, vecAttrs, s.b.String(), res)
}

// expF32Def defines exp in float32 arithmetic, so a vector register holds
// as many lanes as it can: x = n*ln2 + r, exp(r) by its Taylor polynomial
// of degree 7 (truncation below 5e-9 relative), 2**n applied as two
// factors 2**(n>>1) and 2**(n-(n>>1)), each a normal float32, so that
// subnormal and overflowing results round once, at the last multiply.
func expF32Def() string {
	var s straight
	f := func(v float64) string { return floatLit(ir.Float32, v) }
	lo := s.ins("call float @llvm.maxnum.f32(float %%x, float %s)", f(-104))
	c := s.ins("call float @llvm.minnum.f32(float %s, float %s)", lo, f(89))
	t := s.ins("fmul float %s, %s", c, f(math.Log2E))
	n := s.ins("call float @llvm.rint.f32(float %s)", t)
	// ln2hi has 16 significant bits, so n*ln2hi is exact for |n| <= 256
	// and r0 is the same whether or not its multiply-add is fused.
	r0 := s.ins("call float @llvm.fmuladd.f32(float %s, float %s, float %s)", n, f(-float64(math.Float32frombits(0x3F317200))), c)
	r := s.ins("call float @llvm.fmuladd.f32(float %s, float %s, float %s)", n, f(-float64(math.Float32frombits(0x35BFBE8E))), r0)
	fact := 1.0
	coef := make([]float64, 8)
	for k := range coef {
		if k > 0 {
			fact *= float64(k)
		}
		coef[k] = 1 / fact
	}
	// Horner with llvm.fmuladd: fused where the target has FMA (half the
	// instructions), a multiply and an add elsewhere; within one ulp
	// either way (TestVecMathF32).
	p := f(coef[7])
	for k := 6; k >= 0; k-- {
		p = s.ins("call float @llvm.fmuladd.f32(float %s, float %s, float %s)", p, r, f(coef[k]))
	}
	ni := s.ins("fptosi float %s to i32", n)
	n1 := s.ins("ashr i32 %s, 1", ni)
	n2 := s.ins("sub nsw i32 %s, %s", ni, n1)
	scale := func(k string) string {
		e := s.ins("add nsw i32 %s, 127", k)
		b := s.ins("shl i32 %s, 23", e)
		return s.ins("bitcast i32 %s to float", b)
	}
	s1, s2 := scale(n1), scale(n2)
	m := s.ins("fmul float %s, %s", p, s1)
	res0 := s.ins("fmul float %s, %s", m, s2)
	nan := s.ins("fcmp uno float %%x, %%x")
	res := s.ins("select i1 %s, float %%x, float %s", nan, res0)
	return fmt.Sprintf("define internal float @%s(float %%x) %s {\nentry:\n%s  ret float %s\n}\n", expF32, vecAttrs, s.b.String(), res)
}

func tanhF32Def() string {
	var s straight
	d := s.ins("fpext float %%x to double")
	a := s.ins("call double @llvm.fabs.f64(double %s)", d)
	ac := s.ins("call double @llvm.minnum.f64(double %s, double %s)", a, dlit(20))
	two := s.ins("fmul double %s, %s", ac, dlit(2))
	e := s.ins("call double @%s(double %s)", expCore, two)
	e1 := s.ins("fadd double %s, %s", e, dlit(1))
	q := s.ins("fdiv double %s, %s", dlit(2), e1)
	big := s.ins("fsub double %s, %s", dlit(1), q)
	// Odd series: a*(1 + a2*(c3 + a2*(c5 + ...))).
	a2 := s.ins("fmul double %s, %s", ac, ac)
	series := []float64{1, -1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925}
	p := dlit(series[len(series)-1])
	for k := len(series) - 2; k >= 0; k-- {
		m := s.ins("fmul double %s, %s", p, a2)
		p = s.ins("fadd double %s, %s", m, dlit(series[k]))
	}
	small := s.ins("fmul double %s, %s", ac, p)
	isSmall := s.ins("fcmp olt double %s, %s", ac, dlit(0.04))
	y := s.ins("select i1 %s, double %s, double %s", isSmall, small, big)
	sy := s.ins("call double @llvm.copysign.f64(double %s, double %s)", y, d)
	r := s.ins("fptrunc double %s to float", sy)
	nan := s.ins("fcmp uno float %%x, %%x")
	res := s.ins("select i1 %s, float %%x, float %s", nan, r)
	return fmt.Sprintf("define internal float @%s(float %%x) %s {\nentry:\n%s  ret float %s\n}\n", tanhF32, vecAttrs, s.b.String(), res)
}

// exp returns exp(x) for a float x of dt: the vectorizable definitions for
// float32, and for float64 on AVX-512 hosts; otherwise llvm.exp, which
// LLVM lowers to a libm call that keeps the loop scalar.
func (f *fn) exp(dt ir.DType, x string) string {
	switch {
	case dt == ir.Float32:
		return f.expf(x)
	case f.target.AVX512:
		return f.expScalef(dt, x)
	}
	return f.intrinsic1("exp", dt, x)
}
