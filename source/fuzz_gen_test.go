package source

// The program generator of FuzzCompileVsSSAInterp: a fuzz input's bytes
// choose a function F (and a helper G it calls) over int64, float64, int32,
// float32 and uint8 scalars and slices, and F's arguments. Every choice
// reads one byte; when the bytes run out every choice is 0, which is always
// a terminal one, so any input gives a valid program.
//
// The programs are valid Go by construction: constants come from per-type
// pools of representable values and never meet another constant in an
// operator (no constant overflow or constant division by zero), float to
// integer conversions sit behind a range test (out of range they are
// implementation-defined in Go), loops are bounded by constants or lengths
// and their variables are never assigned, and G is called only as a whole
// statement with variables and constants as arguments, so that a panic
// happens on the line of the statement that last set curLine (see
// fuzz_oracle_test.go).

import (
	"fmt"
	"math"
	"strings"
)

type ftype int

const (
	tI64 ftype = iota
	tF64
	tI32
	tF32
	tU8
	numTypes
)

var ftypeNames = [numTypes]string{"int64", "float64", "int32", "float32", "uint8"}

func (t ftype) String() string { return ftypeNames[t] }
func (t ftype) isFloat() bool  { return t == tF64 || t == tF32 }
func (t ftype) signed() bool   { return t != tU8 }

// constPool holds constants representable in each type.
var constPool = [numTypes][]string{
	tI64: {"1", "2", "3", "7", "-1", "-5", "100", "1 << 40", "-9223372036854775808", "9223372036854775807"},
	tF64: {"1", "0.5", "-1", "2", "3.25", "-1.5e10", "1e-300", "1e300", "0.1"},
	tI32: {"1", "2", "3", "-1", "-7", "1000", "2147483647", "-2147483648"},
	tF32: {"1", "0.5", "-1", "2", "3.25", "-1.5e10", "1e-30", "3e38", "0.1"},
	tU8:  {"1", "2", "3", "7", "128", "255", "0"},
}

type gvar struct {
	name   string
	t      ftype
	slice  bool
	assign bool // a local that statements may assign
}

type gline struct {
	indent int
	text   string
	mark   bool // starts with a statement that may panic: record its line
}

type gen struct {
	data  []byte
	pos   int
	vars  []gvar
	loops []string // enclosing loop variables
	lines []gline
	id    int
	inG   bool
	gType ftype // G's first parameter and result type
	nstmt int   // statements generated so far (bounds the program's size)
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }

func (g *gen) emit(indent int, mark bool, format string, args ...any) {
	g.lines = append(g.lines, gline{indent, fmt.Sprintf(format, args...), mark})
}

func (g *gen) varsOf(t ftype, slice, assign bool) []gvar {
	var vs []gvar
	for _, v := range g.vars {
		if v.t == t && v.slice == slice && (!assign || v.assign) {
			vs = append(vs, v)
		}
	}
	return vs
}

func (g *gen) pick(vs []gvar) gvar { return vs[g.intn(len(vs))] }

// scalar returns a variable of type t (every type has a parameter).
func (g *gen) scalar(t ftype) string { return g.pick(g.varsOf(t, false, false)).name }

func (g *gen) constant(t ftype) string {
	pool := constPool[t]
	return "(" + pool[g.intn(len(pool))] + ")"
}

