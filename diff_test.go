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
//     casts, reductions in their declared order, matmul) must be
//     bit-exact, and so must fused chains of such ops.
//
// Several ops share one compiled function with many outputs, to keep the
// number of LLVM compilations (about 10 ms each) in the low hundreds; every
// op still gets its own subtest, and when a grouped compilation fails each
// op is compiled alone to find the culprit.

import (
	"errors"
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
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ: %s", nbad, want.Size(), strings.Join(bad, "; "))
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

func casesFn(n int, cases []dcase) any {
	return fnOf(n, func(in []*gojit.Tensor) []*gojit.Tensor {
		out := make([]*gojit.Tensor, len(cases))
		for i, c := range cases {
			out[i] = c.f(in)
		}
		return out
	})
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
	cf, err := gojit.Compile(fn, opts...)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	rf, err := gojit.Compile(fn, append(slices.Clone(opts), gojit.WithInterpreter())...)
	if err != nil {
		t.Fatalf("Compile (interpreter): %v", err)
	}
	comp, cerr = cf.Call(args...)
	ref, rerr = rf.Call(args...)
	return comp, ref, cerr, rerr
}

// checkDiff runs cases as one compiled function of len(args) parameters,
// both ways, and compares each output in a subtest named after its case.
func checkDiff(t *testing.T, cases []dcase, args ...*gojit.Array) {
	t.Helper()
	comp, ref, cerr, rerr := runBoth(t, casesFn(len(args), cases), anyArgs(args))
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
				cc, rr, ce, re := runBoth(t, casesFn(len(args), []dcase{c}), anyArgs(args))
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
			if c.dt != 0 && want.DType() != c.dt {
				t.Errorf("result dtype %s, want %s", want.DType(), c.dt)
			}
			if d := diffArrays(got, want, c.ulps); d != "" {
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

// here returns "diff_test.go:LINE" for the line of its caller.
func here() string { return callerLine(2, 0) }

// hereAt returns "diff_test.go:LINE" for the line delta lines below its
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

type binOp struct {
	name string
	f    func(a, b *gojit.Tensor) *gojit.Tensor
	arit bool // arithmetic: rejects Bool operands
}

var binOps = []binOp{
	{"Add", (*gojit.Tensor).Add, true},
	{"Sub", (*gojit.Tensor).Sub, true},
	{"Mul", (*gojit.Tensor).Mul, true},
	{"Div", (*gojit.Tensor).Div, true},
	{"Pow", (*gojit.Tensor).Pow, false}, // Bool and integers are converted to Float32
	{"Maximum", (*gojit.Tensor).Maximum, true},
	{"Minimum", (*gojit.Tensor).Minimum, true},
	{"Equal", (*gojit.Tensor).Equal, false},
	{"NotEqual", (*gojit.Tensor).NotEqual, false},
	{"Less", (*gojit.Tensor).Less, false},
	{"LessEqual", (*gojit.Tensor).LessEqual, false},
	{"Greater", (*gojit.Tensor).Greater, false},
	{"GreaterEqual", (*gojit.Tensor).GreaterEqual, false},
	{"Where", func(a, b *gojit.Tensor) *gojit.Tensor { return gojit.Where(a.Less(b), a, b) }, false},
}

func binCases(dt gojit.DType) []dcase {
	var cs []dcase
	for _, op := range binOps {
		if op.arit && dt == gojit.Bool {
			continue
		}
		var ulps uint64
		if isTranscendental(op.name) {
			ulps = transULPs
		}
		if op.name == "Pow" && dt == gojit.Float64 {
			ulps = powF64ULPs
		}
		cs = append(cs, dcase{name: op.name, ulps: ulps, f: func(in []*gojit.Tensor) *gojit.Tensor { return op.f(in[0], in[1]) }})
	}
	return cs
}

var bcastPatterns = []struct {
	name string
	a, b []int
}{
	{"same_3x4", []int{3, 4}, []int{3, 4}},
	{"scalar_vs_3x4", []int{}, []int{3, 4}},
	{"3x4_vs_scalar", []int{3, 4}, []int{}},
	{"3x1_vs_1x4", []int{3, 1}, []int{1, 4}},
	{"4_vs_2x3x4", []int{4}, []int{2, 3, 4}},
	{"2x3x1_vs_3x4", []int{2, 3, 1}, []int{3, 4}},
	{"size1_1x1_vs_1", []int{1, 1}, []int{1}},
	{"size0_0x4_vs_4", []int{0, 4}, []int{4}},
	{"size0_2x0_vs_2x1", []int{2, 0}, []int{2, 1}},
}

func TestDiffBinary(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for pi, p := range bcastPatterns {
				if testing.Short() && pi >= 4 {
					break // -short: same shape, scalars, the 2-D outer broadcast
				}
				t.Run(p.name, func(t *testing.T) {
					a := edgeArray(dt, uint64(100+pi), p.a...)
					b := edgeArray(dt, uint64(200+pi), p.b...)
					checkDiff(t, binCases(dt), a, b)
				})
			}
			// Every pair of edge values: a column of edges against a row.
			t.Run("edges_outer", func(t *testing.T) {
				e := allEdges(dt)
				n := e.Size()
				checkDiff(t, binCases(dt), reshaped(e, n, 1), reshaped(allEdges(dt), 1, n))
			})
		})
	}
}

// TestDiffMixedDTypes combines operands of different dtypes, which are
// promoted to the later dtype of Bool < Uint8 < Int32 < Int64 < Float32 <
// Float64.
func TestDiffMixedDTypes(t *testing.T) {
	for i, da := range allDTypes {
		for _, db := range allDTypes[i+1:] {
			t.Run(da.String()+"_"+db.String(), func(t *testing.T) {
				t.Parallel()
				a := edgeArray(da, 7, 3, 5)
				b := edgeArray(db, 8, 5)
				cs := []dcase{
					{name: "Add", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(in[1]) }},
					{name: "Mul_rev", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Mul(in[0]) }},
					{name: "Div", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(in[1]) }},
					{name: "Minimum", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Minimum(in[1]) }},
					{name: "Less", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Less(in[1]) }},
					{name: "Equal", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Equal(in[1]) }},
					{name: "Where", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Where(in[0].GreaterEqual(in[1]), in[0], in[1])
					}},
					{name: "Concat", dt: db, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Concat(0, in[0], in[1].Reshape(1, 5))
					}},
				}
				checkDiff(t, cs, a, b)
			})
		}
	}
}

func TestDiffWhere(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			c := randArray(gojit.Bool, 3, 0, 3, 1)
			a := edgeArray(dt, 4, 1, 4)
			b := edgeArray(dt, 5)
			c2 := randArray(gojit.Bool, 6, 0, 3, 4)
			checkDiff(t, []dcase{
				{name: "broadcast_3x1_1x4_scalar", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(in[0], in[1], in[2]) }},
				{name: "same_shape", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[3], in[1].BroadcastTo(3, 4), in[2].BroadcastTo(3, 4))
				}},
				{name: "weak_scalar_branch", f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(in[3], in[1], gojit.Scalar(7)) }},
				{name: "weak_scalar_cond", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Where(gojit.Scalar(0), in[1], in[2]) }},
				{name: "nested", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[0], gojit.Where(in[3], in[1], in[2]), in[2])
				}},
			}, c, a, b, c2)
		})
	}
}

// ---------------------------------------------------------------------------
// Elementwise unary ops.

type unOp struct {
	name   string
	f      func(x *gojit.Tensor) *gojit.Tensor
	noBool bool // rejects Bool (the float-only ops convert it to Float32)
}

var unOps = []unOp{
	{"Neg", (*gojit.Tensor).Neg, true},
	{"Abs", (*gojit.Tensor).Abs, true},
	{"Exp", (*gojit.Tensor).Exp, false},
	{"Log", (*gojit.Tensor).Log, false},
	{"Sqrt", (*gojit.Tensor).Sqrt, false},
	{"Rsqrt", (*gojit.Tensor).Rsqrt, false},
	{"Sin", (*gojit.Tensor).Sin, false},
	{"Cos", (*gojit.Tensor).Cos, false},
	{"Tanh", (*gojit.Tensor).Tanh, false},
	{"Sigmoid", (*gojit.Tensor).Sigmoid, false},
	{"Relu", (*gojit.Tensor).Relu, true},
	{"Floor", (*gojit.Tensor).Floor, true},
	{"Ceil", (*gojit.Tensor).Ceil, true},
	{"Round", (*gojit.Tensor).Round, true},
}

