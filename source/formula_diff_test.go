package source

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gojit/gojit"
)

// The differential tests evaluate every operator and function of the
// formula language on random columns of every dtype, special values
// included, and compare each row with the same expression written as a
// plain Go function of the row. Integer and bool results, and float
// results of operations the engine computes exactly (arithmetic,
// comparisons, conversions, rounding, Abs, Sqrt, min and max), must be
// identical, signed zeros included; transcendental functions may differ
// from Go's math package by a few units in the last place (diffCase.ulps,
// the tolerance docs/formulas.md states).

// fRow is one row of the test table's columns.
type fRow struct {
	a, b float64
	x, y float32
	i, j int32
	m, n int64
	u, v uint8
	p, q bool
}

var fDiffSchema = map[string]gojit.DType{
	"a": gojit.Float64, "b": gojit.Float64, "x": gojit.Float32, "y": gojit.Float32,
	"i": gojit.Int32, "j": gojit.Int32, "m": gojit.Int64, "n": gojit.Int64,
	"u": gojit.Uint8, "v": gojit.Uint8, "p": gojit.Bool, "q": gojit.Bool,
}

type fDiffCase struct {
	expr string
	ulps uint64 // 0: exact
	ref  func(r fRow) any
}

// Tolerances where Go's math package is the less accurate side. The
// engine calls the C library's pow, sin and cos, which were correctly
// rounded wherever we checked them against 60-digit decimal arithmetic;
// Go's Pow loses up to a few hundred ulps when the result's exponent is
// large (1.8162987079165824e+151 is right for 60.828645099981784 ** 84.78140064606454,
// Go says ...578e+151), and its Sin and Cos about ten at 3e38.
const (
	fPowULPs  = 1024
	fTrigULPs = 16
)

