package gojit_test

// Differential tests: every op of the public API, for every dtype it
// accepts and a range of broadcast patterns and edge values, is compiled
// twice, once for LLVM (the default) and once for the pure-Go interpreter
// (gojit.WithInterpreter, the reference semantics of internal/interp/doc.go),
// and the two results are compared.
//
// Comparison rules (diffArrays, same32, same64):
//   - bool and integer results must be identical;
//   - float results must have identical bits, or both be NaN (NaN payloads
//     and signs are not specified);
//   - only the transcendental ops (exp, log, sin, cos, tanh, pow, sigmoid)
//     are allowed a difference, of at most transULPs (4) units in the last
//     place of the result dtype: the interpreter rounds Go's math package
//     to the dtype, the compiled code calls the C library, and each is
//     within about one ulp of the true value. Two exceptions, both
//     inaccuracies of Go's math package with tests of their own: float64
//     Pow gets powF64ULPs, and float64 Sin and Cos get no arguments of
//     magnitude 2**29 or more (dodgeHugeTrig). Everything else (add, sub,
//     mul, div, sqrt, rsqrt, max, min, floor, ceil, round, abs, neg,
//     casts, integer reductions, float max/min/prod reductions, integer
//     matmul) must be bit-exact, and so must fused chains of such ops;
//   - float sums and means, which the compiled code reassociates, are
//     compared with the bound of sumBound, and float matmuls, which it
//     computes with fused multiply-adds, with that of matmulBound
//     (diffBounded).
//
// Several ops share one compiled function with many outputs, to keep the
// number of LLVM compilations (about 10 ms each) in the low hundreds; every
// op still gets its own subtest, and when a grouped compilation fails each
// op is compiled alone to find the culprit.

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// transULPs is the tolerance, in units in the last place of the result
// dtype, of the transcendental ops when applied directly to exact inputs.
const transULPs = 4

// powF64ULPs is the tolerance of Pow on Float64 only. The interpreter
// uses Go's math.Pow, which is off by up to ~20 ulps for results near 1 and
// by hundreds of ulps for results far from 1, where the C library's pow is
// correctly rounded: see TestInterpPowF64Accuracy and interp/doc.go.
const powF64ULPs = 1024

// chainULPs is the tolerance of the few fused chains whose only inexact
// step is a transcendental op (softmax): its 1-ulp differences go through a
// sum and a division.
const chainULPs = 16

// sumChainULPs is the tolerance of chains through a reassociated float sum
// of non-negative terms (a softmax denominator, a variance): the sum's
// relative error is at most n*eps_T in any order (sumBound), a few ulps in
// practice, and the division or rsqrt after it keeps that relative error.
const sumChainULPs = 64

var allDTypes = []gojit.DType{gojit.Bool, gojit.Uint8, gojit.Int32, gojit.Int64, gojit.Float32, gojit.Float64}
var numDTypes = []gojit.DType{gojit.Uint8, gojit.Int32, gojit.Int64, gojit.Float32, gojit.Float64}

// ---------------------------------------------------------------------------
// Deterministic inputs.

// prng is splitmix64: tiny, deterministic across Go versions.
type prng struct{ s uint64 }

func newPRNG(seed uint64) *prng { return &prng{s: seed*0x9E3779B97F4A7C15 + 12345} }

func (p *prng) u64() uint64 {
	p.s += 0x9E3779B97F4A7C15
	z := p.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (p *prng) intn(n int) int { return int(p.u64() % uint64(n)) }

func (p *prng) float() float64 { return float64(p.u64()>>11) / (1 << 53) }

var negZero = math.Copysign(0, -1)

// floatEdges are mixed into float inputs.
var floatEdges = []float64{
	0, negZero, math.Inf(1), math.Inf(-1), math.NaN(), -1, 1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5,
	255, 255.5, 256, -129, 127.9, math.MaxInt32, math.MinInt32, 2147483648, -2147483904,
	math.MaxInt64, math.MinInt64, 1e19, -1e19, 1e-40, -1e-45, 3.4e38, -3.4e38, 1e300,
	math.SmallestNonzeroFloat64, 100, -100, 0.1, 88.5, -88.5, 710, 1e7 + 0.5,
}

// intEdges are mixed into integer inputs (wrapped to the dtype).
var intEdges = []int64{
	0, 1, -1, 2, -2, 3, -3, 7, 127, -128, 128, 255, 256, -256,
	math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1,
	math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40),
}