// expr returns an expression of type t and whether it is a constant.
func (g *gen) expr(t ftype, depth int) (string, bool) {
	choice := g.intn(11)
	if depth >= 3 {
		choice %= 2
	}
	switch choice {
	case 0:
		return g.scalar(t), false
	case 1:
		return g.constant(t), true
	case 2: // arithmetic
		ops := []string{"+", "-", "*", "/"}
		if !t.isFloat() {
			ops = append(ops, "%", "&", "|", "^", "&^")
		}
		op := ops[g.intn(len(ops))]
		x, xc := g.expr(t, depth+1)
		y, yc := g.expr(t, depth+1)
		if xc && yc {
			y = g.scalar(t)
		}
		if yc && (op == "/" || op == "%") && y == "(0)" {
			y = "(1)"
		}
		return "(" + x + " " + op + " " + y + ")", false
	case 3: // conversion from another type
		from := ftype(g.intn(int(numTypes)))
		if from == t || from.isFloat() && !t.isFloat() {
			return g.scalar(t), false
		}
		x, c := g.expr(from, depth+1)
		if c {
			return g.constant(t), true
		}
		return t.String() + "(" + x + ")", false
	case 4: // slice element
		return g.element(t, depth)
	case 5: // math
		if !t.isFloat() {
			return g.scalar(t), false
		}
		x := g.mathCall(depth)
		if t == tF32 {
			return "float32(" + x + ")", false
		}
		return x, false
	case 6: // min, max
		x, xc := g.expr(t, depth+1)
		y, _ := g.expr(t, depth+1)
		if xc {
			x = g.scalar(t)
		}
		return []string{"min", "max"}[g.intn(2)] + "(" + x + ", " + y + ")", false
	case 7: // a length
		s := g.anySlice()
		return t.String() + "(len(" + s + "))", false
	case 8: // unary minus
		if !t.signed() {
			return g.scalar(t), false
		}
		x, c := g.expr(t, depth+1)
		if c {
			return g.constant(t), true
		}
		return "(-" + x + ")", false
	case 9: // shift
		if t.isFloat() {
			return g.scalar(t), false
		}
		x, c := g.expr(t, depth+1)
		if c {
			x = g.scalar(t)
		}
		var n string
		switch g.intn(3) {
		case 0:
			n = fmt.Sprint(g.intn(70))
		case 1:
			n = g.scalar(ftype([]ftype{tI64, tI32, tU8}[g.intn(3)]))
		default:
			n = "uint8(" + g.scalar(tI64) + ")"
		}
		return "(" + x + []string{" << ", " >> "}[g.intn(2)] + n + ")", false
	default: // a variable of type t
		return g.scalar(t), false
	}
}

func (g *gen) anySlice() string {
	var ss []gvar
	for _, v := range g.vars {
		if v.slice {
			ss = append(ss, v)
		}
	}
	return g.pick(ss).name
}

// element reads a slice element as type t: from a slice of t, or converted
// from one whose conversion to t is defined for every value.
func (g *gen) element(t ftype, depth int) (string, bool) {
	s := g.pick(g.sliceCandidates(t))
	if !s.slice {
		return s.name, false
	}
	e := s.name + "[" + g.index(s.name, depth) + "]"
	if s.t != t {
		e = t.String() + "(" + e + ")"
	}
	return e, false
}

func (g *gen) sliceCandidates(t ftype) []gvar {
	var ss []gvar
	for _, v := range g.vars {
		if v.slice && (v.t == t || !(v.t.isFloat() && !t.isFloat())) {
			ss = append(ss, v)
		}
	}
	if len(ss) == 0 { // only float slices and an integer t: read a scalar instead
		ss = append(ss, g.varsOf(t, false, false)...)
	}
	return ss
}

// index returns an int expression for indexing s: most often one clamped
// into range (so that programs run on past their first index), else one
// that may be out of range.
func (g *gen) index(s string, depth int) string {
	if g.intn(2) == 0 {
		return "min(max(" + g.rawIndex(s) + ", 0), len(" + s + ")-1)"
	}
	return g.rawIndex(s)
}

func (g *gen) rawIndex(s string) string {
	switch g.intn(6) {
	case 0:
		return fmt.Sprint(g.intn(10))
	case 1, 2:
		if len(g.loops) > 0 {
			i := g.loops[g.intn(len(g.loops))]
			switch g.intn(4) {
			case 0:
				return i + "+1"
			case 1:
				return i + "-1"
			}
			return i
		}
		return "0"
	case 3:
		return "len(" + s + ")-1"
	case 4:
		return "int(" + g.scalar(ftype([]ftype{tI64, tI32, tU8}[g.intn(3)])) + ")"
	default:
		return "len(" + s + ")-" + fmt.Sprint(1+g.intn(3))
	}
}

