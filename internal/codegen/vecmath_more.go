package codegen

import (
	"fmt"
	"math"

	"github.com/gojit/gojit/internal/ir"
)

// Vectorizable float32 log1p, expm1 and erf (issue 10).
//
// Like tanh (vecmath.go), each is straight-line code in float64 arithmetic,
// inlined into the loop before the vectorizer runs, and rounded once to
// float32, so the result is the correctly rounded value except in rare
// near-ties: TestVecMathMoreF32 holds all three to one ulp of Go's float64
// math.Log1p, math.Expm1 and math.Erf rounded to float32 over a sweep of
// the float32 line. Float64 calls the C library's log1p, expm1 and erf
// (scalar), within a few ulps of Go's (transULPs in the tests).
//
// log1p: u = 1+x rounds, but c = x-(u-1) is its exact error (Fast2Sum:
// |x| <= 1 there; beyond, c is negligible), and log1p(x) = log(u) + c/u to
// far better than float32 precision. log(u) = e*ln2 + 2*atanh(s) with u =
// m*2**e, m in [sqrt(1/2), sqrt(2)) and s = (m-1)/(m+1), |s| < 0.172, whose
// odd series to s**23 is below 1e-17. x = -1 gives -Inf, x < -1 NaN.
//
// expm1: exp(x)-1 through the float64 exp of vecmath.go (accurate to a few
// 1e-16), whose cancellation costs nothing visible in float32 for |x| >=
// 1e-3; below, the Taylor series to x**6 (truncation below 2e-22
// relative). x is clamped to [-104, 89], where the float32 results are -1
// and +Inf.
//
// erf: for |x| < 2 the Taylor series 2/sqrt(pi) * sum (-1)**n
// x**(2n+1)/(n!(2n+1)) to n = 33 (terms below 1e-18); for 2 <= |x| <= 6
// erf = 1 - erfc with erfc from its continued fraction of depth 24
// (relative error below 1e-10 of a value below 5e-3); |x| is clamped to 6,
// where erf is 1 in float32 (and float64).

const (
	log1pF32 = "gojit.log1pf"
	expm1F32 = "gojit.expm1f"
	erfF32   = "gojit.erff"
)

// unaryMore lowers log1p, expm1 and erf on a float x of dtype dt.
func (f *fn) unaryMore(op ir.Op, dt ir.DType, x string) string {
	name := map[ir.Op]string{ir.OpLog1p: "log1p", ir.OpExpm1: "expm1", ir.OpErf: "erf"}[op]
	if dt == ir.Float64 {
		return f.call("double", name, []string{"double"}, x)
	}
	f.defineVecMath()
	f.heavy = true
	f.declare("llvm.fabs.f64", "declare double @llvm.fabs.f64(double)")
	def := map[ir.Op]func() string{ir.OpLog1p: log1pF32Def, ir.OpExpm1: expm1F32Def, ir.OpErf: erfF32Def}[op]
	fname := "gojit." + name + "f"
	f.declare(fname, def())
	return f.ins("call float @%s(float %s)", fname, x)
}

// finish rounds the double y to float32 and passes a NaN x through.
func finishF32(s *straight, y string) string {
	r := s.ins("fptrunc double %s to float", y)
	nan := s.ins("fcmp uno float %%x, %%x")
	return s.ins("select i1 %s, float %%x, float %s", nan, r)
}

func wrapF32(name string, s *straight, res string) string {
	return fmt.Sprintf("define internal float @%s(float %%x) %s {\nentry:\n%s  ret float %s\n}\n", name, vecAttrs, s.b.String(), res)
}

// horner evaluates sum c[k]*t**k.
func horner(s *straight, c []float64, t string) string {
	p := dlit(c[len(c)-1])
	for k := len(c) - 2; k >= 0; k-- {
		m := s.ins("fmul double %s, %s", p, t)
		p = s.ins("fadd double %s, %s", m, dlit(c[k]))
	}
	return p
}

