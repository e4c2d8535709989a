package codegen

import (
	"fmt"
	"math"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// float32 exp with AVX-512's VSCALEF.
//
// The portable definition (expF32Def) spends about half its instructions
// on clamping, building 2**n from exponent bits in two factors and passing
// NaN through. VSCALEFPS computes p*2**n with one rounding, subnormal and
// overflowing results included, so on AVX-512 hosts exp is: clamp (two
// compare-selects that keep NaN), n = rint(x*log2(e)), the same Cody-Waite
// reduction and degree-7 polynomial, and one VSCALEFPS. The result is the
// same bits as the portable definition's: there p*2**(n>>1) is exact and
// the second factor rounds once, as VSCALEF does.
//
// The loop vectorizer cannot widen a call to a target intrinsic, and once
// exp is inlined it sees only the intrinsic. So exp stays a call until
// after vectorization: the scalar definition (VSCALEFSS) is noinline, and
// each call site names vector variants for 4, 8 and 16 lanes through the
// vector-function ABI attribute, which the vectorizer uses to call
// gojit.expf.v16 on 16 lanes at once. The definitions carry the
// "gojit-late-inline" attribute, and internal/llvm inlines them after the
// optimization pipeline, so the loops end up with no calls.

// expLanes are the vector widths exp has a variant for.
var expLanes = []int{4, 8, 16}

// expVariantsAttr is attribute group #2, which every exp call site carries
// on AVX-512 hosts.
var expVariantsAttr = func() string {
	var vs []string
	for _, n := range expLanes {
		vs = append(vs, fmt.Sprintf("_ZGV_LLVM_N%dv_%s(%s.v%d)", n, expF32, expF32, n))
	}
	return fmt.Sprintf("attributes #2 = { \"vector-function-abi-variant\"=\"%s\" }\n", strings.Join(vs, ","))
}()

// defineExpScalef adds the scalar and vector definitions to the module.
func (f *fn) defineExpScalef() {
	for _, n := range append([]int{1}, expLanes...) {
		name, def, decls := expScalefDef(n)
		f.declare(name, def)
		for k, d := range decls {
			f.declare(k, d)
		}
	}
	for _, n := range expLanes {
		f.keep(fmt.Sprintf("%s.v%d", expF32, n))
	}
	f.attr(2, expVariantsAttr)
}

// expScalefDef defines exp over lanes float32 lanes: the scalar function
// gojit.expf when lanes is 1, else gojit.expf.vLANES. It returns the
// function's name, its definition and the intrinsics it declares.
func expScalefDef(lanes int) (name, def string, decls map[string]string) {
	var s straight
	ty, sfx := "float", "f32"
	name = expF32
	k := func(v float64) string { return floatLit(ir.Float32, v) }
	if lanes > 1 {
		ty, sfx, name = fmt.Sprintf("<%d x float>", lanes), fmt.Sprintf("v%df32", lanes), fmt.Sprintf("%s.v%d", expF32, lanes)
		k = func(v float64) string { return "splat (float " + floatLit(ir.Float32, v) + ")" }
	}
	decls = map[string]string{}
	decl := func(fn, ret, args string) { decls[fn] = fmt.Sprintf("declare %s @%s(%s)", ret, fn, args) }
	decl("llvm.rint."+sfx, ty, ty)
	decl("llvm.fmuladd."+sfx, ty, ty+", "+ty+", "+ty)
	// Clamp to [-104, 89] so that x - n*ln2 stays finite for infinite x;
	// a compare that is false for NaN keeps NaN, which then propagates.
	below := s.ins("fcmp olt %s %%x, %s", ty, k(-104))
	lo := s.ins("select %s %s, %s %s, %s %%x", boolOf(lanes), below, ty, k(-104), ty)
	above := s.ins("fcmp ogt %s %s, %s", ty, lo, k(89))
	c := s.ins("select %s %s, %s %s, %s %s", boolOf(lanes), above, ty, k(89), ty, lo)
	t := s.ins("fmul %s %s, %s", ty, c, k(math.Log2E))
	n := s.ins("call %s @llvm.rint.%s(%s %s)", ty, sfx, ty, t)
	fma := func(a, b, c string) string {
		return s.ins("call %s @llvm.fmuladd.%s(%s %s, %s %s, %s %s)", ty, sfx, ty, a, ty, b, ty, c)
	}
	r0 := fma(n, k(-float64(math.Float32frombits(0x3F317200))), c)
	r := fma(n, k(-float64(math.Float32frombits(0x35BFBE8E))), r0)
	fact := 1.0
	coef := make([]float64, 8)
	for i := range coef {
		if i > 0 {
			fact *= float64(i)
		}
		coef[i] = 1 / fact
	}
	p := k(coef[7])
	for i := 6; i >= 0; i-- {
		p = fma(p, r, k(coef[i]))
	}
	var res string
	switch lanes {
	case 1:
		decl("llvm.x86.avx512.mask.scalef.ss", "<4 x float>", "<4 x float>, <4 x float>, <4 x float>, i8, i32")
		pv := s.ins("insertelement <4 x float> poison, float %s, i64 0", p)
		nv := s.ins("insertelement <4 x float> poison, float %s, i64 0", n)
		rv := s.ins("call <4 x float> @llvm.x86.avx512.mask.scalef.ss(<4 x float> %s, <4 x float> %s, <4 x float> poison, i8 -1, i32 4)", pv, nv)
		res = s.ins("extractelement <4 x float> %s, i64 0", rv)
	case 16:
		decl("llvm.x86.avx512.mask.scalef.ps.512", ty, ty+", "+ty+", "+ty+", i16, i32")
		res = s.ins("call %s @llvm.x86.avx512.mask.scalef.ps.512(%s %s, %s %s, %s poison, i16 -1, i32 4)", ty, ty, p, ty, n, ty)
	default:
		bits := lanes * 32
		decl(fmt.Sprintf("llvm.x86.avx512.mask.scalef.ps.%d", bits), ty, ty+", "+ty+", "+ty+", i8")
		res = s.ins("call %s @llvm.x86.avx512.mask.scalef.ps.%d(%s %s, %s %s, %s poison, i8 -1)", ty, bits, ty, p, ty, n, ty)
	}
	def = fmt.Sprintf("define linkonce_odr %s @%s(%s %%x) noinline nounwind \"gojit-late-inline\" {\nentry:\n%s  ret %s %s\n}\n",
		ty, name, ty, s.b.String(), ty, res)
	return name, def, decls
}

// boolOf is the type of a comparison over lanes lanes.
func boolOf(lanes int) string {
	if lanes == 1 {
		return "i1"
	}
	return fmt.Sprintf("<%d x i1>", lanes)
}