var (
	mathUnary  = []string{"Sqrt", "Abs", "Floor", "Ceil", "Trunc", "Exp", "Log", "Sin", "Cos", "Tan", "Tanh", "Atan", "Asin", "Acos", "Sinh", "Cosh", "Log2", "Log10", "Log1p", "Expm1", "Cbrt", "Round", "RoundToEven", "Exp2"}
	mathBinary = []string{"Atan2", "Copysign", "Max", "Min", "Mod", "Pow"}
)

// mathCall returns a float64 call of package math.
func (g *gen) mathCall(depth int) string {
	arg := func() string {
		if g.intn(4) == 0 {
			return "float64(" + g.scalar(tF32) + ")"
		}
		x, _ := g.expr(tF64, depth+1)
		return x
	}
	switch g.intn(8) {
	case 0:
		return "math." + mathBinary[g.intn(len(mathBinary))] + "(" + arg() + ", " + arg() + ")"
	case 1:
		return "math.FMA(" + arg() + ", " + arg() + ", " + arg() + ")"
	case 2:
		return []string{"math.NaN()", "math.Inf(1)", "math.Inf(-1)"}[g.intn(3)]
	default:
		return "math." + mathUnary[g.intn(len(mathUnary))] + "(" + arg() + ")"
	}
}

// cond returns a boolean expression.
func (g *gen) cond(depth int) string {
	switch g.intn(6) {
	case 0, 1, 2:
		t := ftype(g.intn(int(numTypes)))
		x, xc := g.expr(t, depth+1)
		y, _ := g.expr(t, depth+1)
		if xc {
			x = g.scalar(t)
		}
		return x + " " + []string{"<", "<=", ">", ">=", "==", "!="}[g.intn(6)] + " " + y
	case 3:
		if depth < 2 {
			return "(" + g.cond(depth+1) + ") " + []string{"&&", "||"}[g.intn(2)] + " (" + g.cond(depth+1) + ")"
		}
		return "!(" + g.scalar(tI64) + " > 0)"
	case 4:
		x, _ := g.expr(tF64, depth+1)
		switch g.intn(4) {
		case 0:
			return "math.IsNaN(" + x + ")"
		case 1:
			return "math.Signbit(" + x + ")"
		case 2:
			return "math.IsInf(" + x + ", 0)"
		}
		return "!math.IsNaN(" + x + ")"
	default:
		return "!(" + g.scalar(tF64) + " >= 0)"
	}
}

func (g *gen) newVar(t ftype) gvar {
	g.id++
	return gvar{name: fmt.Sprintf("v%d", g.id), t: t, assign: true}
}

// block generates up to n statements at the indent.
func (g *gen) block(indent, n int) {
	for range 1 + g.intn(n) {
		if g.nstmt > 40 || g.inG && g.nstmt > 8 {
			return
		}
		g.stmt(indent)
	}
}