func log1pF32Def() string {
	var s straight
	d := s.ins("fpext float %%x to double")
	u := s.ins("fadd double %s, %s", d, dlit(1))
	um1 := s.ins("fsub double %s, %s", u, dlit(1))
	c := s.ins("fsub double %s, %s", d, um1)
	bits := s.ins("bitcast double %s to i64", u)
	ex := s.ins("lshr i64 %s, 52", bits)
	e0 := s.ins("sub nsw i64 %s, 1023", ex)
	mb := s.ins("and i64 %s, 4503599627370495", bits)  // the 52 mantissa bits
	mb1 := s.ins("or i64 %s, 4607182418800017408", mb) // exponent of 1.0
	m0 := s.ins("bitcast i64 %s to double", mb1)       // u / 2**e0, in [1, 2)
	big := s.ins("fcmp ogt double %s, %s", m0, dlit(math.Sqrt2))
	mh := s.ins("fmul double %s, %s", m0, dlit(0.5))
	m := s.ins("select i1 %s, double %s, double %s", big, mh, m0)
	e1 := s.ins("zext i1 %s to i64", big)
	e := s.ins("add nsw i64 %s, %s", e0, e1)
	ef := s.ins("sitofp i64 %s to double", e)
	num := s.ins("fsub double %s, %s", m, dlit(1))
	den := s.ins("fadd double %s, %s", m, dlit(1))
	sv := s.ins("fdiv double %s, %s", num, den)
	s2 := s.ins("fmul double %s, %s", sv, sv)
	coef := make([]float64, 12) // 2/(2k+1)
	for k := range coef {
		coef[k] = 2 / float64(2*k+1)
	}
	p := horner(&s, coef, s2)
	lm := s.ins("fmul double %s, %s", sv, p)
	le := s.ins("fmul double %s, %s", ef, dlit(math.Ln2))
	lu := s.ins("fadd double %s, %s", le, lm)
	cu := s.ins("fdiv double %s, %s", c, u)
	r0 := s.ins("fadd double %s, %s", lu, cu)
	// Specials: u = 0 (x = -1) is -Inf, x < -1 NaN, x = +Inf +Inf.
	zero := s.ins("fcmp oeq double %s, %s", u, dlit(0))
	r1 := s.ins("select i1 %s, double %s, double %s", zero, dlit(math.Inf(-1)), r0)
	neg := s.ins("fcmp olt double %s, %s", d, dlit(-1))
	r2 := s.ins("select i1 %s, double %s, double %s", neg, dlit(math.NaN()), r1)
	inf := s.ins("fcmp oeq double %s, %s", d, dlit(math.Inf(1)))
	r3 := s.ins("select i1 %s, double %s, double %s", inf, d, r2)
	return wrapF32(log1pF32, &s, finishF32(&s, r3))
}

func expm1F32Def() string {
	var s straight
	d := s.ins("fpext float %%x to double")
	lo := s.ins("call double @llvm.maxnum.f64(double %s, double %s)", d, dlit(-104))
	cl := s.ins("call double @llvm.minnum.f64(double %s, double %s)", lo, dlit(89))
	e := s.ins("call double @%s(double %s)", expCore, cl)
	big := s.ins("fsub double %s, %s", e, dlit(1))
	// x*(1 + x/2 + x**2/6 + ... + x**5/720)
	coef := []float64{1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720}
	p := horner(&s, coef, d)
	small := s.ins("fmul double %s, %s", d, p)
	a := s.ins("call double @llvm.fabs.f64(double %s)", d)
	isSmall := s.ins("fcmp olt double %s, %s", a, dlit(1e-3))
	y := s.ins("select i1 %s, double %s, double %s", isSmall, small, big)
	return wrapF32(expm1F32, &s, finishF32(&s, y))
}