func unCases(dt gojit.DType) []dcase {
	var cs []dcase
	for _, op := range unOps {
		if op.noBool && dt == gojit.Bool {
			continue
		}
		var ulps uint64
		if isTranscendental(op.name) {
			ulps = transULPs
		}
		want := dt
		if !op.noBool && !dt.IsFloat() {
			want = gojit.Float32
		}
		f := op.f
		switch op.name {
		case "Sin", "Cos":
			f = func(x *gojit.Tensor) *gojit.Tensor { return op.f(dodgeHugeTrig(x)) }
		}
		cs = append(cs, dcase{name: op.name, ulps: ulps, dt: want, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0]) }})
	}
	return cs
}

func TestDiffUnary(t *testing.T) {
	shapes := [][]int{{6, 8}, {}, {0, 3}, {1, 3, 1}}
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for si, s := range shapes {
				t.Run(shapeName(s), func(t *testing.T) {
					checkDiff(t, unCases(dt), edgeArray(dt, uint64(300+si), s...))
				})
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Casts: from every dtype to every dtype.

func TestDiffCast(t *testing.T) {
	for _, from := range allDTypes {
		t.Run("from_"+from.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			for _, to := range allDTypes {
				cs = append(cs, dcase{name: "to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(to) }})
				// A cast fused after arithmetic, and a double cast.
				if from != gojit.Bool {
					cs = append(cs, dcase{name: "neg_to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Neg().Cast(to) }})
				}
				for _, via := range []gojit.DType{gojit.Uint8, gojit.Float32} {
					cs = append(cs, dcase{name: "via_" + via.String() + "_to_" + to.String(), dt: to, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return in[0].Cast(via).Cast(to)
					}})
				}
			}
			var direct []dcase
			for _, c := range cs {
				if strings.HasPrefix(c.name, "to_") {
					direct = append(direct, c)
				}
			}
			checkDiff(t, cs, allEdges(from))
			t.Run("random_5x7", func(t *testing.T) { checkDiff(t, direct, randArray(from, 9, 0.3, 5, 7)) })
			t.Run("size0", func(t *testing.T) { checkDiff(t, direct, randArray(from, 9, 0.3, 0, 7)) })
		})
	}
	// Values at the saturation and rounding boundaries of float-to-int and
	// int-to-float conversion.
	t.Run("boundaries", func(t *testing.T) {
		f64 := []float64{
			-1, -0.99, -0.5, 254.99, 255, 255.01, 255.5, 256, 1e3,
			2147483520, 2147483583, 2147483584, 2147483647, 2147483647.5, 2147483648, 2147483648.5,
			-2147483648, -2147483648.5, -2147483649, -2147483904,
			9223372036854774784, 9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854777856,
			math.NaN(), math.Inf(1), math.Inf(-1), negZero, 4503599627370497, 16777217, 16777219,
		}
		i64 := []int64{16777217, 16777219, -16777217, 1<<53 + 1, 1<<62 + 1<<38 + 1, math.MaxInt64, math.MinInt64, 1<<31 - 1, 1<<31 + 255}
		var cs []dcase
		for _, to := range allDTypes {
			cs = append(cs,
				dcase{name: "f64_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(to) }},
				dcase{name: "f32_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Cast(gojit.Float32).Cast(to) }},
				dcase{name: "i64_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Cast(to) }},
				dcase{name: "i32_to_" + to.String(), f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Cast(gojit.Int32).Cast(to) }},
			)
		}
		checkDiff(t, cs, gojit.FromFloat64(f64), gojit.FromInt64(i64))
	})
}

// ---------------------------------------------------------------------------
// Reductions.

type redKind struct {
	name string
	kind gojit.ReduceKind
	arg  bool // one axis only
	bool bool // accepts Bool
}

var redKinds = []redKind{
	{"Sum", gojit.ReduceSum, false, true},
	{"Mean", gojit.ReduceMean, false, true},
	{"Prod", gojit.ReduceProd, false, true},
	{"Max", gojit.ReduceMax, false, false},
	{"Min", gojit.ReduceMin, false, false},
	{"ArgMax", gojit.ReduceArgMax, true, false},
	{"ArgMin", gojit.ReduceArgMin, true, false},
}

// reduceMethod calls the named method (Sum, Max, ArgMax...) of x.
func reduceMethod(x *gojit.Tensor, k redKind, axes ...int) *gojit.Tensor {
	switch k.kind {
	case gojit.ReduceSum:
		return x.Sum(axes...)
	case gojit.ReduceMean:
		return x.Mean(axes...)
	case gojit.ReduceProd:
		return x.Prod(axes...)
	case gojit.ReduceMax:
		return x.Max(axes...)
	case gojit.ReduceMin:
		return x.Min(axes...)
	case gojit.ReduceArgMax:
		return x.ArgMax(axes...)
	}
	return x.ArgMin(axes...)
}

func reduceCases(dt gojit.DType, axes []int, keep bool) []dcase {
	var cs []dcase
	for _, k := range redKinds {
		if (dt == gojit.Bool && !k.bool) || (k.arg && len(axes) > 1) {
			continue
		}
		want := dt
		switch {
		case k.arg:
			want = gojit.Int64
		case k.kind == gojit.ReduceMean && !dt.IsFloat():
			want = gojit.Float32
		case dt == gojit.Bool:
			want = gojit.Int64
		}
		if keep {
			cs = append(cs, dcase{name: k.name + "_keep", dt: want, f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Reduce(k.kind, true, axes...)
			}})
			continue
		}
		cs = append(cs, dcase{name: k.name, dt: want, f: func(in []*gojit.Tensor) *gojit.Tensor { return reduceMethod(in[0], k, axes...) }})
	}
	return cs
}

func TestDiffReduce(t *testing.T) {
	patterns := []struct {
		name  string
		shape []int
		axes  []int
		keep  bool
	}{
		{"all_2x3x4", []int{2, 3, 4}, nil, false},
		{"axis0_2x3x4", []int{2, 3, 4}, []int{0}, false},
		{"last_2x3x4", []int{2, 3, 4}, []int{-1}, false},
		{"middle_2x3x4", []int{2, 3, 4}, []int{1}, false},
		{"two_axes_0_2", []int{2, 3, 4}, []int{2, 0}, false},
		{"keepdims_middle", []int{2, 3, 4}, []int{1}, true},
		{"keepdims_all", []int{2, 3, 4}, nil, true},
		{"keepdims_last_two", []int{2, 3, 4}, []int{-1, -2}, true},
		{"scalar_all", []int{}, nil, false},
		{"size1_1x5_axis0", []int{1, 5}, []int{0}, false},
		{"size0_0x3_axis0", []int{0, 3}, []int{0}, false},
		{"size0_0x3_axis1", []int{0, 3}, []int{1}, false},
		{"size0_3x0_axis1", []int{3, 0}, []int{1}, false},
		{"size0_3x0_all", []int{3, 0}, nil, false},
		{"long_rows_5x67_last", []int{5, 67}, []int{1}, false},
		{"long_cols_67x5_axis0", []int{67, 5}, []int{0}, false},
	}
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			for pi, p := range patterns {
				if testing.Short() && pi%3 != 0 {
					continue // -short: a third of the patterns
				}
				t.Run(p.name, func(t *testing.T) {
					prob := 0.15
					if p.shape != nil && len(p.shape) == 2 && p.shape[0]*p.shape[1] > 100 {
						prob = 0.01
					}
					checkDiff(t, reduceCases(dt, p.axes, p.keep), randArray(dt, uint64(400+pi), prob, p.shape...))
				})
			}
		})
	}
	// A long float32 sum: any reassociation (a vectorized reduction)
	// changes the rounding.
	t.Run("f32_sum_order", func(t *testing.T) {
		x := randArray(gojit.Float32, 77, 0, 3, 1000)
		checkDiff(t, []dcase{
			{name: "rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(1) }},
			{name: "all", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum() }},
			{name: "mean_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mean(-1) }},
			{name: "prod_rows", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Mul(gojit.Scalar(0.125)).Add(gojit.Scalar(1)).Prod(1)
			}},
		}, x)
	})
	// Negative zeros: a sum of only -0 is +0; max/min order -0 < +0.
	t.Run("signed_zeros", func(t *testing.T) {
		x := gojit.FromFloat64([]float64{negZero, negZero, negZero, 0, negZero, 0}, 2, 3)
		var cs []dcase
		for _, ax := range [][]int{nil, {0}, {1}} {
			for _, k := range redKinds {
				cs = append(cs, dcase{name: fmt.Sprintf("%s_%v", k.name, ax), f: func(in []*gojit.Tensor) *gojit.Tensor { return reduceMethod(in[0], k, ax...) }})
			}
		}
		checkDiff(t, cs, x)
	})
}

// ---------------------------------------------------------------------------
// Layout ops.

func layoutCases() []dcase {
	c := func(name string, f func(x *gojit.Tensor) *gojit.Tensor) dcase {
		return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0]) }}
	}
	return []dcase{
		c("Reshape_4x6", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(4, 6) }),
		c("Reshape_minus1", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(-1) }),
		c("Reshape_2_minus1_3", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(2, -1, 3) }),
		c("Transpose_default", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose() }),
		c("Transpose_1_0_2", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(1, 0, 2) }),
		c("Transpose_2_0_1", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(2, 0, 1) }),
		c("Transpose_neg_axes", func(x *gojit.Tensor) *gojit.Tensor { return x.Transpose(-1, -3, -2) }),
		c("Transpose_rank2", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(6, 4).Transpose() }),
		c("Transpose_rank2_explicit", func(x *gojit.Tensor) *gojit.Tensor { return x.Reshape(8, 3).Transpose(1, 0) }),
		c("BroadcastTo_new_dim", func(x *gojit.Tensor) *gojit.Tensor { return x.BroadcastTo(2, 2, 3, 4) }),
		c("BroadcastTo_size1", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 1}, []int{2, 2}).BroadcastTo(3, 2, 5, 4) }),
		c("Slice_basic", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 1}, []int{2, 2, 3}) }),
		c("Slice_negative", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{-1, -2}, []int{100, 3}) }),
		c("Slice_negative_stop", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, -3, -3}, []int{-1, -1, 4}) }),
		c("Slice_step2", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 0, 0}, []int{2, 3, 4}, 1, 2, 2) }),
		c("Slice_step3_clamped", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{-100, 1, 1}, []int{100, 100, 4}, 2, 3, 3) }),
		c("Slice_empty", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 2}, []int{2, 1}) }),
		c("Slice_partial_rank", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1}, []int{2}) }),
		c("Concat2_axis0", func(x *gojit.Tensor) *gojit.Tensor { return gojit.Concat(0, x, x) }),
		c("Concat3_axis1", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(1, x, x.Slice([]int{0, 1}, []int{2, 2}), x.Slice([]int{0, 0}, []int{2, 2}))
		}),
		c("Concat3_last_neg_axis", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(-1, x.Slice([]int{0, 0, 3}, []int{2, 3, 4}), x, x.Slice([]int{0, 0, 0}, []int{2, 3, 2}))
		}),
		c("Concat_with_empty", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, x.Slice([]int{0}, []int{0}), x, x.Slice([]int{2}, []int{2}))
		}),
		c("Concat_computed", func(x *gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, x.Transpose(0, 2, 1).Reshape(2, 3, 4), x.Slice([]int{1}, []int{2}))
		}),
		c("ExpandDims_0", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(0) }),
		c("ExpandDims_2", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(2) }),
		c("ExpandDims_neg1", func(x *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(-1) }),
		c("Squeeze_all", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze() }),
		c("Squeeze_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze(0) }),
		c("Squeeze_neg_axis", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 0, 2}, []int{2, 3, 3}).Squeeze(-1) }),
		c("Squeeze_to_scalar", func(x *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{1, 2, 3}, []int{2, 3, 4}).Squeeze() }),
		c("chain_transpose_slice_reshape", func(x *gojit.Tensor) *gojit.Tensor {
			return x.Transpose(2, 1, 0).Slice([]int{1, 0, 0}, []int{4, 3, 2}, 2, 2, 1).Reshape(-1, 2).ExpandDims(1)
		}),
		c("identity", func(x *gojit.Tensor) *gojit.Tensor { return x }),
	}
}