// logExact is math.Log, corrected for subnormal arguments: on amd64 Go's
// assembly Log returns -709.0850815488945 for 1e-310, whose logarithm is
// -713.8013788281542 (the engine's answer).
func fLogExact(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// powExact is math.Pow, corrected for subnormal bases, where Go's Pow is
// far off (1e-310 ** 0.7839420057732958 is 9.5055710045469e-244; Go
// says 3.4e-244): the base is scaled into the normal range first.
func fPowExact(x, y float64) float64 {
	if x > 0 && x < 0x1p-1022 && !math.IsInf(y, 0) && !math.IsNaN(y) && y != 0 {
		return math.Pow(x*0x1p54, y) * math.Pow(2, -54*y)
	}
	return math.Pow(x, y)
}

// Go's integer division, with the formula language's rule for a zero
// divisor: x/0 == 0, so x%0 == x keeps x == (x/y)*y + x%y.
func fDivI[T int32 | int64 | uint8](a, b T) T {
	if b == 0 {
		return 0
	}
	return a / b
}

func fRemI[T int32 | int64 | uint8](a, b T) T {
	if b == 0 {
		return a
	}
	return a % b
}

// satInt converts like the engine's cast: truncate toward zero, saturate,
// NaN to 0 (Go leaves out-of-range conversions implementation-defined).
func fSatInt[T int32 | int64 | uint8](f float64, lo, hi float64) T {
	switch {
	case f != f:
		return 0
	case f <= lo:
		return T(lo)
	case f >= hi:
		if hi == math.MaxInt64 {
			var top int64 = math.MaxInt64
			return T(top) // T is int64 here
		}
		return T(hi)
	}
	return T(f)
}

var fDiffCases = []fDiffCase{
	// float64 arithmetic and comparisons
	{"a + b", 0, func(r fRow) any { return r.a + r.b }},
	{"a - b", 0, func(r fRow) any { return r.a - r.b }},
	{"a * b", 0, func(r fRow) any { return r.a * r.b }},
	{"a / b", 0, func(r fRow) any { return r.a / r.b }},
	{"-a", 0, func(r fRow) any { return -r.a }},
	{"+a", 0, func(r fRow) any { return +r.a }},
	{"2*a - b/3 + 1.5", 0, func(r fRow) any { return 2*r.a - r.b/3 + 1.5 }},
	{"a*b*(1-a) + b*a - 7", 0, func(r fRow) any { return r.a*r.b*(1-r.a) + r.b*r.a - 7 }},
	{"a < b", 0, func(r fRow) any { return r.a < r.b }},
	{"a <= b", 0, func(r fRow) any { return r.a <= r.b }},
	{"a > b", 0, func(r fRow) any { return r.a > r.b }},
	{"a >= b", 0, func(r fRow) any { return r.a >= r.b }},
	{"a == b", 0, func(r fRow) any { return r.a == r.b }},
	{"a != b", 0, func(r fRow) any { return r.a != r.b }},
	{"a * math.Pi", 0, func(r fRow) any { return r.a * math.Pi }},
	// math functions, float64
	{"math.Abs(a)", 0, func(r fRow) any { return math.Abs(r.a) }},
	{"math.Sqrt(a)", 0, func(r fRow) any { return math.Sqrt(r.a) }},
	{"math.Floor(a)", 0, func(r fRow) any { return math.Floor(r.a) }},
	{"math.Ceil(a)", 0, func(r fRow) any { return math.Ceil(r.a) }},
	{"math.Trunc(a)", 0, func(r fRow) any { return math.Trunc(r.a) }},
	{"math.Round(a)", 0, func(r fRow) any { return math.Round(r.a) }},
	{"math.RoundToEven(a)", 0, func(r fRow) any { return math.RoundToEven(r.a) }},
	{"math.Max(a, b)", 0, func(r fRow) any { return math.Max(r.a, r.b) }},
	{"math.Min(a, b)", 0, func(r fRow) any { return math.Min(r.a, r.b) }},
	{"max(a, b)", 0, func(r fRow) any { return max(r.a, r.b) }},
	{"min(a, b, 0.5)", 0, func(r fRow) any { return min(r.a, r.b, 0.5) }},
	{"math.IsNaN(a)", 0, func(r fRow) any { return math.IsNaN(r.a) }},
	{"math.IsInf(a, 0)", 0, func(r fRow) any { return math.IsInf(r.a, 0) }},
	{"math.IsInf(a, 1)", 0, func(r fRow) any { return math.IsInf(r.a, 1) }},
	{"math.IsInf(a, -1)", 0, func(r fRow) any { return math.IsInf(r.a, -1) }},
	{"math.Exp(a)", 2, func(r fRow) any { return math.Exp(r.a) }},
	{"math.Log(a)", 2, func(r fRow) any { return fLogExact(r.a) }},
	{"math.Log1p(a)", 2, func(r fRow) any { return math.Log1p(r.a) }},
	{"math.Expm1(a)", 2, func(r fRow) any { return math.Expm1(r.a) }},
	{"math.Pow(a, b)", fPowULPs, func(r fRow) any { return fPowExact(r.a, r.b) }},
	{"math.Sin(a)", fTrigULPs, func(r fRow) any { return math.Sin(r.a) }},
	{"math.Cos(a)", fTrigULPs, func(r fRow) any { return math.Cos(r.a) }},
	{"math.Tanh(a)", 2, func(r fRow) any { return math.Tanh(r.a) }},
	{"math.Erf(a)", 2, func(r fRow) any { return math.Erf(r.a) }},
	// where and logic
	{"where(a > b, a, b)", 0, func(r fRow) any {
		if r.a > r.b {
			return r.a
		}
		return r.b
	}},
	{"where(p, a, 0)", 0, func(r fRow) any {
		if r.p {
			return r.a
		}
		return 0.0
	}},
	{"where(a > 0, 1, 2)", 0, func(r fRow) any {
		if r.a > 0 {
			return int64(1)
		}
		return int64(2)
	}},
	{"a + where(false, b, 1.0)", 0, func(r fRow) any { return r.a + 1.0 }},
	{"p && q", 0, func(r fRow) any { return r.p && r.q }},
	{"p || q", 0, func(r fRow) any { return r.p || r.q }},
	{"!p", 0, func(r fRow) any { return !r.p }},
	{"p == q", 0, func(r fRow) any { return r.p == r.q }},
	{"p != q", 0, func(r fRow) any { return r.p != r.q }},
	{"!(a < b) || p && m > n", 0, func(r fRow) any { return !(r.a < r.b) || r.p && r.m > r.n }},
	{"where(p, q, !q)", 0, func(r fRow) any {
		if r.p {
			return r.q
		}
		return !r.q
	}},
	// float32
	{"x + y", 0, func(r fRow) any { return r.x + r.y }},
	{"x*y - 1", 0, func(r fRow) any { return r.x*r.y - 1 }},
	{"x / y", 0, func(r fRow) any { return r.x / r.y }},
	{"x < y", 0, func(r fRow) any { return r.x < r.y }},
	{"-x", 0, func(r fRow) any { return -r.x }},
	{"math.Sqrt(x)", 0, func(r fRow) any { return float32(math.Sqrt(float64(r.x))) }},
	{"math.Abs(x)", 0, func(r fRow) any { return float32(math.Abs(float64(r.x))) }},
	{"math.Round(x)", 0, func(r fRow) any { return float32(math.Round(float64(r.x))) }},
	{"math.Exp(x)", 2, func(r fRow) any { return float32(math.Exp(float64(r.x))) }},
	{"math.Log(x)", 2, func(r fRow) any { return float32(fLogExact(float64(r.x))) }},
	{"max(x, y)", 0, func(r fRow) any { return max(r.x, r.y) }},
	{"where(q, x, -y)", 0, func(r fRow) any {
		if r.q {
			return r.x
		}
		return -r.y
	}},
	{"float64(x) * a", 0, func(r fRow) any { return float64(r.x) * r.a }},
	{"float32(a) + x", 0, func(r fRow) any { return float32(r.a) + r.x }},
	// int32
	{"i + j", 0, func(r fRow) any { return r.i + r.j }},
	{"i - j", 0, func(r fRow) any { return r.i - r.j }},
	{"i * j", 0, func(r fRow) any { return r.i * r.j }},
	{"i / j", 0, func(r fRow) any { return fDivI(r.i, r.j) }},
	{"i % j", 0, func(r fRow) any { return fRemI(r.i, r.j) }},
	{"-i", 0, func(r fRow) any { return -r.i }},
	{"i < j", 0, func(r fRow) any { return r.i < r.j }},
	{"i == j", 0, func(r fRow) any { return r.i == r.j }},
	{"max(i, j)", 0, func(r fRow) any { return max(r.i, r.j) }},
	{"min(i, 3)", 0, func(r fRow) any { return min(r.i, 3) }},
	{"i % 7", 0, func(r fRow) any { return r.i % 7 }},
	{"float64(i) / 2", 0, func(r fRow) any { return float64(r.i) / 2 }},
	// int64
	{"m + n", 0, func(r fRow) any { return r.m + r.n }},
	{"m * n", 0, func(r fRow) any { return r.m * r.n }},
	{"m / n", 0, func(r fRow) any { return fDivI(r.m, r.n) }},
	{"m % n", 0, func(r fRow) any { return fRemI(r.m, r.n) }},
	{"m - n*2", 0, func(r fRow) any { return r.m - r.n*2 }},
	{"m >= n", 0, func(r fRow) any { return r.m >= r.n }},
	{"int64(u) * n", 0, func(r fRow) any { return int64(r.u) * r.n }},
	// uint8
	{"u + v", 0, func(r fRow) any { return r.u + r.v }},
	{"u - v", 0, func(r fRow) any { return r.u - r.v }},
	{"u * v", 0, func(r fRow) any { return r.u * r.v }},
	{"u / v", 0, func(r fRow) any { return fDivI(r.u, r.v) }},
	{"u % v", 0, func(r fRow) any { return fRemI(r.u, r.v) }},
	{"-u", 0, func(r fRow) any { return -r.u }},
	{"u < v", 0, func(r fRow) any { return r.u < r.v }},
	// conversions
	{"float64(m)", 0, func(r fRow) any { return float64(r.m) }},
	{"float32(m)", 0, func(r fRow) any { return float32(r.m) }},
	{"float32(a)", 0, func(r fRow) any { return float32(r.a) }},
	{"int32(m)", 0, func(r fRow) any { return int32(r.m) }},
	{"uint8(i)", 0, func(r fRow) any { return uint8(r.i) }},
	{"int64(i)", 0, func(r fRow) any { return int64(r.i) }},
	{"int32(a)", 0, func(r fRow) any { return fSatInt[int32](r.a, math.MinInt32, math.MaxInt32) }},
	{"int64(x)", 0, func(r fRow) any { return fSatInt[int64](float64(r.x), math.MinInt64, math.MaxInt64) }},
	{"uint8(a)", 0, func(r fRow) any { return fSatInt[uint8](r.a, 0, math.MaxUint8) }},
}

var fFloatSpecials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.5, -0.5, 2.5, -2.5, 1e300, -1e300, 1e-310, 3e38, -3e38}

