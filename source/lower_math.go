package source

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/gojit/gojit/internal/host"
)

// global returns the LLVM global holding g, a package-level array of
// numbers initialized by a constant composite literal (math's tables of
// coefficients).
func (m *module) global(g *ssa.Global) string {
	name := fmt.Sprintf("@\"%s.%s\"", g.Pkg.Pkg.Path(), g.Name())
	if _, ok := m.decls[name]; ok {
		return name
	}
	at, ok := g.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	ms := m.mathSrc()
	var lit *ast.CompositeLit
	if ok && g.Pkg == ms.pkg {
		lit, _ = ms.init[g.Name()].(*ast.CompositeLit)
	}
	et := ""
	if ok {
		et = llType(at.Elem())
	}
	if lit == nil || et == "" || int64(len(lit.Elts)) != at.Len() {
		m.fail(g.Pos(), "package-level variable %s: not supported in compiled functions", g.Name())
	}
	var vals []string
	for _, e := range lit.Elts {
		tv, ok := ms.info.Types[e]
		if !ok || tv.Value == nil {
			m.fail(g.Pos(), "package-level variable %s: not supported in compiled functions", g.Name())
		}
		var v string
		if isFloat(at.Elem()) {
			f, _ := constant.Float64Val(constant.ToFloat(tv.Value))
			v = floatLit(f, et)
		} else {
			u, _ := constant.Uint64Val(constant.ToInt(tv.Value))
			v = fmt.Sprint(int64(u))
			if isUnsigned(at.Elem()) {
				v = fmt.Sprint(truncSigned(int64(u), bitsOf(at.Elem())))
			} else if i, ok := constant.Int64Val(constant.ToInt(tv.Value)); ok {
				v = fmt.Sprint(i)
			}
		}
		vals = append(vals, et+" "+v)
	}
	m.declare(name, fmt.Sprintf("%s = internal constant [%d x %s] [%s]", name, at.Len(), et, strings.Join(vals, ", ")))
	return name
}

// bitsCall lowers the math/bits functions Go's math source uses.
func (fl *funcLower) bitsCall(in *ssa.Call, name string, args []ssa.Value) string {
	a := func(i int) string { return fl.val(args[i]) }
	switch name {
	case "Mul64":
		x := fl.def("zext i64 %s to i128", a(0))
		y := fl.def("zext i64 %s to i128", a(1))
		p := fl.def("mul i128 %s, %s", x, y)
		hi := fl.def("trunc i128 %s to i64", fl.def("lshr i128 %s, 64", p))
		lo := fl.def("trunc i128 %s to i64", p)
		r := fl.def("insertvalue {i64, i64} poison, i64 %s, 0", hi)
		return fl.def("insertvalue {i64, i64} %s, i64 %s, 1", r, lo)
	case "Add64":
		s := fl.def("add i64 %s, %s", a(0), a(1))
		s = fl.def("add i64 %s, %s", s, a(2))
		// carryOut = ((x & y) | ((x | y) &^ sum)) >> 63
		and := fl.def("and i64 %s, %s", a(0), a(1))
		or := fl.def("or i64 %s, %s", a(0), a(1))
		ns := fl.def("xor i64 %s, -1", s)
		c := fl.def("lshr i64 %s, 63", fl.def("or i64 %s, %s", and, fl.def("and i64 %s, %s", or, ns)))
		r := fl.def("insertvalue {i64, i64} poison, i64 %s, 0", s)
		return fl.def("insertvalue {i64, i64} %s, i64 %s, 1", r, c)
	case "Sub64":
		d := fl.def("sub i64 %s, %s", a(0), a(1))
		d = fl.def("sub i64 %s, %s", d, a(2))
		// borrowOut = ((^x & y) | (^(x ^ y) & diff)) >> 63
		nx := fl.def("xor i64 %s, -1", a(0))
		t1 := fl.def("and i64 %s, %s", nx, a(1))
		t2 := fl.def("xor i64 %s, -1", fl.def("xor i64 %s, %s", a(0), a(1)))
		b := fl.def("lshr i64 %s, 63", fl.def("or i64 %s, %s", t1, fl.def("and i64 %s, %s", t2, d)))
		r := fl.def("insertvalue {i64, i64} poison, i64 %s, 0", d)
		return fl.def("insertvalue {i64, i64} %s, i64 %s, 1", r, b)
	case "LeadingZeros64":
		fl.m.declare("llvm.ctlz.i64", "declare i64 @llvm.ctlz.i64(i64, i1)")
		return fl.def("call i64 @llvm.ctlz.i64(i64 %s, i1 false)", a(0))
	}
	fl.fail(in.Pos(), "math/bits.%s: not supported in compiled functions", name)
	return ""
}