func TestDiffLayout(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			checkDiff(t, layoutCases(), edgeArray(dt, 500, 2, 3, 4))
		})
	}
	// Layout ops on tensors with a dimension of size 0.
	for _, dt := range []gojit.DType{gojit.Bool, gojit.Float32, gojit.Int64} {
		t.Run("size0_"+dt.String(), func(t *testing.T) {
			c := func(name string, f func(x, y *gojit.Tensor) *gojit.Tensor) dcase {
				return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return f(in[0], in[1]) }}
			}
			checkDiff(t, []dcase{
				c("Reshape", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Reshape(3, 0) }),
				c("Transpose", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Transpose() }),
				c("BroadcastTo", func(x, y *gojit.Tensor) *gojit.Tensor { return y.Slice([]int{0}, []int{1}).BroadcastTo(0, 3) }),
				c("Slice", func(x, y *gojit.Tensor) *gojit.Tensor { return x.Slice([]int{0, 1}, []int{0, 3}) }),
				c("ExpandDims", func(x, y *gojit.Tensor) *gojit.Tensor { return x.ExpandDims(1) }),
				c("Concat_nonempty_and_empty", func(x, y *gojit.Tensor) *gojit.Tensor {
					return gojit.Concat(0, x, y.Reshape(2, 3))
				}),
				// A Concat of only empty operands is TestConcatAllEmpty.
			}, randArray(dt, 1, 0.2, 0, 3), randArray(dt, 2, 0.2, 6))
		})
	}
}

// ---------------------------------------------------------------------------
// MatMul.

func TestDiffMatMul(t *testing.T) {
	mm := func(name string, i, j int) dcase {
		return dcase{name: name, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[i].MatMul(in[j]) }}
	}
	for _, dt := range numDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			prob := 0.05
			a := randArray(dt, 601, prob, 3, 4)
			b := randArray(dt, 602, prob, 4, 5)
			c := randArray(dt, 603, prob, 2, 3, 4)
			d := randArray(dt, 604, prob, 2, 4, 5)
			v := randArray(dt, 605, prob, 4)
			w := randArray(dt, 606, prob, 3)
			checkDiff(t, []dcase{
				mm("2d_3x4_4x5", 0, 1),
				mm("batched_2x3x4_2x4x5", 2, 3),
				mm("batch_broadcast_2x3x4_4x5", 2, 1),
				mm("batch_broadcast_3x4_2x4x5", 0, 3),
				mm("vector_matrix_4_4x5", 4, 1),
				mm("matrix_vector_3x4_4", 0, 4),
				mm("vector_vector_4_4", 4, 4),
				mm("batched_vector_2x3x4_4", 2, 4),
				mm("vector_batched_4_2x4x5", 4, 3),
				mm("vector_matrix_3_3x4", 5, 0),
				{name: "transposed_operand", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Transpose().MatMul(in[0].Transpose()) }},
				{name: "fused_operand", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(in[0]).MatMul(in[1].Mul(in[1])) }},
				{name: "batch_broadcast_size1", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[2].Reshape(2, 1, 3, 4).MatMul(in[3].Reshape(1, 2, 4, 5))
				}},
			}, a, b, c, d, v, w)
		})
	}
	t.Run("size0", func(t *testing.T) {
		checkDiff(t, []dcase{
			mm("K0_3x0_0x5", 0, 1),
			mm("M0_0x3_3x5", 2, 3),
			mm("N0_3x3_3x0", 4, 5),
		}, randArray(gojit.Float32, 1, 0, 3, 0), randArray(gojit.Float32, 2, 0, 0, 5),
			randArray(gojit.Float32, 3, 0, 0, 3), randArray(gojit.Float32, 4, 0, 3, 5),
			randArray(gojit.Float32, 5, 0, 3, 3), randArray(gojit.Float32, 6, 0, 3, 0))
	})
	t.Run("signed_zero_and_specials_f64", func(t *testing.T) {
		// -0 products onto the +0 accumulator give +0; Inf*0 gives NaN.
		a := gojit.FromFloat64([]float64{negZero, negZero, 1, math.Inf(1), -1, 0}, 2, 3)
		b := gojit.FromFloat64([]float64{0, 1, negZero, 2, 0, -3}, 3, 2)
		checkDiff(t, []dcase{mm("2x3_3x2", 0, 1)}, a, b)
	})
	t.Run("mixed_i32_f32", func(t *testing.T) {
		checkDiff(t, []dcase{{name: "promotes", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[1]) }}},
			randArray(gojit.Int32, 1, 0, 3, 4), randArray(gojit.Float32, 2, 0, 4, 2))
	})
	t.Run("larger_f32_17x33x19", func(t *testing.T) {
		checkDiff(t, []dcase{mm("17x33_33x19", 0, 1)}, randArray(gojit.Float32, 1, 0, 17, 33), randArray(gojit.Float32, 2, 0, 33, 19))
	})
}

// ---------------------------------------------------------------------------
// Weak scalars, Iota and Full.