var fIntSpecials = []int64{0, 1, -1, math.MinInt32, math.MaxInt32, math.MinInt64, math.MaxInt64}

func fRandFloat(r *rand.Rand) float64 {
	if r.IntN(5) == 0 {
		return fFloatSpecials[r.IntN(len(fFloatSpecials))]
	}
	return (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(7)-3))
}

func fRandInt(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return fIntSpecials[r.IntN(len(fIntSpecials))]
	case 1:
		return int64(r.Uint64())
	}
	return int64(r.IntN(101) - 50)
}

func fRandRows(n int, seed uint64) []fRow {
	r := rand.New(rand.NewPCG(seed, 14))
	rows := make([]fRow, n)
	for k := range rows {
		rows[k] = fRow{
			a: fRandFloat(r), b: fRandFloat(r), x: float32(fRandFloat(r)), y: float32(fRandFloat(r)),
			i: int32(fRandInt(r)), j: int32(fRandInt(r)), m: fRandInt(r), n: fRandInt(r),
			u: uint8(fRandInt(r)), v: uint8(fRandInt(r)), p: r.IntN(2) == 0, q: r.IntN(2) == 0,
		}
	}
	return rows
}

func fRowColumns(rows []fRow) map[string]*gojit.Array {
	n := len(rows)
	a, b := make([]float64, n), make([]float64, n)
	x, y := make([]float32, n), make([]float32, n)
	i, j := make([]int32, n), make([]int32, n)
	m, nn := make([]int64, n), make([]int64, n)
	u, v := make([]uint8, n), make([]uint8, n)
	p, q := make([]bool, n), make([]bool, n)
	for k, r := range rows {
		a[k], b[k], x[k], y[k], i[k], j[k], m[k], nn[k], u[k], v[k], p[k], q[k] = r.a, r.b, r.x, r.y, r.i, r.j, r.m, r.n, r.u, r.v, r.p, r.q
	}
	return map[string]*gojit.Array{
		"a": gojit.FromFloat64(a), "b": gojit.FromFloat64(b), "x": gojit.FromFloat32(x), "y": gojit.FromFloat32(y),
		"i": gojit.FromInt32(i), "j": gojit.FromInt32(j), "m": gojit.FromInt64(m), "n": gojit.FromInt64(nn),
		"u": gojit.FromUint8(u), "v": gojit.FromUint8(v), "p": gojit.FromBool(p), "q": gojit.FromBool(q),
	}
}