// valueGen produces element values of one array.
type valueGen struct {
	p        *prng
	edgeProb float64
	edges    []int // edge indices still to emit first (edges-first mode)
}

func (v *valueGen) float() float64 {
	if len(v.edges) > 0 {
		e := floatEdges[v.edges[0]%len(floatEdges)]
		v.edges = v.edges[1:]
		return e
	}
	if v.p.float() < v.edgeProb {
		return floatEdges[v.p.intn(len(floatEdges))]
	}
	switch v.p.intn(4) {
	case 0:
		return float64(v.p.intn(21)-10) / 2 // halves: rounding ties
	case 1:
		return float64(v.p.intn(201) - 100)
	default:
		return v.p.float()*20 - 10
	}
}

func (v *valueGen) int() int64 {
	if len(v.edges) > 0 {
		e := intEdges[v.edges[0]%len(intEdges)]
		v.edges = v.edges[1:]
		return e
	}
	if v.p.float() < v.edgeProb {
		return intEdges[v.p.intn(len(intEdges))]
	}
	if v.p.intn(8) == 0 {
		return int64(v.p.u64())
	}
	return int64(v.p.intn(41) - 20)
}

func (v *valueGen) u8() uint8 {
	if len(v.edges) > 0 || v.p.float() < v.edgeProb {
		return uint8(v.int())
	}
	return uint8(v.p.intn(256))
}

// makeArray builds an array of dt and shape from gen.
func makeArray(dt gojit.DType, gen *valueGen, shape []int) *gojit.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if shape == nil {
		shape = []int{}
	}
	switch dt {
	case gojit.Bool:
		s := make([]bool, n)
		for i := range s {
			s[i] = gen.p.intn(2) == 1
		}
		return gojit.FromBool(s, shape...)
	case gojit.Uint8:
		s := make([]uint8, n)
		for i := range s {
			s[i] = gen.u8()
		}
		return gojit.FromUint8(s, shape...)
	case gojit.Int32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(gen.int())
		}
		return gojit.FromInt32(s, shape...)
	case gojit.Int64:
		s := make([]int64, n)
		for i := range s {
			s[i] = gen.int()
		}
		return gojit.FromInt64(s, shape...)
	case gojit.Float32:
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(gen.float())
		}
		return gojit.FromFloat32(s, shape...)
	case gojit.Float64:
		s := make([]float64, n)
		for i := range s {
			s[i] = gen.float()
		}
		return gojit.FromFloat64(s, shape...)
	}
	panic(fmt.Sprintf("dtype %v", dt))
}

// randArray returns pseudo-random data in which a fraction edgeProb of the
// elements are edge values.
func randArray(dt gojit.DType, seed uint64, edgeProb float64, shape ...int) *gojit.Array {
	return makeArray(dt, &valueGen{p: newPRNG(seed), edgeProb: edgeProb}, shape)
}

// edgeArray starts with every edge value of dt (in an order the seed
// shuffles) and continues with random values.
func edgeArray(dt gojit.DType, seed uint64, shape ...int) *gojit.Array {
	p := newPRNG(seed)
	n := len(intEdges)
	if dt.IsFloat() {
		n = len(floatEdges)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := p.intn(i + 1)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return makeArray(dt, &valueGen{p: p, edgeProb: 0.2, edges: idx}, shape)
}

// allEdges returns every edge value of dt, in order, as a 1-D array.
func allEdges(dt gojit.DType) *gojit.Array {
	n := len(intEdges)
	if dt.IsFloat() {
		n = len(floatEdges)
	}
	if dt == gojit.Bool {
		return gojit.FromBool([]bool{false, true})
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return makeArray(dt, &valueGen{p: newPRNG(1), edges: idx}, []int{n})
}

// reshaped returns a view of a with another shape (same data).
func reshaped(a *gojit.Array, shape ...int) *gojit.Array {
	switch s := a.Data().(type) {
	case []bool:
		return gojit.FromBool(s, shape...)
	case []uint8:
		return gojit.FromUint8(s, shape...)
	case []int32:
		return gojit.FromInt32(s, shape...)
	case []int64:
		return gojit.FromInt64(s, shape...)
	case []float32:
		return gojit.FromFloat32(s, shape...)
	case []float64:
		return gojit.FromFloat64(s, shape...)
	}
	panic("reshaped")
}

// ---------------------------------------------------------------------------
// Comparison.

func ordered32(f float32) int64 {
	b := int64(math.Float32bits(f))
	if b&(1<<31) != 0 {
		return -(b & (1<<31 - 1))
	}
	return b
}

func ordered64(f float64) int64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return -int64(b &^ (1 << 63))
	}
	return int64(b)
}