func TestDiffScalar(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			ws := gojit.Scalar
			fracDT := dt // an int tensor combined with a fractional scalar is Float32
			if !dt.IsFloat() {
				fracDT = gojit.Float32
			}
			var cs []dcase
			if dt != gojit.Bool {
				cs = append(cs,
					dcase{name: "Mul_2_keeps_dtype", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(ws(2)) }},
					dcase{name: "Add_0.5", dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(0.5)) }},
					dcase{name: "scalar_Sub_x", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(3).Sub(in[0]) }},
					dcase{name: "Div_0", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(ws(0)) }},
					dcase{name: "Div_minus1", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Div(ws(-1)) }},
					dcase{name: "scalar_Div_x", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(100).Div(in[0]) }},
					dcase{name: "Add_minus1_wraps", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(-1)) }},
					dcase{name: "Add_300", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(300)) }},
					dcase{name: "Add_1e10", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(ws(1e10)) }},
					dcase{name: "Maximum_minus2.5", dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Maximum(ws(-2.5)) }},
					dcase{name: "Minimum_NaN", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Minimum(ws(math.NaN())) }},
					dcase{name: "Pow_2", ulps: transULPs, dt: fracDT, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Pow(ws(2)) }},
					dcase{name: "scalar_Cast", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(300.7).Cast(dt).Add(in[0]) }},
					dcase{name: "folded_scalars", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(2).Add(ws(3)).Mul(ws(2)).Mul(in[0]) }},
					dcase{name: "Where_scalar_branches", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Where(in[0].Greater(ws(0)), in[0], ws(0))
					}},
				)
			}
			cs = append(cs,
				dcase{name: "Less_1.5", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Less(ws(1.5)) }},
				dcase{name: "Equal_1", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Equal(ws(1)) }},
				dcase{name: "scalar_GreaterEqual_x", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(0).GreaterEqual(in[0]) }},
				dcase{name: "Where_two_scalars", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(in[0].NotEqual(ws(0)), ws(1.5), ws(-2))
				}},
				dcase{name: "scalar_output", dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(2.5) }},
				dcase{name: "scalar_Exp", ulps: transULPs, dt: gojit.Float32, f: func(in []*gojit.Tensor) *gojit.Tensor { return ws(1).Exp().Add(in[0].Cast(gojit.Float32)) }},
			)
			checkDiff(t, cs, edgeArray(dt, 700, 4, 8))
		})
	}
}

func TestDiffIotaFull(t *testing.T) {
	for _, dt := range allDTypes {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			var cs []dcase
			if dt != gojit.Bool {
				cs = append(cs,
					dcase{name: "Iota_axis0", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 3, 4) }},
					dcase{name: "Iota_axis1", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 1, 3, 4) }},
					dcase{name: "Iota_neg_axis", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, -2, 2, 3, 4) }},
					dcase{name: "Iota_300_wraps_u8", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 300) }},
					dcase{name: "Iota_plus_x", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Add(gojit.Iota(dt, 1, 3, 4)) }},
					dcase{name: "Iota_size1_axis", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 1, 3, 1).Add(gojit.Iota(dt, 0, 3, 1)) }},
					dcase{name: "Iota_in_reduction", f: func(in []*gojit.Tensor) *gojit.Tensor {
						return gojit.Iota(dt, 1, 3, 4).Mul(in[0]).Sum(1)
					}},
					dcase{name: "Iota_transposed", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(dt, 0, 3, 4).Transpose() }},
				)
			}
			cs = append(cs,
				dcase{name: "Full", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 2.5, 2, 3) }},
				dcase{name: "Full_minus1", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, -1, 3) }},
				dcase{name: "Full_NaN", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, math.NaN(), 2) }},
				dcase{name: "Full_scalar_shape", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 300, 1).Reshape() }},
				dcase{name: "Full_size0", dt: dt, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 1, 0, 4) }},
				dcase{name: "Full_eq_x", dt: gojit.Bool, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Full(dt, 1, 4).Equal(in[0]) }},
				dcase{name: "Full_where", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return gojit.Where(gojit.Full(gojit.Bool, 1, 3, 1), in[0], gojit.Full(dt, 0, 3, 4))
				}},
				dcase{name: "Full_concat", dt: dt, f: func(in []*gojit.Tensor) *gojit.Tensor { return gojit.Concat(0, in[0], gojit.Full(dt, 1, 2, 4)) }},
			)
			checkDiff(t, cs, edgeArray(dt, 800, 3, 4))
		})
	}
	// A function of constants only, with no parameter at all.
	t.Run("no_params", func(t *testing.T) {
		checkDiff(t, []dcase{
			{name: "Iota_mul_Full", dt: gojit.Float64, f: func([]*gojit.Tensor) *gojit.Tensor {
				return gojit.Iota(gojit.Float64, 0, 5).Mul(gojit.Full(gojit.Float64, 0.5, 5))
			}},
			{name: "Iota_sum", dt: gojit.Int32, f: func([]*gojit.Tensor) *gojit.Tensor { return gojit.Iota(gojit.Int32, 1, 4, 6).Sum(1) }},
		})
	})
}

// ---------------------------------------------------------------------------
// Fused multi-op chains.

func TestDiffChains(t *testing.T) {
	for _, dt := range []gojit.DType{gojit.Float32, gojit.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			x := randArray(dt, 901, 0, 4, 6)
			y := randArray(dt, 902, 0, 6, 4)
			g := randArray(dt, 903, 0, 6)
			b := randArray(dt, 904, 0, 6)
			cs := []dcase{
				{name: "elementwise_into_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Mul(in[0]).Add(gojit.Scalar(1)).Sqrt().Sub(in[0].Abs()).Sum(-1)
				}},
				{name: "elementwise_into_max_axis0", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Sub(in[2]).Maximum(in[3]).Div(gojit.Scalar(3)).Max(0)
				}},
				{name: "softmax_last_axis", ulps: chainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					e := x.Sub(x.Reduce(gojit.ReduceMax, true, -1)).Exp()
					return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
				}},
				{name: "layernorm", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					d := x.Sub(x.Reduce(gojit.ReduceMean, true, -1))
					v := d.Mul(d).Reduce(gojit.ReduceMean, true, -1)
					return d.Mul(v.Add(gojit.Scalar(1e-5)).Rsqrt()).Mul(in[2]).Add(in[3])
				}},
				{name: "layernorm_sqrt_div", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					mu := x.Mean(-1).ExpandDims(-1)
					d := x.Sub(mu)
					sd := d.Mul(d).Mean(-1).Add(gojit.Scalar(1e-5)).Sqrt().Reshape(4, 1)
					return d.Div(sd)
				}},
				{name: "transpose_then_add", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].Transpose().Add(in[0]) }},
				{name: "add_own_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor {
					s := in[0].Slice([]int{0, 0}, []int{4, 4})
					return s.Add(s.Transpose()).Mul(s)
				}},
				{name: "mlp", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].MatMul(in[1]).Add(in[2].Slice([]int{0}, []int{4})).Relu().Sum(0)
				}},
				{name: "shared_intermediate", f: func(in []*gojit.Tensor) *gojit.Tensor {
					s := in[0].Mul(in[0]).Sub(in[2])
					return s.Sum(0).Add(s.Max(0)).Add(s.Slice([]int{1}, []int{2}).Reshape(6))
				}},
				{name: "broadcast_expensive_row", f: func(in []*gojit.Tensor) *gojit.Tensor {
					r := in[2].Mul(in[3]).Sqrt()
					return r.BroadcastTo(4, 6).Add(in[0]).Sum()
				}},
				{name: "slice_concat_reduce", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0]
					c := gojit.Concat(1, x.Slice([]int{0, 3}, []int{4, 6}), x.Slice([]int{0, 0}, []int{4, 3}).Neg())
					return c.Prod(1).Add(c.Min(0).Sum())
				}},
				{name: "reshape_transpose_reduce", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Reshape(2, 2, 6).Transpose(2, 0, 1).Mul(in[0].Reshape(6, 2, 2)).Sum(1, 2)
				}},
				{name: "argmax_of_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Sub(in[1].Transpose()).Abs().ArgMax(1)
				}},
				{name: "compare_where_cast_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
					m := in[0].Greater(gojit.Scalar(0))
					return gojit.Where(m, in[0], in[0].Mul(gojit.Scalar(0.01))).Add(m.Cast(dt)).Sum(0)
				}},
				{name: "reduce_of_reduce", f: func(in []*gojit.Tensor) *gojit.Tensor {
					return in[0].Reduce(gojit.ReduceSum, true, 0).Sub(in[0]).Mean(1).Max()
				}},
				{name: "rounding_ops", f: func(in []*gojit.Tensor) *gojit.Tensor {
					x := in[0].Mul(gojit.Scalar(2))
					return x.Floor().Add(x.Ceil()).Sub(x.Round()).Cast(gojit.Int32).Cast(dt)
				}},
			}
			for _, opt := range []int{0, 3} {
				t.Run(fmt.Sprintf("O%d", opt), func(t *testing.T) {
					comp, ref, cerr, rerr := runBoth(t, casesFn(4, cs), anyArgs([]*gojit.Array{x, y, g, b}), gojit.WithOptLevel(opt))
					if cerr != nil || rerr != nil {
						t.Fatalf("compiled: %v\ninterpreter: %v", cerr, rerr)
					}
					for i, c := range cs {
						if d := diffArrays(comp[i], ref[i], c.ulps); d != "" {
							t.Errorf("%s: compiled differs from interpreter: %s", c.name, d)
						}
					}
				})
			}
		})
	}
	t.Run("int32_chain", func(t *testing.T) {
		x := randArray(gojit.Int32, 11, 0.2, 4, 6)
		checkDiff(t, []dcase{
			{name: "mul_add_div_sum", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Mul(in[0]).Add(gojit.Scalar(7)).Div(in[0]).Sum(-1)
			}},
			{name: "abs_max_prod", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Abs().Maximum(gojit.Scalar(1)).Prod(0) }},
			{name: "matmul_transpose", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].MatMul(in[0].Transpose()) }},
			{name: "u8_wrap_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
				return in[0].Cast(gojit.Uint8).Mul(gojit.Scalar(3)).Sub(gojit.Scalar(10)).Div(gojit.Scalar(7)).Sum(0)
			}},
		}, x)
	})
	t.Run("outputs_aliasing", func(t *testing.T) {
		// A parameter returned as is, a value returned twice, and a reshape
		// of a parameter.
		x := randArray(gojit.Float32, 12, 0.1, 3, 4)
		checkDiff(t, []dcase{
			{name: "param", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0] }},
			{name: "param_again", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0] }},
			{name: "reshape_param", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Reshape(12) }},
			{name: "sum", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(0) }},
		}, x)
	})
}