// ulpDiff is how many representable float64 values lie between x and y
// (0 for equal bits; NaNs of any payload are equal).
func fULPDiff(x, y float64) uint64 {
	if math.IsNaN(x) && math.IsNaN(y) {
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.MaxUint64
	}
	if x == y && math.Signbit(x) != math.Signbit(y) {
		return 1 // +0 and -0: different, and exact cases must not differ
	}
	key := func(f float64) int64 {
		b := int64(math.Float64bits(f))
		if b < 0 {
			b = math.MinInt64 - b
		}
		return b
	}
	d := key(x) - key(y)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

func fULPDiff32(x, y float32) uint64 {
	if x != x && y != y {
		return 0
	}
	if x != x || y != y {
		return math.MaxUint64
	}
	if x == y && math.Signbit(float64(x)) != math.Signbit(float64(y)) {
		return 1
	}
	key := func(f float32) int64 {
		b := int64(int32(math.Float32bits(f)))
		if b < 0 {
			b = math.MinInt32 - b
		}
		return b
	}
	d := key(x) - key(y)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// checkRows compares out, row by row, with the case's Go function.
func fCheckRows(t *testing.T, c fDiffCase, rows []fRow, out *gojit.Array) {
	t.Helper()
	bad := 0
	for k, r := range rows {
		want := c.ref(r)
		var got any
		var d uint64
		switch w := want.(type) {
		case float64:
			g := out.Float64()[k]
			got, d = g, fULPDiff(g, w)
		case float32:
			g := out.Float32()[k]
			got, d = g, fULPDiff32(g, w)
		case int32:
			got = out.Int32()[k]
		case int64:
			got = out.Int64()[k]
		case uint8:
			got = out.Uint8()[k]
		case bool:
			got = out.Bool()[k]
		default:
			t.Fatalf("%s: reference returned %T", c.expr, want)
		}
		switch want.(type) {
		case float64, float32:
			if d <= c.ulps {
				continue
			}
		default:
			if got == want {
				continue
			}
		}
		if bad++; bad <= 5 {
			t.Errorf("%s: row %d %+v: got %v, want %v (%d ulps, tolerance %d)", c.expr, k, r, got, want, d, c.ulps)
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d rows differ in all", c.expr, bad)
	}
}

func TestFormulaDifferential(t *testing.T) {
	// 100,003 rows: large enough for the engine to split the loop across
	// threads, odd so that vector loops have a remainder; 7 rows take the
	// short path.
	sizes := []int{7, 100_003}
	if testing.Short() {
		sizes = []int{7, 5_000}
	}
	for _, n := range sizes {
		rows := fRandRows(n, uint64(n))
		cols := fRowColumns(rows)
		for _, c := range fDiffCases {
			f, err := CompileFormula(c.expr, fDiffSchema)
			if err != nil {
				t.Errorf("%s: %v", c.expr, err)
				continue
			}
			out, err := f.Eval(cols)
			if err != nil {
				t.Errorf("%s: Eval: %v", c.expr, err)
				continue
			}
			if out.Size() != n {
				t.Errorf("%s: %d rows out for %d in", c.expr, out.Size(), n)
				continue
			}
			fCheckRows(t, c, rows, out)
		}
	}
}

// TestFormulaEmptyColumns evaluates formulas on zero rows.
func TestFormulaEmptyColumns(t *testing.T) {
	cols := fRowColumns(nil)
	for _, c := range fDiffCases[:10] {
		f, err := CompileFormula(c.expr, fDiffSchema)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		out, err := f.Eval(cols)
		if err != nil {
			t.Fatalf("%s: Eval on 0 rows: %v", c.expr, err)
		}
		if out.Size() != 0 || out.DType() != f.DType() {
			t.Errorf("%s: Eval on 0 rows gave %v", c.expr, out)
		}
		if err := f.EvalInto(gojit.New(f.DType(), 0), cols); err != nil {
			t.Errorf("%s: EvalInto on 0 rows: %v", c.expr, err)
		}
	}
}