// preludeSrc holds Go ports of math functions that Go implements in
// assembly on amd64 with an algorithm other than its pure-Go twin's, so
// that compiled code computes exactly what Go does. Exp is
// math/exp_amd64.s, instruction for instruction (with the FMA path when
// the host has AVX and FMA, as Go chooses at run time). USEFMA is
// replaced by true or false for the host.
const preludeSrc = `package prelude

import "math"

const useFMA = USEFMA

func exp(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920
		ln2u     = 0.69314718055966295651160180568695068359375
		ln2l     = 0.28235290563031577122588448175013436025525412068e-12
		overflow = 7.09782712893384e+02
	)
	bx := math.Float64bits(x)
	if bx&^(1<<63) >= 0x7FF0000000000000 {
		if bx == 0xFFF0000000000000 {
			return 0
		}
		return x
	}
	if x > overflow {
		return math.Inf(1)
	}
	e := cvtsd2sl(log2e * x)
	fe := float64(e)
	x0 := x
	var x1 float64
	if useFMA {
		x0 = math.FMA(-fe, ln2u, x0)
		x0 = math.FMA(-fe, ln2l, x0)
		x0 *= 0.0625
		x1 = 2.4801587301587301587e-5
		x1 = math.FMA(x1, x0, 1.9841269841269841270e-4)
		x1 = math.FMA(x1, x0, 1.3888888888888888889e-3)
		x1 = math.FMA(x1, x0, 8.3333333333333333333e-3)
		x1 = math.FMA(x1, x0, 4.1666666666666666667e-2)
		x1 = math.FMA(x1, x0, 1.6666666666666666667e-1)
		x1 = math.FMA(x1, x0, 0.5)
		x1 = math.FMA(x1, x0, 1.0)
		x0 *= x1
		for range 3 {
			x1 = x0 + 2
			x0 *= x1
		}
		x1 = x0 + 2
		x0 = math.FMA(x0, x1, 1.0)
	} else {
		t := ln2u * fe
		x0 -= t
		t = ln2l * fe
		x0 -= t
		x0 *= 0.0625
		x1 = 2.4801587301587301587e-5 * x0
		x1 += 1.9841269841269841270e-4
		x1 *= x0
		x1 += 1.3888888888888888889e-3
		x1 *= x0
		x1 += 8.3333333333333333333e-3
		x1 *= x0
		x1 += 4.1666666666666666667e-2
		x1 *= x0
		x1 += 1.6666666666666666667e-1
		x1 *= x0
		x1 += 0.5
		x1 *= x0
		x1 += 1.0
		x0 *= x1
		for range 4 {
			x1 = 2 + x0
			x0 *= x1
		}
		x0 += 1.0
	}
	e += 0x3FF
	if e <= 0 {
		if e < -52 {
			return 0
		}
		e += 0x3FE
		x0 *= math.Float64frombits(uint64(uint32(e)) << 52)
		e = 1
	} else if e >= 0x7FF {
		return math.Inf(1)
	}
	return x0 * math.Float64frombits(uint64(uint32(e))<<52)
}

// log is math/log_amd64.s, which (unlike Go's pure-Go log) does not
// normalize subnormal inputs.
func log(x float64) float64 {
	const (
		hSqrt2 = 7.07106781186547524401e-01
		ln2Hi  = 6.93147180369123816490e-01
		ln2Lo  = 1.90821492927058770002e-10
		l1     = 6.666666666666735130e-01
		l2     = 3.999999999940941908e-01
		l3     = 2.857142874366239149e-01
		l4     = 2.222219843214978396e-01
		l5     = 1.818357216161805012e-01
		l6     = 1.531383769920937332e-01
		l7     = 1.479819860511658591e-01
	)
	bx := math.Float64bits(x)
	if bx&^(1<<63) == 0 {
		return math.Inf(-1)
	}
	if int64(bx) < 0 {
		return math.NaN()
	}
	if bx >= 0x7FF0000000000000 {
		return x
	}
	f1 := math.Float64frombits(bx&0x000FFFFFFFFFFFFF | 0x3FE0000000000000)
	k := float64(int32(uint32(bx>>52)&0x7FF) - 0x3FE)
	t := 0.0
	if !(hSqrt2 < f1) {
		t = 1
	}
	k -= t
	f1 *= t + 1
	f := f1 - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (((l7*s4+l5)*s4+l3)*s4 + l1)
	t2 := s4 * ((l6*s4+l4)*s4 + l2)
	r := t1 + t2
	hfsq := 0.5 * f * f
	a := s * (r + hfsq)
	a += ln2Lo * k
	b := hfsq - a
	b -= f
	return k*ln2Hi - b
}

// hypot is math/hypot_amd64.s.
func hypot(p, q float64) float64 {
	pb := math.Float64bits(p) &^ (1 << 63)
	qb := math.Float64bits(q) &^ (1 << 63)
	if pb >= 0x7FF0000000000000 || qb >= 0x7FF0000000000000 {
		if pb == 0x7FF0000000000000 || qb == 0x7FF0000000000000 {
			return math.Inf(1)
		}
		return math.NaN()
	}
	if pb|qb == 0 {
		return 0
	}
	x0, x1 := math.Float64frombits(pb), math.Float64frombits(qb)
	hi, lo := maxsd(x0, x1), minsd(x1, x0)
	lo /= hi
	lo *= lo
	lo += 1
	return hi * math.Sqrt(lo)
}

// maxsd and minsd are MAXSD and MINSD: the second operand when the
// comparison fails (neither is NaN here).
func maxsd(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

func minsd(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

// cvtsd2sl is CVTSD2SL: round to nearest even, the integer indefinite
// value (MinInt32) when out of range or NaN.
func cvtsd2sl(x float64) int32 {
	return int32(math.RoundToEven(x))
}
`

type mathImporter struct{ math *types.Package }

func (m mathImporter) Import(path string) (*types.Package, error) {
	if path == "math" {
		return m.math, nil
	}
	return nil, fmt.Errorf("prelude imports only math, not %s", path)
}

// hostHasFMA is Go's useFMA for Exp on amd64: AVX and FMA.
func hostHasFMA() bool {
	cpu := host.HostCPU()
	return cpu.Known() && cpu.Has("avx") && cpu.Has("fma")
}