func (g *gen) stmt(indent int) {
	g.nstmt++
	switch g.intn(10) {
	case 0, 1: // assignment
		v := g.pick(g.assignable())
		x, _ := g.expr(v.t, 0)
		g.emit(indent, true, "%s = %s", v.name, x)
	case 2: // compound assignment
		v := g.pick(g.assignable())
		ops := []string{"+=", "-=", "*="}
		if !v.t.isFloat() {
			ops = append(ops, "/=", "|=", "^=")
		}
		op := ops[g.intn(len(ops))]
		x, _ := g.expr(v.t, 1)
		if op == "/=" && x == "(0)" {
			x = "(1)"
		}
		g.emit(indent, true, "%s %s %s", v.name, op, x)
	case 3: // slice write
		s := g.pick(g.slices())
		x, _ := g.expr(s.t, 0)
		g.emit(indent, true, "%s[%s] = %s", s.name, g.index(s.name, 0), x)
	case 4: // if / else
		g.emit(indent, true, "if %s {", g.cond(0))
		g.block(indent+1, 3)
		if g.intn(2) == 0 {
			g.emit(indent, false, "} else {")
			g.block(indent+1, 3)
		}
		g.emit(indent, false, "}")
	case 5: // loop
		if len(g.loops) >= 2 {
			g.emit(indent, true, "%s++", g.pick(g.intLocals()).name)
			return
		}
		i := fmt.Sprintf("i%d", len(g.loops))
		switch g.intn(3) {
		case 0:
			bound := fmt.Sprint(1 + g.intn(10))
			if g.intn(2) == 0 {
				bound = "len(" + g.anySlice() + ")"
			}
			g.emit(indent, true, "for %s := 0; %s < %s; %s++ {", i, i, bound, i)
		case 1:
			g.emit(indent, true, "for %s := range %s {", i, g.anySlice())
		default:
			g.emit(indent, true, "for %s := range %d {", i, 1+g.intn(8))
		}
		g.emit(indent+1, false, "_ = %s", i)
		g.loops = append(g.loops, i)
		g.block(indent+1, 4)
		g.loops = g.loops[:len(g.loops)-1]
		g.emit(indent, false, "}")
	case 6: // break or continue
		if len(g.loops) == 0 {
			g.emit(indent, true, "%s--", g.pick(g.intLocals()).name)
			return
		}
		g.emit(indent, true, "if %s {", g.cond(1))
		g.emit(indent+1, false, "%s", []string{"break", "continue"}[g.intn(2)])
		g.emit(indent, false, "}")
	case 7: // call G
		vs := g.varsOf(g.gType, false, true)
		if g.inG || len(vs) == 0 {
			g.emit(indent, true, "%s++", g.pick(g.intLocals()).name)
			return
		}
		arg := func(t ftype) string {
			if g.intn(3) == 0 {
				return g.constant(t)
			}
			return g.scalar(t)
		}
		g.emit(indent, true, "%s = G(%s, %s, s0)", g.pick(vs).name, arg(g.gType), arg(tI64))
	default: // float to integer, guarded
		var ints []gvar
		for _, v := range g.assignable() {
			if !v.t.isFloat() {
				ints = append(ints, v)
			}
		}
		if len(ints) == 0 {
			g.emit(indent, true, "_ = %s", g.scalar(tF64))
			return
		}
		v := g.pick(ints)
		f := g.scalar([]ftype{tF64, tF32}[g.intn(2)])
		lo, hi := "-1e6", "1e6"
		if v.t == tU8 {
			lo, hi = "-1", "256"
		}
		g.emit(indent, true, "if %s > %s && %s < %s {", f, lo, f, hi)
		g.emit(indent+1, true, "%s = %s(%s)", v.name, v.t, f)
		g.emit(indent, false, "}")
	}
}

func (g *gen) assignable() []gvar {
	var vs []gvar
	for _, v := range g.vars {
		if v.assign {
			vs = append(vs, v)
		}
	}
	return vs
}

func (g *gen) intLocals() []gvar {
	var vs []gvar
	for _, v := range g.assignable() {
		if !v.t.isFloat() {
			vs = append(vs, v)
		}
	}
	return vs
}

func (g *gen) slices() []gvar {
	var vs []gvar
	for _, v := range g.vars {
		if v.slice {
			vs = append(vs, v)
		}
	}
	return vs
}

// locals declares a few locals of random types, always at least one
// integer local, and marks them used.
func (g *gen) locals(indent int) {
	n := 1 + g.intn(4)
	for k := range n {
		t := ftype(g.intn(int(numTypes)))
		if k == 0 && t.isFloat() {
			t = tI64
		}
		x, _ := g.expr(t, 1)
		v := g.newVar(t)
		g.emit(indent, true, "var %s %s = %s", v.name, t, x)
		g.emit(indent, false, "_ = %s", v.name)
		g.vars = append(g.vars, v)
	}
}

// fuzzProgram is one generated program: F's and G's text and F's
// arguments.
type fuzzProgram struct {
	lines   []gline
	sliceTs []ftype
	slices  [][]uint64 // element bits (floats) or values (integers, as uint64)
	scalars [numTypes]uint64
}