func ulpDist(a, b int64) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(b) - uint64(a)
}

// diffArrays describes how got differs from want ("" when it does not):
// dtype, shape, or up to five elements.
func diffArrays(got, want *gojit.Array, ulps uint64) string {
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		return fmt.Sprintf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	var bad []string
	nbad := 0
	note := func(i int, g, w any) {
		nbad++
		if len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("[%d] got %v want %v", i, g, w))
		}
	}
	switch w := want.Data().(type) {
	case []bool:
		g := got.Bool()
		for i := range w {
			if g[i] != w[i] {
				note(i, g[i], w[i])
			}
		}
	case []uint8:
		g := got.Uint8()
		for i := range w {
			if g[i] != w[i] {
				note(i, g[i], w[i])
			}
		}
	case []int32:
		g := got.Int32()
		for i := range w {
			if g[i] != w[i] {
				note(i, g[i], w[i])
			}
		}
	case []int64:
		g := got.Int64()
		for i := range w {
			if g[i] != w[i] {
				note(i, g[i], w[i])
			}
		}
	case []float32:
		g := got.Float32()
		for i := range w {
			if !same32(g[i], w[i], ulps) {
				note(i, fmtF32(g[i]), fmtF32(w[i]))
			}
		}
	case []float64:
		g := got.Float64()
		for i := range w {
			if !same64(g[i], w[i], ulps) {
				note(i, fmtF64(g[i]), fmtF64(w[i]))
			}
		}
	case []gojit.F16:
		g := got.Float16()
		for i := range w {
			if !same16(uint16(g[i]), uint16(w[i]), g[i].Float32(), w[i].Float32(), ulps) {
				note(i, g[i], w[i])
			}
		}
	case []gojit.BF16:
		g := got.BFloat16()
		for i := range w {
			if !same16(uint16(g[i]), uint16(w[i]), g[i].Float32(), w[i].Float32(), ulps) {
				note(i, g[i], w[i])
			}
		}
	default:
		return fmt.Sprintf("no comparison for %T", w)
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ: %s", nbad, want.Size(), strings.Join(bad, "; "))
}

// Float sums are reassociated by the compiled code (several vector
// accumulators), so they are not bit-identical to the interpreter's
// sequential sums. The rule, from internal/interp/doc.go: for a float
// reduce_sum of n terms x_i in dtype T,
//
//	|compiled - interpreted| <= n * eps_T * Σ|x_i|
//
// with eps_T = 2**-23 (float32) or 2**-52 (float64): each order is within
// (n-1)*eps_T/2*Σ|x_i| of the exact sum. When some x_i is ±Inf or NaN the
// results are identical (both NaN, or the same infinity); when Σ|x_i| of
// the finite terms exceeds T's largest finite value, a partial sum may
// overflow in one order and not the other, and the results are not
// compared. A mean (a sum divided by n) gets the bound divided by n plus
// one ulp for its division.