// ---------------------------------------------------------------------------
// Unsupported combinations: an error naming the op and this file's line,
// the same in both modes; never a panic.

func TestDiffUnsupported(t *testing.T) {
	bx := gojit.FromBool([]bool{true, false, true, true, false, false}, 2, 3)
	fx := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	var pos string
	cases := []struct {
		name string
		arg  *gojit.Array
		f    func(x *gojit.Tensor) *gojit.Tensor
		want string
	}{
		{"Neg_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Neg() }, "neg"},
		{"Abs_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Abs() }, "abs"},
		{"Floor_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Floor() }, "floor"},
		{"Round_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Round() }, "round"},
		{"Relu_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Relu() }, "max"},
		{"Add_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(x) }, "add"},
		{"Sub_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sub(x) }, "sub"},
		{"Mul_bool_scalar", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Mul(gojit.Scalar(2)) }, "mul"},
		{"Div_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Div(x) }, "div"},
		{"Maximum_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Maximum(x) }, "max"},
		{"Max_reduce_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Max() }, "reduce_max"},
		{"Min_reduce_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Min(0) }, "reduce_min"},
		{"ArgMax_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMax(1) }, "argmax"},
		{"ArgMin_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMin() }, "argmin"},
		{"MatMul_bool", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x.Transpose()) }, "matmul"},
		{"Iota_bool", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(gojit.Iota(gojit.Bool, 0, 2, 3)) }, "iota"},
		{"Where_float_cond", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Where(x, x, x) }, "where"},
		{"Add_shapes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(x.Transpose()) }, "add"},
		{"Reshape_size", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Reshape(4, 2) }, "reshape"},
		{"Reshape_two_minus1", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Reshape(-1, -1) }, "reshape"},
		{"Transpose_bad_perm", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Transpose(0, 0) }, "transpose"},
		{"BroadcastTo_bad", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.BroadcastTo(2, 4) }, "broadcast"},
		{"Slice_step0", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Slice([]int{0}, []int{1}, 0) }, "slice"},
		{"Slice_rank", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Slice([]int{0, 0, 0}, []int{1, 1, 1}) }, "slice"},
		{"Concat_shapes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(0, x, x.Transpose()) }, "concat"},
		{"Concat_axis", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(2, x, x) }, "concat"},
		{"Concat_scalar", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return gojit.Concat(0, x, gojit.Scalar(1)) }, "concat"},
		{"ExpandDims_range", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ExpandDims(4) }, "expand_dims"},
		{"Squeeze_non1", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Squeeze(0) }, "squeeze"},
		{"Sum_axis_range", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sum(2) }, "sum"},
		{"Sum_axis_repeated", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Sum(1, -1) }, "sum"},
		{"ArgMax_two_axes", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.ArgMax(0, 1) }, "argmax"},
		{"MatMul_contracting", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x) }, "matmul"},
		{"MatMul_scalar", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(gojit.Scalar(2)) }, "matmul"},
		{"MatMul_rank0", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.MatMul(x.Sum()) }, "matmul"},
		{"Cast_invalid", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Cast(gojit.DType(42)) }, "cast"},
		{"nil_operand", fx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Add(nil) }, "add"},
		{"poison_propagates", bx, func(x *gojit.Tensor) *gojit.Tensor { pos = here(); return x.Neg().Add(x).Sum().Exp() }, "neg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pos = ""
			fn := func(x *gojit.Tensor) *gojit.Tensor { return c.f(x) }
			want := []string{"diff_test.go:", c.want}
			// The first Call traces and sets pos to the op's line.
			cf, _ := gojit.Compile(fn)
			_, err := cf.Call(c.arg)
			if err == nil {
				t.Fatalf("Call succeeded, want an error")
			}
			if !strings.Contains(err.Error(), pos) {
				t.Errorf("error %q does not name the op's line %s", err, pos)
			}
			checkTraceError(t, fn, []any{c.arg}, want...)
		})
	}
}

// ---------------------------------------------------------------------------
// Argument errors, tracing errors and static arguments.

func TestCallErrors(t *testing.T) {
	add, err := gojit.Compile(func(x, y *gojit.Tensor) *gojit.Tensor { return x.Add(y) })
	if err != nil {
		t.Fatal(err)
	}
	scale, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor { return x.Mul(gojit.Scalar(float64(k))) })
	if err != nil {
		t.Fatal(err)
	}
	x := gojit.FromFloat32([]float32{1, 2, 3})
	bad := gojit.FromFloat32([]float32{1, 2, 3, 4, 5}, 2, 3)
	negShape := gojit.FromFloat32([]float32{}, -1, 0)
	argCases := []struct {
		name string
		f    *gojit.Func
		args []any
	}{
		{"too_few", add, []any{x}},
		{"too_many", add, []any{x, x, x}},
		{"none", add, nil},
		{"string_for_tensor", add, []any{x, "hello"}},
		{"float_slice_for_tensor", add, []any{x, []float32{1, 2, 3}}},
		{"nil_for_tensor", add, []any{x, nil}},
		{"nil_array", add, []any{x, (*gojit.Array)(nil)}},
		{"array_for_static_int", scale, []any{x, x}},
		{"string_for_static_int", scale, []any{x, "2"}},
		{"nil_for_static_int", scale, []any{x, nil}},
		{"float_for_static_int", scale, []any{x, 2.0}},
		{"shape_length_mismatch", add, []any{x, bad}},
		{"negative_dimension", add, []any{negShape, x}},
	}
	for _, c := range argCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f.Call(c.args...)
			if !errors.Is(err, gojit.ErrArgs) {
				t.Errorf("Call error %v does not wrap ErrArgs", err)
			}
			err = c.f.CallInto([]*gojit.Array{gojit.New(gojit.Float32, 3)}, c.args...)
			if !errors.Is(err, gojit.ErrArgs) {
				t.Errorf("CallInto error %v does not wrap ErrArgs", err)
			}
		})
	}
	if bad.Err() == nil {
		t.Errorf("FromFloat32 with a mismatched shape: Err() is nil")
	}
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("CallInto_interp=%v", interp), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) { return x.Neg(), x.Sum() }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
			outsCases := map[string][]*gojit.Array{
				"wrong_shape":       {gojit.New(gojit.Float64, 3, 2), gojit.New(gojit.Float64)},
				"wrong_rank":        {gojit.New(gojit.Float64, 6), gojit.New(gojit.Float64)},
				"wrong_dtype":       {gojit.New(gojit.Float32, 2, 3), gojit.New(gojit.Float64)},
				"scalar_shape":      {gojit.New(gojit.Float64, 2, 3), gojit.New(gojit.Float64, 1)},
				"too_few_outputs":   {gojit.New(gojit.Float64, 2, 3)},
				"too_many_outputs":  {gojit.New(gojit.Float64, 2, 3), gojit.New(gojit.Float64), gojit.New(gojit.Float64)},
				"nil_output":        {nil, gojit.New(gojit.Float64)},
				"malformed_output":  {gojit.FromFloat64(make([]float64, 5), 2, 3), gojit.New(gojit.Float64)},
				"no_outputs_at_all": nil,
			}
			for name, outs := range outsCases {
				err := f.CallInto(outs, x)
				if !errors.Is(err, gojit.ErrArgs) {
					t.Errorf("%s: CallInto error %v does not wrap ErrArgs", name, err)
				}
			}
			// And a correct CallInto, in place: the output is the input.
			in := gojit.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
			sum := gojit.New(gojit.Float64)
			if err := f.CallInto([]*gojit.Array{in, sum}, in); err != nil {
				t.Fatalf("CallInto in place: %v", err)
			}
			if !slices.Equal(in.Float64(), []float64{-1, -2, -3, -4, -5, -6}) || sum.Float64()[0] != 21 {
				t.Errorf("CallInto in place: got %v and %v", in, sum)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for name, fn := range map[string]any{
		"not_a_function": 42,
		"nil_function":   (func(*gojit.Tensor) *gojit.Tensor)(nil),
		"variadic":       func(xs ...*gojit.Tensor) *gojit.Tensor { return xs[0] },
		"no_results":     func(x *gojit.Tensor) {},
		"int_result":     func(x *gojit.Tensor) int { return 0 },
		"only_error":     func(x *gojit.Tensor) error { return nil },
	} {
		if _, err := gojit.Compile(fn); err == nil {
			t.Errorf("%s: Compile succeeded", name)
		}
	}
}

