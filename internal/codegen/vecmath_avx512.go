package codegen

import (
	"fmt"
	"math"
	"sync"

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

// expParams are the per-dtype constants of the VSCALEF exp: the clamp
// bounds (beyond them the result is 0 or +Inf once rounded), ln2 in two
// parts (the high part with trailing zeros, so n*hi is exact) and the
// degree of the Taylor polynomial of exp(r), |r| <= ln2/2 (truncation
// below 5e-9 relative for float32's 7, 4e-18 for float64's 13).
type expParams struct {
	lo, hi       float64
	ln2hi, ln2lo float64
	degree       int
	lanes        []int  // vector widths with a variant
	name         string // the scalar definition's name
	group        int    // attribute group of the call sites
}

var expOf = map[ir.DType]expParams{
	ir.Float32: {lo: -104, hi: 89,
		ln2hi: float64(math.Float32frombits(0x3F317200)), ln2lo: float64(math.Float32frombits(0x35BFBE8E)),
		degree: 7, lanes: []int{4, 8, 16}, name: expF32, group: attrExpF32},
	ir.Float64: {lo: -746, hi: 710,
		ln2hi: math.Float64frombits(0x3FE62E42FEE00000), ln2lo: math.Float64frombits(0x3DEA39EF35793C76),
		degree: 13, lanes: []int{2, 4, 8}, name: "gojit.exp.f64", group: attrExpF64},
}

// expScalef returns exp(x) for a float x of dt through the VSCALEF
// definitions, which it adds to the module.
func (f *fn) expScalef(dt ir.DType, x string) string {
	ep := expOf[dt]
	for _, n := range append([]int{1}, ep.lanes...) {
		name, def, decls := expScalefDef(dt, n)
		f.declare(name, def)
		for k, d := range decls {
			f.declare(k, d)
		}
		if n > 1 {
			f.keep(name)
		}
	}
	var vs []string
	for _, n := range ep.lanes {
		vs = append(vs, variant(n, "v", ep.name, fmt.Sprintf("%s.v%d", ep.name, n)))
	}
	f.attr(ep.group, variantsAttr(ep.group, vs))
	f.heavy = true
	t := regType(dt)
	return f.ins("call %s @%s(%s %s) #%d", t, ep.name, t, x, ep.group)
}

// scalefDefs caches expScalefDef's results, which depend only on its
// arguments: writing the four definitions of float32 exp took about 0.2 ms
// of every compile that uses exp.
var scalefDefs sync.Map // scalefKey -> scalefDef

type scalefKey struct {
	dt    ir.DType
	lanes int
}

type scalefDef struct {
	name, def string
	decls     map[string]string // read-only once cached
}

// expScalefDef defines exp over lanes lanes of dt: the scalar function
// when lanes is 1, else NAME.vLANES. It returns the function's name, its
// definition and the intrinsics it declares; the caller must not modify
// decls.
func expScalefDef(dt ir.DType, lanes int) (name, def string, decls map[string]string) {
	k := scalefKey{dt, lanes}
	if d, ok := scalefDefs.Load(k); ok {
		d := d.(scalefDef)
		return d.name, d.def, d.decls
	}
	name, def, decls = writeExpScalef(dt, lanes)
	scalefDefs.Store(k, scalefDef{name, def, decls})
	return name, def, decls
}

// writeExpScalef writes what expScalefDef returns.
func writeExpScalef(dt ir.DType, lanes int) (name, def string, decls map[string]string) {
	var s straight
	ep := expOf[dt]
	et, sfx, ps := regType(dt), intrinsicSuffix(dt), map[ir.DType]string{ir.Float32: "ps", ir.Float64: "pd"}[dt]
	ty, name := et, ep.name
	k := func(v float64) string { return floatLit(dt, v) }
	if lanes > 1 {
		ty, sfx, name = fmt.Sprintf("<%d x %s>", lanes, et), fmt.Sprintf("v%d%s", lanes, sfx), fmt.Sprintf("%s.v%d", ep.name, lanes)
		k = func(v float64) string { return "splat (" + et + " " + floatLit(dt, v) + ")" }
	}
	decls = map[string]string{}
	decl := func(fn, ret, args string) { decls[fn] = fmt.Sprintf("declare %s @%s(%s)", ret, fn, args) }
	decl("llvm.rint."+sfx, ty, ty)
	decl("llvm.fmuladd."+sfx, ty, ty+", "+ty+", "+ty)
	// Clamp so that x - n*ln2 stays finite for infinite x; a compare that
	// is false for NaN keeps NaN, which then propagates.
	below := s.ins("fcmp olt %s %%x, %s", ty, k(ep.lo))
	lo := s.ins("select %s %s, %s %s, %s %%x", boolOf(lanes), below, ty, k(ep.lo), ty)
	above := s.ins("fcmp ogt %s %s, %s", ty, lo, k(ep.hi))
	c := s.ins("select %s %s, %s %s, %s %s", boolOf(lanes), above, ty, k(ep.hi), ty, lo)
	t := s.ins("fmul %s %s, %s", ty, c, k(math.Log2E))
	n := s.ins("call %s @llvm.rint.%s(%s %s)", ty, sfx, ty, t)
	fma := func(a, b, c string) string {
		return s.ins("call %s @llvm.fmuladd.%s(%s %s, %s %s, %s %s)", ty, sfx, ty, a, ty, b, ty, c)
	}
	r0 := fma(n, k(-ep.ln2hi), c)
	r := fma(n, k(-ep.ln2lo), r0)
	fact := 1.0
	coef := make([]float64, ep.degree+1)
	for i := range coef {
		if i > 0 {
			fact *= float64(i)
		}
		coef[i] = 1 / fact
	}
	p := k(coef[ep.degree])
	for i := ep.degree - 1; i >= 0; i-- {
		p = fma(p, r, k(coef[i]))
	}
	bits := lanes * dt.Size() * 8
	var res string
	switch {
	case lanes == 1:
		v := fmt.Sprintf("<%d x %s>", 16/dt.Size(), et)
		sc := "llvm.x86.avx512.mask.scalef." + map[ir.DType]string{ir.Float32: "ss", ir.Float64: "sd"}[dt]
		decl(sc, v, v+", "+v+", "+v+", i8, i32")
		pv := s.ins("insertelement %s poison, %s %s, i64 0", v, et, p)
		nv := s.ins("insertelement %s poison, %s %s, i64 0", v, et, n)
		rv := s.ins("call %s @%s(%s %s, %s %s, %s poison, i8 -1, i32 4)", v, sc, v, pv, v, nv, v)
		res = s.ins("extractelement %s %s, i64 0", v, rv)
	case bits == 512:
		mask := fmt.Sprintf("i%d", max(lanes, 8))
		sc := fmt.Sprintf("llvm.x86.avx512.mask.scalef.%s.512", ps)
		decl(sc, ty, ty+", "+ty+", "+ty+", "+mask+", i32")
		res = s.ins("call %s @%s(%s %s, %s %s, %s poison, %s -1, i32 4)", ty, sc, ty, p, ty, n, ty, mask)
	default:
		sc := fmt.Sprintf("llvm.x86.avx512.mask.scalef.%s.%d", ps, bits)
		decl(sc, ty, ty+", "+ty+", "+ty+", i8")
		res = s.ins("call %s @%s(%s %s, %s %s, %s poison, i8 -1)", ty, sc, ty, p, ty, n, ty)
	}
	def = fmt.Sprintf("define linkonce_odr %s @%s(%s %%x) %s {\nentry:\n%s  ret %s %s\n}\n",
		ty, name, ty, lateInline, s.b.String(), ty, res)
	return name, def, decls
}

// boolOf is the type of a comparison over lanes lanes.
func boolOf(lanes int) string {
	if lanes == 1 {
		return "i1"
	}
	return fmt.Sprintf("<%d x i1>", lanes)
}