// sumBound returns the tolerance of x.Reduce(kind, keep, axes...) for a
// float ReduceSum or ReduceMean, as a float64 tensor of the result's
// shape: the bound of the rule above, -1 where the results must be
// identical, +Inf where they are not compared.
func sumBound(x *gojit.Tensor, kind gojit.ReduceKind, keep bool, axes ...int) *gojit.Tensor {
	dt := x.DType()
	if !dt.IsFloat() {
		dt = gojit.Float32 // a mean of integers sums in float32
	}
	eps, maxT := 0x1p-23, float64(math.MaxFloat32)
	if dt == gojit.Float64 {
		eps, maxT = 0x1p-52, math.MaxFloat64
	}
	ax := x.Cast(gojit.Float64).Abs()
	finite := ax.Less(gojit.Scalar(math.Inf(1)))
	s := gojit.Where(finite, ax, gojit.Scalar(0)).Reduce(gojit.ReduceSum, keep, axes...)
	nonFinite := gojit.Where(finite, gojit.Scalar(0), gojit.Scalar(1)).Reduce(gojit.ReduceSum, keep, axes...)
	n := 1
	for _, d := range x.Shape() {
		n *= d
	}
	for _, d := range s.Shape() {
		n /= max(d, 1)
	}
	b := s.Mul(gojit.Scalar(float64(n) * eps))
	if kind == gojit.ReduceMean && n > 0 {
		b = b.Div(gojit.Scalar(float64(n)))
	}
	b = gojit.Where(nonFinite.Greater(gojit.Scalar(0)), gojit.Scalar(-1), b)
	return gojit.Where(s.Greater(gojit.Scalar(maxT)), gojit.Scalar(math.Inf(1)), b)
}

// A float matmul is a sum of K products, and the compiled code computes it
// with fused multiply-adds (internal/codegen matmul.go), so the same rule
// applies with x_k = a_ik*b_kj (internal/interp/doc.go), plus K times the
// smallest subnormal of T: a product that lands below the normal range is
// rounded with that absolute error, not a relative one. A term with a
// non-finite factor makes both results identical; a Σ|a_ik*b_kj| over the
// finite terms beyond T's range is not compared. Integer matmuls are
// exact (diffBounded compares them bit for bit).

// matmulBound returns the tolerance of x.MatMul(y) as a float64 tensor of
// the result's shape, like sumBound: the bound of the rule above, -1
// where the results must be identical, +Inf where they are not compared.
func matmulBound(x, y *gojit.Tensor) *gojit.Tensor {
	b, _ := matmulBoundSum(x, y)
	return b
}

// matmulBoundSum is matmulBound, also returning Σ_k|x_ik*y_kj| over the
// terms with finite factors, an upper bound of the result's magnitude.
// Its graph holds no matmul of x and y themselves, which tracing would
// share with the case being checked (CSE), so the case's matmul would
// have a second user and not be fused with its epilogue.
func matmulBoundSum(x, y *gojit.Tensor) (bound, sum *gojit.Tensor) {
	dt := x.MatMul(y).DType()
	eps, tiny, maxT := 0x1p-23, 0x1p-149, float64(math.MaxFloat32)
	if dt == gojit.Float64 {
		eps, tiny, maxT = 0x1p-52, 0x1p-1074, math.MaxFloat64
	}
	abs := func(t *gojit.Tensor) (finiteAbs, nonFinite, ones *gojit.Tensor) {
		a := t.Cast(gojit.Float64).Abs()
		ok := a.Less(gojit.Scalar(math.Inf(1)))
		return gojit.Where(ok, a, gojit.Scalar(0)), gojit.Where(ok, gojit.Scalar(0), gojit.Scalar(1)), gojit.Where(ok, gojit.Scalar(1), gojit.Scalar(1))
	}
	ax, nx, ox := abs(x)
	ay, ny, oy := abs(y)
	s := ax.MatMul(ay)
	// Terms with a non-finite factor: every k of a row of x holding one,
	// and of a column of y.
	bad := nx.MatMul(oy).Add(ox.MatMul(ny))
	k := 1
	if xs := x.Shape(); len(xs) > 0 {
		k = xs[len(xs)-1]
	}
	b := s.Mul(gojit.Scalar(float64(k) * eps)).Add(gojit.Scalar(float64(k) * tiny))
	b = gojit.Where(bad.Greater(gojit.Scalar(0)), gojit.Scalar(-1), b)
	return gojit.Where(s.Greater(gojit.Scalar(maxT)), gojit.Scalar(math.Inf(1)), b), s
}

// matmulAddBound is the tolerance of x.MatMul(y).Add(z), and of anything
// 1-Lipschitz and exact applied to it (Relu): the matmul's bound plus an
// ulp of the sum for the add's rounding, taken as eps_T times the upper
// bound Σ|x_ik*y_kj| + |z| of its magnitude. Negative (identical) and
// infinite (not compared) bounds stay as they are.
func matmulAddBound(x, y, z *gojit.Tensor) *gojit.Tensor {
	b, s := matmulBoundSum(x, y)
	eps := 0x1p-23
	if x.MatMul(y).DType() == gojit.Float64 {
		eps = 0x1p-52
	}
	grown := b.Add(s.Add(z.Cast(gojit.Float64).Abs()).Mul(gojit.Scalar(eps)))
	grown = gojit.Where(b.Equal(gojit.Scalar(math.Inf(1))), b, grown)
	return gojit.Where(b.Less(gojit.Scalar(0)), b, grown)
}