func TestTraceErrors(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2, 3})
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("interp=%v", interp), func(t *testing.T) {
			t.Run("panic_while_tracing", func(t *testing.T) {
				f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { panic("boom") }, opts...)
				_, err := f.Call(x)
				if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "panicked") {
					t.Errorf("got %v, want an error about the panic", err)
				}
				// A nil dereference inside the traced function too.
				f2, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { var p *[]int; _ = (*p)[0]; return x }, opts...)
				if _, err := f2.Call(x); err == nil {
					t.Errorf("nil dereference while tracing: no error")
				}
				// A failed trace is not cached: a second call reports it again.
				if _, err := f.Call(x); err == nil {
					t.Errorf("second call: no error")
				}
			})
			t.Run("returned_error", func(t *testing.T) {
				sentinel := errors.New("user says no")
				f, _ := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, error) { return x, sentinel }, opts...)
				if _, err := f.Call(x); !errors.Is(err, sentinel) {
					t.Errorf("got %v, want the function's error", err)
				}
			})
			t.Run("nil_result", func(t *testing.T) {
				f, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return nil }, opts...)
				if _, err := f.Call(x); err == nil {
					t.Errorf("nil result: no error")
				}
			})
			t.Run("tensor_from_another_trace", func(t *testing.T) {
				var kept *gojit.Tensor
				f1, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { kept = x; return x.Neg() }, opts...)
				if _, err := f1.Call(x); err != nil {
					t.Fatal(err)
				}
				f2, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Add(kept) }, opts...)
				_, err := f2.Call(x)
				if err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("got %v, want an error mentioning a different trace", err)
				}
				// Returning it directly, and the same Func with a new signature.
				f3, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return kept }, opts...)
				if _, err := f3.Call(x); err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("returning a kept tensor: got %v", err)
				}
				var first *gojit.Tensor
				f4, _ := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
					if first == nil {
						first = x
						return x
					}
					return x.Mul(first)
				}, opts...)
				if _, err := f4.Call(x); err != nil {
					t.Fatal(err)
				}
				_, err = f4.Call(gojit.FromFloat32([]float32{1, 2}))
				if err == nil || !strings.Contains(err.Error(), "different trace") {
					t.Errorf("same Func, new signature: got %v", err)
				}
			})
		})
	}
}

func TestStaticArgs(t *testing.T) {
	for _, interp := range []bool{false, true} {
		var opts []gojit.Option
		if interp {
			opts = append(opts, gojit.WithInterpreter())
		}
		t.Run(fmt.Sprintf("interp=%v", interp), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor, k int) *gojit.Tensor {
				return x.Mul(gojit.Scalar(float64(k))).Add(gojit.Scalar(1))
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			x := gojit.FromInt32([]int32{1, 2, 3}, 3)
			r2, err := f.Call(x, 2)
			if err != nil {
				t.Fatal(err)
			}
			r3, err := f.Call(x, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r2[0].Int32(), []int32{3, 5, 7}) || !slices.Equal(r3[0].Int32(), []int32{4, 7, 10}) {
				t.Errorf("k=2 gave %v, k=3 gave %v", r2[0], r3[0])
			}
			if _, err := f.Call(x, 2); err != nil {
				t.Fatal(err)
			}
			if s := f.Stats(); s.Traces != 2 || s.Calls != 3 || s.Signatures != 2 {
				t.Errorf("Stats = %+v, want 2 traces, 3 calls, 2 signatures", s)
			}
			// A new array shape is a new signature; a new array with the
			// same shape is not.
			if _, err := f.Call(gojit.FromInt32([]int32{4, 5, 6}, 3), 2); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Call(gojit.FromInt32([]int32{4, 5}, 2), 2); err != nil {
				t.Fatal(err)
			}
			if s := f.Stats(); s.Traces != 3 {
				t.Errorf("Stats = %+v, want 3 traces", s)
			}
			// Non-comparable static values (a slice) work as well.
			g, err := gojit.Compile(func(x *gojit.Tensor, perm []int) *gojit.Tensor { return x.Transpose(perm...) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			m := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
			r, err := g.Call(m, []int{1, 0})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r[0].Float32(), []float32{1, 4, 2, 5, 3, 6}) {
				t.Errorf("transpose: got %v", r[0])
			}
			if _, err := g.Call(m, []int{0, 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Call(m, []int{1, 0}); err != nil {
				t.Fatal(err)
			}
			if s := g.Stats(); s.Traces != 2 {
				t.Errorf("slice static arg: Stats = %+v, want 2 traces", s)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Focused tests of the bugs the differential tests found. Each fails until
// its bug is fixed.

// TestConcatAllEmpty is a regression test (found by TestDiffLayout, fixed
// in 369bbd6): a Concat whose operands all have size 0 along the
// concatenation axis failed to compile ("codegen: runtime error: index out
// of range [-1]"): codegen's concat skipped the empty operands and then
// read the last of no parts.
func TestConcatAllEmpty(t *testing.T) {
	cases := []struct {
		name  string
		axis  int
		shape []int
	}{
		{"axis0_0x3", 0, []int{0, 3}},
		{"axis1_3x0", 1, []int{3, 0}},
		{"axis0_0", 0, []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(x *gojit.Tensor) *gojit.Tensor { return gojit.Concat(c.axis, x, x, x) }
			comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.New(gojit.Float32, c.shape...)})
			if rerr != nil {
				t.Fatalf("interpreter: %v", rerr)
			}
			if cerr != nil {
				t.Fatalf("compiled Concat(%d) of three f32%v: %v (interpreter gives %v)", c.axis, c.shape, cerr, ref[0])
			}
			if d := diffArrays(comp[0], ref[0], 0); d != "" {
				t.Errorf("%s", d)
			}
		})
	}
}

// knownF64 is a float64 op applied to arguments whose correctly rounded
// result, computed with 300-bit mpmath, is want.
type knownF64 struct {
	name string
	f    func(x, y *gojit.Tensor) *gojit.Tensor
	x, y float64
	want float64
}

// checkKnownF64 runs every case compiled and interpreted. The compiled
// result (the C library) must be within transULPs of the true value; the
// interpreted one within interpULPs, or within interpAbs in absolute terms
// when interpAbs is not 0.
func checkKnownF64(t *testing.T, interpULPs uint64, interpAbs float64, cases []knownF64) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(x, y *gojit.Tensor) *gojit.Tensor { return c.f(x, y) }
			comp, ref, cerr, rerr := runBoth(t, fn, []any{gojit.FromFloat64([]float64{c.x}), gojit.FromFloat64([]float64{c.y})})
			if cerr != nil || rerr != nil {
				t.Fatalf("compiled: %v; interpreter: %v", cerr, rerr)
			}
			g, r := comp[0].Float64()[0], ref[0].Float64()[0]
			check := func(who string, v float64) {
				d := ulpDist(ordered64(v), ordered64(c.want))
				switch {
				case interpAbs != 0 && math.Abs(v-c.want) > interpAbs:
					t.Errorf("%s gives %v, %.3g from the true %v (documented bound %.3g)", who, v, math.Abs(v-c.want), c.want, interpAbs)
				case interpAbs == 0 && d > interpULPs:
					t.Errorf("%s gives %v, %d ulps from the true %v (allowed %d)", who, v, d, c.want, interpULPs)
				}
			}
			if gojit.LLVMVersion() == "" {
				// No LLVM: "compiled" is the interpreter too.
				check("compiled (interpreter)", g)
			} else if d := ulpDist(ordered64(g), ordered64(c.want)); d > transULPs {
				t.Errorf("compiled gives %v, %d ulps from the true %v", g, d, c.want)
			}
			check("interpreter", r)
		})
	}
}