func erfF32Def() string {
	var s straight
	d := s.ins("fpext float %%x to double")
	a0 := s.ins("call double @llvm.fabs.f64(double %s)", d)
	a := s.ins("call double @llvm.minnum.f64(double %s, double %s)", a0, dlit(6))
	q := s.ins("fmul double %s, %s", a, a)
	// Taylor: a * sum c_n q**n, c_n = 2/sqrt(pi) * (-1)**n / (n! (2n+1)).
	coef := make([]float64, 34)
	fact := 1.0
	for n := range coef {
		if n > 0 {
			fact *= float64(n)
		}
		c := 2 / math.Sqrt(math.Pi) / (fact * float64(2*n+1))
		if n%2 == 1 {
			c = -c
		}
		coef[n] = c
	}
	p := horner(&s, coef, q)
	small := s.ins("fmul double %s, %s", a, p)
	// Continued fraction: erfc(a) = exp(-a**2) / (sqrt(pi) * F),
	// F = a + (1/2)/(a + 1/(a + (3/2)/(a + ...))).
	fr := a
	for k := 24; k >= 1; k-- {
		t := s.ins("fdiv double %s, %s", dlit(float64(k)/2), fr)
		fr = s.ins("fadd double %s, %s", a, t)
	}
	nq := s.ins("fneg double %s", q)
	ex := s.ins("call double @%s(double %s)", expCore, nq)
	den := s.ins("fmul double %s, %s", fr, dlit(math.Sqrt(math.Pi)))
	erfc := s.ins("fdiv double %s, %s", ex, den)
	large := s.ins("fsub double %s, %s", dlit(1), erfc)
	isSmall := s.ins("fcmp olt double %s, %s", a, dlit(2))
	y := s.ins("select i1 %s, double %s, double %s", isSmall, small, large)
	sy := s.ins("call double @llvm.copysign.f64(double %s, double %s)", y, d)
	return wrapF32(erfF32, &s, finishF32(&s, sy))
}

// mod is the remainder with the divisor's sign (interp.modInt and
// modFloat define it): x mod 0 is 0 for integers (the divisor is made safe
// first, as in intDiv, since srem/urem by 0 and MinInt srem -1 are
// undefined), NaN for floats; a zero float result takes y's sign.
func (f *fn) mod(dt ir.DType, x, y string) string {
	t := regType(dt)
	if dt.IsFloat() {
		r := f.ins("frem %s %s, %s", t, x, y)
		rneg := f.ins("fcmp olt %s %s, %s", t, r, floatLit(dt, 0))
		yneg := f.ins("fcmp olt %s %s, %s", t, y, floatLit(dt, 0))
		differ := f.ins("xor i1 %s, %s", rneg, yneg)
		nz := f.ins("fcmp une %s %s, %s", t, r, floatLit(dt, 0))
		fix := f.ins("and i1 %s, %s", nz, differ)
		ry := f.ins("fadd %s %s, %s", t, r, y)
		r1 := f.ins("select i1 %s, %s %s, %s %s", fix, t, ry, t, r)
		z := f.intrinsic2("copysign", dt, floatLit(dt, 0), y)
		isz := f.ins("fcmp oeq %s %s, %s", t, r, floatLit(dt, 0))
		return f.ins("select i1 %s, %s %s, %s %s", isz, t, z, t, r1)
	}
	zero := f.ins("icmp eq %s %s, 0", t, y)
	if dt == ir.Uint8 {
		safe := f.ins("select i1 %s, %s 1, %s %s", zero, t, t, y)
		return f.ins("urem %s %s, %s", t, x, safe)
	}
	m1 := f.ins("icmp eq %s %s, -1", t, y)
	bad := f.ins("or i1 %s, %s", zero, m1)
	safe := f.ins("select i1 %s, %s 1, %s %s", bad, t, t, y)
	r := f.ins("srem %s %s, %s", t, x, safe)
	nz := f.ins("icmp ne %s %s, 0", t, r)
	xr := f.ins("xor %s %s, %s", t, r, y)
	neg := f.ins("icmp slt %s %s, 0", t, xr)
	fix := f.ins("and i1 %s, %s", nz, neg)
	ry := f.ins("add %s %s, %s", t, r, y)
	return f.ins("select i1 %s, %s %s, %s %s", fix, t, ry, t, r)
}