// diffBounded is diffArrays for float results with a per-element bound
// from sumBound or matmulBound: equal bits or both NaN always agree;
// otherwise a negative bound requires that, +Inf compares nothing, and a
// bound b >= 0 allows |got-want| <= b or one ulp.
func diffBounded(got, want, bound *gojit.Array) string {
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) || bound.Size() != want.Size() {
		return fmt.Sprintf("got %s%v, want %s%v (bound %v)", got.DType(), got.Shape(), want.DType(), want.Shape(), bound.Shape())
	}
	var g, w []float64
	switch wd := want.Data().(type) {
	case []float32:
		for i, x := range wd {
			g, w = append(g, float64(got.Float32()[i])), append(w, float64(x))
		}
	case []float64:
		g, w = got.Float64(), wd
	default:
		return diffArrays(got, want, 0)
	}
	bd := bound.Float64()
	var bad []string
	nbad := 0
	for i := range w {
		b := bd[i]
		switch {
		case math.Float64bits(g[i]) == math.Float64bits(w[i]) || (g[i] != g[i] && w[i] != w[i]):
			continue
		case math.IsInf(b, 1):
			continue // not compared: the finite terms may overflow
		case b >= 0 && (math.Abs(g[i]-w[i]) <= b || ulpsApart(got.DType(), g[i], w[i]) <= 1):
			continue
		}
		nbad++
		if len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("[%d] got %g want %g (bound %g)", i, g[i], w[i], b))
		}
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ beyond the sum bound: %s", nbad, want.Size(), strings.Join(bad, "; "))
}

// ulpsApart is the distance in ulps of dt between two finite values (the
// maximum for NaNs).
func ulpsApart(dt gojit.DType, a, b float64) uint64 {
	if a != a || b != b {
		return math.MaxUint64
	}
	if dt == gojit.Float32 {
		return ulpDist(ordered32(float32(a)), ordered32(float32(b)))
	}
	return ulpDist(ordered64(a), ordered64(b))
}

// same16 compares two half values (their bits g, w and their float32
// values gf, wf) as same32 does, counting ulps of the 16-bit format.
func same16(g, w uint16, gf, wf float32, ulps uint64) bool {
	if gf != gf && wf != wf || g == w {
		return true
	}
	if gf != gf || wf != wf {
		return false
	}
	ord := func(b uint16) int64 {
		if b&0x8000 != 0 {
			return -int64(b&0x7fff) - 1 // -0 is one step below +0
		}
		return int64(b)
	}
	return ulpDist(ord(g), ord(w)) <= ulps
}

func same32(g, w float32, ulps uint64) bool {
	if math.Float32bits(g) == math.Float32bits(w) || (g != g && w != w) {
		return true
	}
	return ulps > 0 && g == g && w == w && ulpDist(ordered32(g), ordered32(w)) <= ulps
}

func same64(g, w float64, ulps uint64) bool {
	if math.Float64bits(g) == math.Float64bits(w) || (g != g && w != w) {
		return true
	}
	return ulps > 0 && g == g && w == w && ulpDist(ordered64(g), ordered64(w)) <= ulps
}

func fmtF32(f float32) string { return fmt.Sprintf("%g(0x%08x)", f, math.Float32bits(f)) }
func fmtF64(f float64) string { return fmt.Sprintf("%g(0x%016x)", f, math.Float64bits(f)) }

// ---------------------------------------------------------------------------
// The differential harness.

// dcase is one output of a differential test.
type dcase struct {
	name string
	f    func(in []*gojit.Tensor) *gojit.Tensor
	ulps uint64      // 0: bit-exact
	dt   gojit.DType // when not 0, the dtype the result must have
	// bound, when set, computes the float64 tolerance of each result
	// element (sumBound), evaluated by the interpreter; it replaces ulps.
	bound func(in []*gojit.Tensor) *gojit.Tensor
}