// TestInterpLogSubnormalF64 is a regression test: Go's amd64 math.Log
// drops the exponent of subnormal float64 arguments (golang/go#56600), so
// the interpreter's Log(5e-324) was -709.09 where the truth is -744.44.
func TestInterpLogSubnormalF64(t *testing.T) {
	log := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Log() }
	checkKnownF64(t, transULPs, 0, []knownF64{
		{"Log_5e-324", log, 5e-324, 0, -744.4400719213812},
		{"Log_1e-310", log, 1e-310, 0, -713.8013788281542},
		{"Log_minNormal/4", log, minNormal64 / 4, 0, -709.782712893384},
	})
}

// interpPowDocULPs is interp/doc.go's bound for the interpreter's float64
// pow: Go's math.Pow loses accuracy as |y*log2(x)| grows, to a few hundred
// ulps (relative error around 1e-13).
const interpPowDocULPs = 1024

// TestInterpPowF64Accuracy: the compiled pow (the C library) is correctly
// rounded on these cases; the interpreter's (math.Pow) stays within the
// documented bound.
func TestInterpPowF64Accuracy(t *testing.T) {
	pow := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Pow(y) }
	checkKnownF64(t, interpPowDocULPs, 0, []knownF64{
		{"Pow_1.044_30.8", pow, 1.044078348056745, 30.81540457208517, 3.7780502717604008},
		{"Pow_1e19_-2.5", pow, 1e19, -2.5, 3.162277660168379e-48},
		{"Pow_1e300_0.94", pow, 1e300, 0.94, 9.999999999999633e+281},
		{"Pow_subnormal_1e-310_-0.25", pow, 1e-310, -0.25, 3.1622776601683816e+77},
		{"Pow_1.08e-296_-0.505", pow, 1.0767077582211616e-296, -0.5054543333472941, 3.9651413824144037e+149},
		{"Pow_3.45e121_0.4007", pow, 3.4545508204271056e+121, 0.40072127207807284, 5.046832401986203e+48},
	})
}

// TestInterpSinCosLargeF64 checks interp/doc.go's bound for |x| >= 2^29:
// "math.Sin and math.Cos ... have absolute errors around 1e-16".
func TestInterpSinCosLargeF64(t *testing.T) {
	sin := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Sin() }
	cos := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Cos() }
	checkKnownF64(t, 0, 2e-16, []knownF64{
		{"Sin_735663826.87", sin, 735663826.8683479, 0, 1.3507328804476923e-05},
		{"Sin_near_3e8pi", sin, 942477830.6344571, 0, 4.966787605994791e-08},
		{"Cos_2^63", cos, 9.223372036854776e18, 0, 0.011800076512800236},
		{"Cos_-2.6e14", cos, -264768136152581.16, 0, 9.513866212115757e-06},
	})
}

// TestInterpSinNearMultiplesOfPiF64: near multiples of pi the true sine is
// tiny and Go's argument reduction leaves an absolute error of up to about
// 1e-16 (many ulps of the tiny result), the bound interp/doc.go states; the
// compiled code is correctly rounded.
func TestInterpSinNearMultiplesOfPiF64(t *testing.T) {
	sin := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Sin() }
	checkKnownF64(t, transULPs, 1e-16, []knownF64{
		{"Sin_314168.69", sin, 314168.6901369401, 0, -8.866942007598101e-12},
		{"Sin_3141614.64", sin, 3141614.644738368, 0, 1.4266271443147556e-10},
		{"Sin_31415986.23", sin, 31415986.22615835, 0, -1.1540249924416819e-10},
		{"Sin_314159287.35", sin, 314159287.3501279, 0, 2.3169915884519576e-08},
	})
}

// TestSLPMiscompileBatchedMatMul is a regression test (found by
// FuzzCompiledVsInterpreter, fixed in 369bbd6 by making the group
// functions noinline): a batched matmul with K = 1 whose result is also
// compared, selected or maxed elementwise gave wrong values at -O2 and -O3
// (right at -O0 and -O1), for f32 and integer dtypes alike: x = [1..6] as
// f32[2,3,1], m = x.MatMul(x.Transpose(0, 2, 1)) should start
// [1 2 3 2 4 6 ...] and came out [3 3 3 6 6 6 ...]. With the groups
// inlined into the entry function and fully unrolled, LLVM 19.1.7's
// SLPVectorizerPass on the entry function (pinned with -opt-bisect-limit)
// built a shuffle whose lanes 0, 1, 3, 4 are poison; the IR before that
// pass is well defined (compiled with llc both ways and run, only the
// post-SLP version was wrong), and -vectorize-slp=false avoided it, while
// LLVMPassBuilderOptionsSetSLPVectorization(pbo, 0) did not keep the pass
// out of default<O2>. It looks like llvm/llvm-project#117170.
func TestSLPMiscompileBatchedMatMul(t *testing.T) {
	cases := []struct {
		name string
		x    *gojit.Array
		fn   any
	}{
		{"f32_where", gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3, 1), func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			m := x.MatMul(x.Transpose(0, 2, 1))
			return m, gojit.Where(m.Greater(gojit.Scalar(0)), m, gojit.Scalar(1.5))
		}},
		{"i32_maximum", gojit.FromInt32([]int32{-4, 5, -11, 15, -7, 7}, 2, 3, 1), func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			m := x.MatMul(x.Transpose(0, 2, 1))
			return m, m.Maximum(gojit.Scalar(0))
		}},
	}
	for _, c := range cases {
		for _, opt := range []int{0, 1, 2, 3} {
			t.Run(fmt.Sprintf("%s/O%d", c.name, opt), func(t *testing.T) {
				comp, ref, cerr, rerr := runBoth(t, c.fn, []any{c.x}, gojit.WithOptLevel(opt))
				if cerr != nil || rerr != nil {
					t.Fatalf("compiled: %v; interpreter: %v", cerr, rerr)
				}
				for i := range ref {
					if d := diffArrays(comp[i], ref[i], 0); d != "" {
						t.Errorf("result %d: %s\ncompiled:    %v\ninterpreted: %v", i, d, comp[i], ref[i])
					}
				}
			})
		}
	}
}

// TestDiffLarge uses tensors big enough (2**16 elements of work and more)
// for the runtime to split each group across threads, through the
// module's range entry.
func TestDiffLarge(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0.001, 300, 300)
	y := randArray(gojit.Float32, 2, 0.001, 300, 300)
	a := randArray(gojit.Float64, 3, 0, 2, 96, 130)
	b := randArray(gojit.Float64, 4, 0, 2, 130, 80)
	n := randArray(gojit.Int64, 5, 0.05, 70001)
	u := randArray(gojit.Uint8, 6, 0.05, 3, 70000)
	checkDiff(t, []dcase{
		{name: "elementwise_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Mul(in[1]).Sub(in[0].Abs().Sqrt()).Maximum(in[1])
		}},
		{name: "transpose_add", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Transpose().Add(in[1]) }},
		{name: "sum_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Mul(in[1]).Sum(1) }},
		{name: "sum_cols", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[0].Sum(0) }},
		{name: "argmin_rows", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[1].ArgMin(-1) }},
		{name: "softmax_rows", ulps: chainULPs, f: func(in []*gojit.Tensor) *gojit.Tensor {
			e := in[0].Sub(in[0].Reduce(gojit.ReduceMax, true, -1)).Exp()
			return e.Div(e.Reduce(gojit.ReduceSum, true, -1))
		}},
		{name: "matmul_f32", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[0].Slice([]int{0, 0}, []int{200, 150}).MatMul(in[1].Slice([]int{0, 0}, []int{150, 120}))
		}},
		{name: "batched_matmul_f64", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[2].MatMul(in[3]) }},
		{name: "i64_chain", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return in[4].Mul(gojit.Scalar(3)).Div(gojit.Scalar(7)).Sub(in[4].Neg())
		}},
		{name: "i64_prod", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[4].Prod() }},
		{name: "u8_broadcast_where", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return gojit.Where(in[5].Greater(gojit.Scalar(100)), in[5], in[5].Slice([]int{1}, []int{2}))
		}},
		{name: "u8_max_axis0", f: func(in []*gojit.Tensor) *gojit.Tensor { return in[5].Max(0) }},
		{name: "concat_slices", f: func(in []*gojit.Tensor) *gojit.Tensor {
			return gojit.Concat(0, in[4].Slice([]int{1}, []int{70001}, 2), in[4].Slice([]int{0}, []int{70001}, 2))
		}},
	}, x, y, a, b, n, u)
}