// genProgram builds a program from data.
func genProgram(data []byte) *fuzzProgram {
	g := &gen{data: data}
	p := &fuzzProgram{}
	for range 3 {
		p.sliceTs = append(p.sliceTs, ftype(g.intn(int(numTypes))))
	}
	// G(a T, b int64, s9 []T0) T, called with F's s0.
	g.gType = ftype(g.intn(int(numTypes)))
	g.inG = true
	g.vars = []gvar{{name: "a", t: g.gType, assign: true}, {name: "b", t: tI64, assign: true}}
	for t := range numTypes {
		if len(g.varsOf(t, false, false)) == 0 {
			g.vars = append(g.vars, gvar{name: "c" + fmt.Sprint(int(t)), t: t})
		}
	}
	g.vars = append(g.vars, gvar{name: "s9", t: p.sliceTs[0], slice: true})
	var gconsts []string
	for _, v := range g.vars[2:] {
		if !v.slice {
			gconsts = append(gconsts, fmt.Sprintf("var %s %s = 1", v.name, v.t))
		}
	}
	g.emit(0, false, "func G(a %s, b int64, s9 []%s) %s {", g.gType, p.sliceTs[0], g.gType)
	for _, c := range gconsts {
		g.emit(1, false, "%s", c)
		g.emit(1, false, "_ = %s", strings.Fields(c)[1])
	}
	g.locals(1)
	g.block(1, 3)
	x, _ := g.expr(g.gType, 0)
	g.emit(1, true, "return %s", x)
	g.emit(0, false, "}")
	g.emit(0, false, "")

	// F(s0, s1, s2 []T..., x0 int64, x1 float64, x2 int32, x3 float32, x4 uint8) (int64, float64).
	g.inG, g.nstmt = false, 0
	g.vars = nil
	var params []string
	for k, t := range p.sliceTs {
		name := fmt.Sprintf("s%d", k)
		g.vars = append(g.vars, gvar{name: name, t: t, slice: true})
		params = append(params, name+" []"+t.String())
	}
	for t := range numTypes {
		name := fmt.Sprintf("x%d", int(t))
		g.vars = append(g.vars, gvar{name: name, t: t, assign: true})
		params = append(params, name+" "+t.String())
	}
	g.emit(0, false, "func F(%s) (int64, float64) {", strings.Join(params, ", "))
	g.locals(1)
	g.block(1, 8)
	r0, _ := g.expr(tI64, 0)
	r1, _ := g.expr(tF64, 0)
	g.emit(1, true, "return %s, %s", r0, r1)
	g.emit(0, false, "}")
	p.lines = g.lines

	for _, t := range p.sliceTs {
		n := 3 + g.intn(6)
		if g.intn(8) == 0 {
			n = g.intn(3)
		}
		s := make([]uint64, n)
		for i := range s {
			s[i] = g.value(t)
		}
		p.slices = append(p.slices, s)
	}
	for t := range numTypes {
		p.scalars[t] = g.value(t)
	}
	return p
}

// value returns an argument value of type t as bits (floats) or a
// sign-extended integer.
func (g *gen) value(t ftype) uint64 {
	raw := func(n int) uint64 {
		var u uint64
		for range n {
			u = u<<8 | uint64(g.byte())
		}
		return u
	}
	k := g.intn(12)
	switch t {
	case tF64:
		pool := []float64{0, 1, -1, 0.5, 3, 100.25, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), 1e308, 5e-324}
		if k < len(pool)-1 {
			return math.Float64bits(pool[k])
		}
		return raw(8)
	case tF32:
		pool := []float32{0, 1, -1, 0.5, 3, 100.25, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), 3e38, 1e-45}
		if k < len(pool)-1 {
			return uint64(math.Float32bits(pool[k]))
		}
		return raw(4)
	case tI64:
		pool := []int64{0, 1, -1, 2, 7, -3, 1 << 40, math.MinInt64, math.MaxInt64, 64, -64}
		if k < len(pool) {
			return uint64(pool[k])
		}
		return raw(8)
	case tI32:
		pool := []int32{0, 1, -1, 2, 7, -3, 31, math.MinInt32, math.MaxInt32, 32, -33}
		if k < len(pool) {
			return uint64(int64(pool[k]))
		}
		return uint64(int64(int32(raw(4))))
	default:
		if k < 6 {
			return uint64([]uint8{0, 1, 2, 7, 128, 255}[k])
		}
		return raw(1)
	}
}