// fnOf wraps body as a function of n tensor parameters returning a slice.
func fnOf(n int, body func([]*gojit.Tensor) []*gojit.Tensor) any {
	switch n {
	case 0:
		return func() []*gojit.Tensor { return body(nil) }
	case 1:
		return func(a *gojit.Tensor) []*gojit.Tensor { return body([]*gojit.Tensor{a}) }
	case 2:
		return func(a, b *gojit.Tensor) []*gojit.Tensor { return body([]*gojit.Tensor{a, b}) }
	case 3:
		return func(a, b, c *gojit.Tensor) []*gojit.Tensor { return body([]*gojit.Tensor{a, b, c}) }
	case 4:
		return func(a, b, c, d *gojit.Tensor) []*gojit.Tensor { return body([]*gojit.Tensor{a, b, c, d}) }
	case 5:
		return func(a, b, c, d, e *gojit.Tensor) []*gojit.Tensor { return body([]*gojit.Tensor{a, b, c, d, e}) }
	case 6:
		return func(a, b, c, d, e, f *gojit.Tensor) []*gojit.Tensor {
			return body([]*gojit.Tensor{a, b, c, d, e, f})
		}
	}
	panic("fnOf: too many parameters")
}

// casesFn returns a function computing every case, followed by the
// bounds of the cases that have one (in case order): the interpreter's
// side of checkDiff.
func casesFn(n int, cases []dcase) any { return casesFnOf(n, cases, true) }

// casesFnOf is casesFn, with the bounds only if bounds is set. The
// compiled side leaves them out: only the interpreter's bounds are used,
// and computing them in the compiled function too would compile more
// (a float64 product and its absolute twin beside each product) and
// could change the fusion of the case under test.
func casesFnOf(n int, cases []dcase, bounds bool) any {
	return fnOf(n, func(in []*gojit.Tensor) []*gojit.Tensor {
		out := make([]*gojit.Tensor, len(cases))
		for i, c := range cases {
			out[i] = c.f(in)
		}
		if !bounds {
			return out
		}
		for _, c := range cases {
			if c.bound != nil {
				out = append(out, c.bound(in))
			}
		}
		return out
	})
}

// boundOf returns the interpreter's bound array of cases[i] among the
// results ref of casesFn, or nil.
func boundOf(cases []dcase, i int, ref []*gojit.Array) *gojit.Array {
	if cases[i].bound == nil {
		return nil
	}
	j := len(cases)
	for _, c := range cases[:i] {
		if c.bound != nil {
			j++
		}
	}
	return ref[j]
}

// compareCase describes how got differs from want under c's rule.
func compareCase(c dcase, got, want, bound *gojit.Array) string {
	if bound != nil {
		return diffBounded(got, want, bound)
	}
	return diffArrays(got, want, c.ulps)
}

func anyArgs(args []*gojit.Array) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// runBoth compiles fn for LLVM and for the interpreter and calls both on
// args. It fails t if either Compile fails.
func runBoth(t testing.TB, fn any, args []any, opts ...gojit.Option) (comp, ref []*gojit.Array, cerr, rerr error) {
	t.Helper()
	return runPair(t, fn, fn, args, opts...)
}

// runPair is runBoth with the compiled side running cfn and the
// interpreter rfn, which may compute more results after cfn's.
func runPair(t testing.TB, cfn, rfn any, args []any, opts ...gojit.Option) (comp, ref []*gojit.Array, cerr, rerr error) {
	t.Helper()
	cf, err := gojit.Compile(cfn, opts...)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	rf, err := gojit.Compile(rfn, append(slices.Clone(opts), gojit.WithInterpreter())...)
	if err != nil {
		t.Fatalf("Compile (interpreter): %v", err)
	}
	comp, cerr = cf.Call(args...)
	ref, rerr = rf.Call(args...)
	return comp, ref, cerr, rerr
}

// interpret runs fn in the interpreter alone.
func interpret(t testing.TB, fn any, args []any) ([]*gojit.Array, error) {
	t.Helper()
	rf, err := gojit.Compile(fn, gojit.WithInterpreter())
	if err != nil {
		t.Fatalf("Compile (interpreter): %v", err)
	}
	return rf.Call(args...)
}