// TestWhereWithoutTensorOperand is a regression test (fixed in 369bbd6):
// Where whose operands include no tensor (three weak scalars) or a nil
// *Tensor recorded no error: it returned a poisoned Tensor that belonged to
// no trace, and tracer.own treated such a tensor as "not ok" without
// recording anything. The result silently disappeared: Call returned one
// array fewer than the function has results and no error, an op using it
// was silently poisoned too, and a function whose only result it was
// failed with "ir: graph has no outputs", naming neither op nor line.
func TestWhereWithoutTensorOperand(t *testing.T) {
	x := gojit.FromFloat32([]float32{1, 2})
	var pos string
	cases := map[string]any{
		"three_scalars_second_result": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), gojit.Where(gojit.Scalar(1), gojit.Scalar(2), gojit.Scalar(3))
		},
		"nil_condition": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), gojit.Where(nil, x, x)
		},
		"used_by_add": func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			pos = hereAt(1)
			return x.Neg(), x.Add(gojit.Where(gojit.Scalar(1), gojit.Scalar(2), gojit.Scalar(3)))
		},
		"only_result": func(x *gojit.Tensor) *gojit.Tensor {
			pos = hereAt(1)
			return gojit.Where(nil, x, x)
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
				f, err := gojit.Compile(fn, opts...)
				if err != nil {
					t.Fatal(err)
				}
				out, err := f.Call(x)
				if err == nil {
					t.Errorf("Call returned %d arrays (%v) and no error; want an error naming where at %s", len(out), out, pos)
					continue
				}
				if !strings.Contains(err.Error(), pos) || !strings.Contains(err.Error(), "where") {
					t.Errorf("error %q does not name where at %s", err, pos)
				}
			}
		})
	}
}

// TestReduceKeepDimsShapes: with keepDims every reduced axis stays as a
// dimension of size 1, as in NumPy and JAX. (ArgMax and ArgMin over the
// whole tensor used to keep one dimension, f32[2,3,4] -> i64[1]; fixed in
// 369bbd6.)
func TestReduceKeepDimsShapes(t *testing.T) {
	x := randArray(gojit.Float32, 1, 0, 2, 3, 4)
	cases := []struct {
		kind gojit.ReduceKind
		axes []int
		want []int
	}{
		{gojit.ReduceSum, nil, []int{1, 1, 1}},
		{gojit.ReduceMax, []int{1}, []int{2, 1, 4}},
		{gojit.ReduceMean, []int{0, -1}, []int{1, 3, 1}},
		{gojit.ReduceArgMax, []int{1}, []int{2, 1, 4}},
		{gojit.ReduceArgMin, []int{-1}, []int{2, 3, 1}},
		{gojit.ReduceArgMax, nil, []int{1, 1, 1}},
		{gojit.ReduceArgMin, nil, []int{1, 1, 1}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v_%v", c.kind, c.axes), func(t *testing.T) {
			f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Reduce(c.kind, true, c.axes...) }, gojit.WithInterpreter())
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.Call(x)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out[0].Shape(), c.want) {
				t.Errorf("Reduce(%v, true, %v) of f32[2,3,4] has shape %v, want %v", c.kind, c.axes, out[0].Shape(), c.want)
			}
		})
	}
}

// TestStaticSliceArgMutated is a regression test (fixed in 369bbd6): a
// non-comparable static argument (a slice, a map) was kept by reference in
// the signature, and the fast path compared it with reflect.DeepEqual,
// which is true at once for the same slice. A caller that changed its
// slice between two calls got the function traced for the old contents:
// a permutation changed from [1 0] to [0 1] still transposed.
func TestStaticSliceArgMutated(t *testing.T) {
	m := gojit.FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		g, err := gojit.Compile(func(x *gojit.Tensor, perm []int) *gojit.Tensor { return x.Transpose(perm...) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		perm := []int{1, 0}
		if _, err := g.Call(m, perm); err != nil {
			t.Fatal(err)
		}
		perm[0], perm[1] = 0, 1
		r, err := g.Call(m, perm)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r[0].Shape(), []int{2, 3}) || !slices.Equal(r[0].Float32(), m.Float32()) {
			t.Errorf("Transpose(0, 1) after Transpose(1, 0) with the same slice: got %v, want %v (Stats %+v)", r[0], m, g.Stats())
		}

		h, err := gojit.Compile(func(x *gojit.Tensor, s map[string]float64) *gojit.Tensor { return x.Mul(gojit.Scalar(s["k"])) }, opts...)
		if err != nil {
			t.Fatal(err)
		}
		k := map[string]float64{"k": 2}
		if _, err := h.Call(m, k); err != nil {
			t.Fatal(err)
		}
		k["k"] = 3
		r, err = h.Call(m, k)
		if err != nil {
			t.Fatal(err)
		}
		if got := r[0].Float32()[0]; got != 3 {
			t.Errorf("x*k with k changed from 2 to 3 in the same map: got %v, want 3", got)
		}
	}
}

// TestConstantOpErrorLost is a regression test (fixed in 369bbd6): an op
// that fails on a traced tensor fails the Call even when its result is
// unused, but the same failure on a tensor made only of constants (Full,
// Iota) was recorded in that constant's own tracer and never reported
// unless the poisoned result reached the trace.
func TestConstantOpErrorLost(t *testing.T) {
	var pos string
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		c := gojit.Full(gojit.Float32, 1, 3)
		pos = hereAt(1)
		_ = c.Reshape(5)
		return x.Add(c)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Call(gojit.FromFloat32([]float32{1, 2, 3}))
	if err == nil || !strings.Contains(err.Error(), pos) {
		t.Errorf("Call = %v, %v; want the reshape error at %s, as for a traced tensor", out, err, pos)
	}
}

// TestCallIntoAliasing: outputs may share memory with inputs (entirely or
// in part) and with each other; the results are as if computed into fresh
// arrays and then copied in output order.
func TestCallIntoAliasing(t *testing.T) {
	for _, opts := range [][]gojit.Option{nil, {gojit.WithInterpreter()}} {
		f, err := gojit.Compile(func(x *gojit.Tensor) (*gojit.Tensor, *gojit.Tensor) {
			return x.Mul(gojit.Scalar(2)), x.Reshape(2, 2).Transpose().Reshape(4)
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		// Output 0 shifted by one element over the input.
		buf := []float32{1, 2, 3, 4, 5}
		other := gojit.New(gojit.Float32, 4)
		if err := f.CallInto([]*gojit.Array{gojit.FromFloat32(buf[1:5]), other}, gojit.FromFloat32(buf[0:4])); err != nil {
			t.Fatal(err)
		}
		if want := []float32{1, 2, 4, 6, 8}; !slices.Equal(buf, want) {
			t.Errorf("partially overlapping output: buf = %v, want %v", buf, want)
		}
		if want := []float32{1, 3, 2, 4}; !slices.Equal(other.Float32(), want) {
			t.Errorf("second output = %v, want %v", other.Float32(), want)
		}
		// Both outputs in one array, which is also the input: the later
		// output wins.
		buf = []float32{1, 2, 3, 4}
		a := gojit.FromFloat32(buf)
		if err := f.CallInto([]*gojit.Array{a, a}, a); err != nil {
			t.Fatal(err)
		}
		if want := []float32{1, 3, 2, 4}; !slices.Equal(buf, want) {
			t.Errorf("one array for input and both outputs: %v, want %v", buf, want)
		}
	}
}
