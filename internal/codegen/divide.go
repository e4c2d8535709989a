package codegen

import (
	"fmt"
	"math"

	"github.com/gojit/gojit/internal/ir"
)

// Division by a value that is the same along the innermost loop.
//
// Row softmax divides every element of a row by the row's sum. VDIVPS on
// 16 lanes occupies the one 512-bit floating-point port for about ten
// cycles, as long as the whole float32 exp. With y = 1/b computed once
// (correctly rounded, so hoisted out of the loop), the quotient is
//
//	q  = a*y              within one ulp of a/b
//	r  = fma(-q, b, a)    exact
//	q' = fma(r, y, q)     the correctly rounded a/b
//
// which is Markstein's theorem (P. Markstein, IBM J. Res. Dev. 34(1), 1990;
// Handbook of Floating-Point Arithmetic, 2nd ed., section 4.9), valid when
// nothing overflows or underflows. The code checks that: the divisor
// within [2**-20, 2**20] (outside it, y is NaN) and every lane's |q'|
// within [2**-80, 2**80] for float32 ([2**-100, 2**100] and [2**-800,
// 2**800] for float64), so a is a normal number and no step leaves the
// normal range. Any other vector (a zero, infinity, NaN or extreme lane)
// takes VDIVPS, so every result is the IEEE quotient, bit for bit. TestDivideByInvariant
// compares it with Go's division over the float32 line.
//
// Like exp (vecmath_avx512.go), the scalar definition is a noinline call
// whose call site names vector variants for the loop vectorizer: one with
// b and y uniform (the fast path above) and one with every operand a
// vector, plain division, for loops where LLVM cannot prove the divisor
// invariant. internal/llvm inlines both after vectorization.

// divLanes are the vector widths of each float type's variants.
var divLanes = map[ir.DType][]int{ir.Float32: {4, 8, 16}, ir.Float64: {2, 4, 8}}

// divBounds are the checked ranges of |b| and of |q'|, as powers of two.
var divBounds = map[ir.DType][2]int{ir.Float32: {20, 80}, ir.Float64: {100, 800}}

// divName is the scalar definition's name for dt.
func divName(dt ir.DType) string { return "gojit.div." + llvmType(dt) }

// divAttrs is the attribute group of the call sites dividing dt, and its
// text: for each width the uniform variant comes first, so the vectorizer
// takes it wherever the divisor is invariant.
func divAttrs(dt ir.DType) (group int, text string) {
	group = attrDivF32
	if dt == ir.Float64 {
		group = attrDivF64
	}
	name := divName(dt)
	var vs []string
	for _, n := range divLanes[dt] {
		vs = append(vs, variant(n, "vuu", name, fmt.Sprintf("%s.u%d", name, n)),
			variant(n, "vvv", name, fmt.Sprintf("%s.v%d", name, n)))
	}
	return group, variantsAttr(group, vs)
}

// llvmType is the LLVM type of a float dtype.
func llvmType(dt ir.DType) string {
	if dt == ir.Float32 {
		return "float"
	}
	return "double"
}

// divInvariant returns x/y for floats where y does not change along the
// innermost loop.
func (f *fn) divInvariant(dt ir.DType, x, y string) string {
	t := llvmType(dt)
	f.defineDiv(dt)
	// The reciprocal, or NaN when the divisor is outside the range where
	// the fast path is exact: NaN fails the vector variant's check.
	bound := divBounds[dt]
	ab := f.call(t, "llvm.fabs."+llvmSuffix(dt), []string{t}, y)
	lo := f.ins("fcmp oge %s %s, %s", t, ab, floatLit(dt, math.Ldexp(1, -bound[0])))
	hi := f.ins("fcmp ole %s %s, %s", t, ab, floatLit(dt, math.Ldexp(1, bound[0])))
	ok := f.ins("and i1 %s, %s", lo, hi)
	inv := f.ins("fdiv %s %s, %s", t, floatLit(dt, 1), y)
	recip := f.ins("select i1 %s, %s %s, %s %s", ok, t, inv, t, floatLit(dt, math.NaN()))
	group, _ := divAttrs(dt)
	return f.ins("call %s @%s(%s %s, %s %s, %s %s) #%d", t, divName(dt), t, x, t, y, t, recip, group)
}