// checkDiff runs cases as one compiled function of len(args) parameters,
// both ways, and compares each output in a subtest named after its case.
func checkDiff(t *testing.T, cases []dcase, args ...*gojit.Array) {
	t.Helper()
	comp, ref, cerr, rerr := runPair(t, casesFnOf(len(args), cases, false), casesFn(len(args), cases), anyArgs(args))
	if rerr != nil {
		t.Errorf("interpreter: %v", rerr)
		return
	}
	if cerr != nil && len(cases) > 1 {
		t.Errorf("compiled (all %d ops in one function): %v", len(cases), firstLines(cerr, 6))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got, want *gojit.Array
			if cerr != nil {
				// Isolate: compile this op alone.
				cc, rr, ce, re := runPair(t, casesFnOf(len(args), []dcase{c}, false), casesFn(len(args), []dcase{c}), anyArgs(args))
				if re != nil {
					t.Fatalf("interpreter: %v", re)
				}
				if ce != nil {
					t.Fatalf("compiled: %v\n(interpreter gives %v)", firstLines(ce, 6), rr[0])
				}
				got, want = cc[0], rr[0]
			} else {
				got, want = comp[i], ref[i]
			}
			var bound *gojit.Array
			if cerr != nil {
				rr, err := interpret(t, casesFn(len(args), []dcase{c}), anyArgs(args))
				if err != nil {
					t.Fatalf("interpreter: %v", err)
				}
				bound = boundOf([]dcase{c}, 0, rr)
			} else {
				bound = boundOf(cases, i, ref)
			}
			if c.dt != 0 && want.DType() != c.dt {
				t.Errorf("result dtype %s, want %s", want.DType(), c.dt)
			}
			if d := compareCase(c, got, want, bound); d != "" {
				t.Errorf("compiled differs from interpreter: %s\ninputs: %v", d, args)
			}
		})
	}
}

func firstLines(err error, n int) string {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// checkTraceError compiles fn both ways and requires that Call fails in
// both with an error containing every string of want, and the same error.
func checkTraceError(t *testing.T, fn any, args []any, want ...string) {
	t.Helper()
	comp, ref, cerr, rerr := runBoth(t, fn, args)
	if cerr == nil || rerr == nil {
		t.Fatalf("Call succeeded, want an error containing %q (compiled %v, %v; interpreted %v, %v)", want, comp, cerr, ref, rerr)
	}
	for _, w := range want {
		if !strings.Contains(cerr.Error(), w) {
			t.Errorf("error %q does not contain %q", cerr, w)
		}
	}
	if cerr.Error() != rerr.Error() {
		t.Errorf("compiled and interpreted errors differ:\n%v\n%v", cerr, rerr)
	}
}

// here returns "FILE_test.go:LINE" for the line of its caller.
func here() string { return callerLine(2, 0) }

// hereAt returns "FILE_test.go:LINE" for the line delta lines below its
// caller's.
func hereAt(delta int) string { return callerLine(2, delta) }

func callerLine(skip, delta int) string {
	_, file, line, _ := runtime.Caller(skip)
	return fmt.Sprintf("%s:%d", file[strings.LastIndexByte(file, '/')+1:], line+delta)
}

func shapeName(s []int) string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

const minNormal64 = 0x1p-1022

// The broad tests keep float64 Sin and Cos arguments away from where Go's
// math functions, which the interpreter uses, are known to be inaccurate,
// so that they keep checking everything else; TestInterpSinCosLargeF64
// checks those inputs against the bound interp/doc.go documents.
//
// dodgeHugeTrig replaces finite float64 values of magnitude 2**29 and more
// by 0.5: Go's math.Sin and math.Cos are only accurate to about 1e-16
// absolute there, as interp/doc.go says (TestInterpSinCosLargeF64), which
// is many ulps of a small result.
func dodgeHugeTrig(x *gojit.Tensor) *gojit.Tensor {
	if x.DType() != gojit.Float64 {
		return x
	}
	ax := x.Abs()
	return gojit.Where(ax.GreaterEqual(gojit.Scalar(1<<29)), gojit.Where(ax.Equal(gojit.Scalar(math.Inf(1))), x, gojit.Scalar(0.5)), x)
}

func isTranscendental(name string) bool {
	switch name {
	case "Exp", "Log", "Sin", "Cos", "Tanh", "Pow", "Sigmoid":
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Elementwise binary ops.