// defineDiv adds the scalar and vector definitions for dt to the module.
func (f *fn) defineDiv(dt ir.DType) {
	t := llvmType(dt)
	name := divName(dt)
	f.declare(name, fmt.Sprintf("define linkonce_odr %s @%s(%s %%a, %s %%b, %s %%y) noinline nounwind \"gojit-late-inline\" {\nentry:\n  %%q = fdiv %s %%a, %%b\n  ret %s %%q\n}\n",
		t, name, t, t, t, t, t))
	group, attrs := divAttrs(dt)
	f.attr(group, attrs)
	for _, n := range divLanes[dt] {
		vt := fmt.Sprintf("<%d x %s>", n, t)
		f.declare(fmt.Sprintf("%s.v%d", name, n), fmt.Sprintf("define linkonce_odr %s @%s.v%d(%s %%a, %s %%b, %s %%y) noinline nounwind \"gojit-late-inline\" {\nentry:\n  %%q = fdiv %s %%a, %%b\n  ret %s %%q\n}\n",
			vt, name, n, vt, vt, vt, vt, vt))
		u, decls := divUniformDef(dt, n)
		f.declare(fmt.Sprintf("%s.u%d", name, n), u)
		for k, d := range decls {
			f.declare(k, d)
		}
		f.keep(fmt.Sprintf("%s.u%d", name, n))
		f.keep(fmt.Sprintf("%s.v%d", name, n))
	}
}

// divUniformDef defines the vector variant of n lanes whose divisor b and
// reciprocal y are scalars.
func divUniformDef(dt ir.DType, n int) (def string, decls map[string]string) {
	t := llvmType(dt)
	vt := fmt.Sprintf("<%d x %s>", n, t)
	sfx := fmt.Sprintf("v%d%s", n, map[ir.DType]string{ir.Float32: "f32", ir.Float64: "f64"}[dt])
	pow := func(e int) string { return floatLit(dt, math.Ldexp(1, e)) }
	splat := func(e int) string { return fmt.Sprintf("splat (%s %s)", t, pow(e)) }
	bound := divBounds[dt]
	decls = map[string]string{
		"llvm.fma." + sfx:                              fmt.Sprintf("declare %s @llvm.fma.%s(%s, %s, %s)", vt, sfx, vt, vt, vt),
		"llvm.fabs." + sfx:                             fmt.Sprintf("declare %s @llvm.fabs.%s(%s)", vt, sfx, vt),
		"llvm.fabs." + llvmSuffix(dt):                  fmt.Sprintf("declare %s @llvm.fabs.%s(%s)", t, llvmSuffix(dt), t),
		fmt.Sprintf("llvm.vector.reduce.and.v%di1", n): fmt.Sprintf("declare i1 @llvm.vector.reduce.and.v%di1(<%d x i1>)", n, n),
	}
	var s straight
	b0 := s.ins("insertelement %s poison, %s %%b, i64 0", vt, t)
	bv := s.ins("shufflevector %s %s, %s poison, <%d x i32> zeroinitializer", vt, b0, vt, n)
	y0 := s.ins("insertelement %s poison, %s %%y, i64 0", vt, t)
	yv := s.ins("shufflevector %s %s, %s poison, <%d x i32> zeroinitializer", vt, y0, vt, n)
	q := s.ins("fmul %s %%a, %s", vt, yv)
	nq := s.ins("fneg %s %s", vt, q)
	r := s.ins("call %s @llvm.fma.%s(%s %s, %s %s, %s %%a)", vt, sfx, vt, nq, vt, bv, vt)
	q1 := s.ins("call %s @llvm.fma.%s(%s %s, %s %s, %s %s)", vt, sfx, vt, r, vt, yv, vt, q)
	aq := s.ins("call %s @llvm.fabs.%s(%s %s)", vt, sfx, vt, q1)
	lo := s.ins("fcmp oge %s %s, %s", vt, aq, splat(-bound[1]))
	hi := s.ins("fcmp ole %s %s, %s", vt, aq, splat(bound[1]))
	in := s.ins("and <%d x i1> %s, %s", n, lo, hi)
	all := s.ins("call i1 @llvm.vector.reduce.and.v%di1(<%d x i1> %s)", n, n, in)
	// The exact path is a call: as an fdiv, LLVM would speculate it and
	// divide every vector.
	slow := fmt.Sprintf("%s.x%d", divName(dt), n)
	decls[slow] = fmt.Sprintf("define internal %s @%s(%s %%a, %s %%b) noinline cold nounwind {\nentry:\n  %%d = fdiv %s %%a, %%b\n  ret %s %%d\n}\n", vt, slow, vt, vt, vt, vt)
	def = fmt.Sprintf("define linkonce_odr %s @%s.u%d(%s %%a, %s %%b, %s %%y) noinline nounwind \"gojit-late-inline\" {\nentry:\n%s  br i1 %s, label %%fast, label %%exact, !prof !{!\"branch_weights\", i32 1000000, i32 1}\nfast:\n  ret %s %s\nexact:\n  %%d = call %s @%s(%s %%a, %s %s)\n  ret %s %%d\n}\n",
		vt, divName(dt), n, vt, t, t, s.b.String(), all, vt, q1, vt, slow, vt, vt, bv, vt)
	return def, decls
}

// llvmSuffix is the intrinsic suffix of a float dtype.
func llvmSuffix(dt ir.DType) string {
	if dt == ir.Float32 {
		return "f32"
	}
	return "f64"
}
