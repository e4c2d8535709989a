package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// fn accumulates the text of one LLVM function. Instructions are appended
// at the end of the current basic block; loops open new blocks.
type fn struct {
	b     strings.Builder
	tmp   int
	label int
	cur   string            // name of the block being written
	memo  map[string]string // value@index -> SSA name, for the current loop body
	decls map[string]string // intrinsic and libm declarations this function needs
	// loopIDs numbers the loop metadata nodes of the whole module; nil
	// when the function's loops carry no metadata.
	loopIDs *metadata
	// heavy reports that the loop body being written computes a float32
	// exp or tanh (vecmath.go); nested reports that it contains a loop.
	heavy, nested bool
	// noUnroll marks every loop the function writes
	// llvm.loop.unroll.disable (see closeLoop).
	noUnroll bool
	// target is the host the module is generated for.
	target Target
	// used lists the functions no call names yet, which LLVM must keep
	// (the vector variants of vecmath_avx512.go and divide.go); attrs
	// holds the module's attribute groups beyond #0 and #1, by number.
	used  map[string]bool
	attrs map[int]string
	// dynSize is the dynamic dimension's size in a dynamic module
	// (GenerateDynamic), 0 otherwise. The values computed from %size
	// (its multiples that dimensions need, constants that follow it) are
	// computed once, in pre (the entry block); defined holds their names.
	dynSize int
	pre     *strings.Builder
	defined map[string]bool
}

// define adds "name = text" to the entry block once, and returns name.
func (f *fn) define(name, text string) string {
	if !f.defined[name] {
		if f.defined == nil {
			f.defined = map[string]bool{}
		}
		f.defined[name] = true
		fmt.Fprintf(f.pre, "  %s = %s\n", name, text)
	}
	return name
}

// times returns n, a dimension or a product of dimensions, as an LLVM
// operand: when dynamic, %size times n/size (computed in the entry
// block), else the constant n. n is then a multiple of the size unless
// it depends on it some other way, as the square of it; the constant
// then differs between the runtime's two traces, which it reports.
func (f *fn) times(n int, dynamic bool) string {
	if !dynamic || f.dynSize == 0 || n%f.dynSize != 0 {
		return strconv.Itoa(n)
	}
	a := n / f.dynSize
	if a == 1 {
		return "%size"
	}
	return f.define("%size"+strconv.Itoa(a), "mul nuw nsw i64 %size, "+strconv.Itoa(a))
}

// Attribute groups of the module: #0 the entry points, #1 the group
// functions (gen.go), and one per kind of call site that names vector
// variants (vecmath_avx512.go, divide.go).
const (
	attrExpF32 = 2 + iota
	attrDivF32
	attrDivF64
	attrExpF64
	attrGather8
)

// variant names vector function vname of lanes lanes as a variant of
// scalar function name, in the vector-function ABI's mangling; params has
// a token per parameter: v for a vector, u for a uniform scalar.
func variant(lanes int, params, name, vname string) string {
	return fmt.Sprintf("_ZGV_LLVM_N%d%s_%s(%s)", lanes, params, name, vname)
}

// variantsAttr is attribute group n, which gives its call sites the
// vector variants the loop vectorizer may call instead (the first that
// fits wins).
func variantsAttr(n int, variants []string) string {
	return fmt.Sprintf("attributes #%d = { \"vector-function-abi-variant\"=\"%s\" }\n", n, strings.Join(variants, ","))
}

// lateInline is the attribute list of a pure helper that must stay a call
// until the loop vectorizer has replaced it by its vector variants and
// that internal/llvm then inlines ("gojit-late-inline", see
// vecmath_avx512.go). optnone keeps the optimization pipeline off its
// body, which is already what the backend should see: running the O3
// function passes over the scalar definition and its three vector
// variants took about 1.4 ms of each compile of the 6-op function (a
// quarter of the pipeline) and left the machine code the same.
// internal/llvm drops optnone with noinline before inlining. Since optnone
// also stops the pipeline from inferring attributes, the ones the
// vectorizer and the inliner rely on are stated: the helper reads and
// writes no memory, always returns and never unwinds.
const lateInline = `noinline optnone nounwind memory(none) willreturn "gojit-late-inline"`

// keep adds function name to the module's @llvm.compiler.used.
func (f *fn) keep(name string) {
	if f.used == nil {
		f.used = map[string]bool{}
	}
	f.used[name] = true
}

// attr adds attribute group number n with its text.
func (f *fn) attr(n int, text string) {
	if f.attrs == nil {
		f.attrs = map[int]string{}
	}
	f.attrs[n] = text
}

// metadata collects the numbered metadata nodes of a module: !0 is the
// !nontemporal marker (stream.go), loops get the numbers after it.
type metadata struct {
	nodes []string
}

// loop returns a new loop ID carrying the given properties (each the
// text of a metadata tuple); tag is appended to the ID's node.
func (m *metadata) loop(tag string, props ...string) string {
	id := len(m.nodes) + 1
	refs := "!" + strconv.Itoa(id)
	for i := range props {
		refs += ", !" + strconv.Itoa(id+1+i)
	}
	m.nodes = append(m.nodes, fmt.Sprintf("!%d = distinct !{%s}%s", id, refs, tag))
	for i, p := range props {
		m.nodes = append(m.nodes, fmt.Sprintf("!%d = !{%s}", id+1+i, p))
	}
	return "!" + strconv.Itoa(id)
}

const unrollDisable = `!"llvm.loop.unroll.disable"`

// interleaved returns a new loop ID asking the vectorizer to interleave
// the loop twice.
func (m *metadata) interleaved() string {
	return m.loop("", `!"llvm.loop.interleave.count", i32 2`)
}

// interleavedBy returns a new loop ID asking the vectorizer to
// interleave the loop n times and LLVM not to unroll it otherwise.
func (m *metadata) interleavedBy(n int) string {
	return m.loop("", fmt.Sprintf(`!"llvm.loop.interleave.count", i32 %d`, n), unrollDisable)
}

// noUnroll returns a new loop ID asking LLVM not to unroll the loop.
func (m *metadata) noUnroll() string { return m.loop("", unrollDisable) }

// done returns a new loop ID asking LLVM neither to vectorize nor to
// unroll the loop. forceWidth leaves it alone: a width would turn the
// vectorizer back on.
func (m *metadata) done() string {
	return m.loop(" ; done", `!"llvm.loop.vectorize.enable", i1 false`, unrollDisable)
}

// forceWidth asks the vectorizer for w lanes in every loop that has an ID.
// Given a width, its planner builds and costs that one plan instead of
// one per power of two up to the widest, a quarter of the short
// pipeline's time on the 6-op function, for the same code when w is the
// width it would have chosen (see vectorWidth). The vectorizer still
// weighs w against scalar code, so a loop of a few elements stays scalar
// (vectorize.enable would force a vector loop that never runs).
func (m *metadata) forceWidth(w int) {
	id := len(m.nodes) + 1
	for i, n := range m.nodes {
		if strings.Contains(n, " = distinct !{") && !strings.HasSuffix(n, " ; done") {
			m.nodes[i] = strings.TrimSuffix(n, "}") + ", !" + strconv.Itoa(id) + "}"
		}
	}
	m.nodes = append(m.nodes, fmt.Sprintf("!%d = !{!\"llvm.loop.vectorize.width\", i32 %d}", id, w))
}

// interleavedNoUnroll returns a new loop ID asking the vectorizer to
// interleave the loop twice and LLVM not to unroll it otherwise.
func (m *metadata) interleavedNoUnroll() string { return m.interleavedBy(2) }

// ins appends "%tN = <text>" and returns %tN.
func (f *fn) ins(format string, args ...any) string {
	f.tmp++
	name := "%t" + strconv.Itoa(f.tmp)
	fmt.Fprintf(&f.b, "  %s = ", name)
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteByte('\n')
	return name
}

// stmt appends an instruction that defines nothing.
func (f *fn) stmt(format string, args ...any) {
	f.b.WriteString("  ")
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteByte('\n')
}

func (f *fn) block(name string) {
	fmt.Fprintf(&f.b, "%s:\n", name)
	f.cur = name
}

func (f *fn) newLabel(prefix string) string {
	f.label++
	return prefix + strconv.Itoa(f.label)
}

// declare records a function declaration the module must carry.
func (f *fn) declare(name, decl string) {
	if f.decls == nil {
		f.decls = map[string]string{}
	}
	f.decls[name] = decl
}

// loop is an open counted loop: iv runs over [start, end).
type loop struct {
	iv, body, latch, exit string
	end                   string
	savedMemo             map[string]string
	heavy, nested         bool // the enclosing body's flags
	// noUnroll keeps LLVM from unrolling the loop: see mmCtx.row.
	noUnroll bool
	// done marks a loop whose code is final as written: vectorized by
	// hand, or an outer loop of a tiled nest. It asks LLVM neither to
	// vectorize nor to unroll it (metadata.done), which for such loops
	// only adds code to compile (see matmul.go's tiling).
	done bool
	// interleave, when above 0, is the interleave count the vectorizer
	// is asked for, with no unrolling besides (see emitReduceRows).
	interleave int
}

// openLoop starts a loop over [start, end) and leaves f in its body. The
// guard skips empty ranges; the memo table is scoped to the body, because
// values computed inside do not dominate code after the loop.
func (f *fn) openLoop(start, end string) *loop {
	l := &loop{body: f.newLabel("body"), latch: f.newLabel("latch"), exit: f.newLabel("exit"), end: end}
	pre := f.cur
	guard := f.ins("icmp slt i64 %s, %s", start, end)
	f.stmt("br i1 %s, label %%%s, label %%%s", guard, l.body, l.exit)
	f.block(l.body)
	f.tmp++
	l.iv = "%i" + strconv.Itoa(f.tmp)
	f.stmt("%s = phi i64 [ %s, %%%s ], [ %s.next, %%%s ]", l.iv, start, pre, l.iv, l.latch)
	l.savedMemo = f.memo
	l.heavy, l.nested = f.heavy, f.nested
	f.heavy, f.nested = false, false
	f.memo = make(map[string]string, len(f.memo))
	for k, v := range l.savedMemo {
		f.memo[k] = v
	}
	return l
}

// closeLoop ends the body and leaves f in the loop's exit block. An
// innermost loop that computes a float32 exp or tanh asks to be
// interleaved twice: the vectorizer's cost model leaves such long bodies
// at one vector per iteration, whose dependency chain (some 20
// instructions) then bounds the loop by latency rather than throughput.
func (f *fn) closeLoop(l *loop) {
	f.stmt("br label %%%s", l.latch)
	f.block(l.latch)
	f.stmt("%s.next = add nuw nsw i64 %s, 1", l.iv, l.iv)
	c := f.ins("icmp slt i64 %s.next, %s", l.iv, l.end)
	md := ""
	switch {
	case f.loopIDs == nil:
	case l.done:
		md = ", !llvm.loop " + f.loopIDs.done()
	case l.interleave > 0:
		md = ", !llvm.loop " + f.loopIDs.interleavedBy(l.interleave)
	case f.heavy && !f.nested && f.noUnroll:
		md = ", !llvm.loop " + f.loopIDs.interleavedNoUnroll()
	case l.noUnroll || f.noUnroll:
		md = ", !llvm.loop " + f.loopIDs.noUnroll()
	case f.heavy && !f.nested:
		md = ", !llvm.loop " + f.loopIDs.interleaved()
	}
	f.stmt("br i1 %s, label %%%s, label %%%s%s", c, l.body, l.exit, md)
	f.block(l.exit)
	f.memo = l.savedMemo
	f.heavy, f.nested = l.heavy || f.heavy, true
}

// index is a position in a tensor of some shape, known by its coordinates,
// its row-major linear offset, or both. Missing parts are computed on
// demand, so a chain of same-shape elementwise ops over a flat loop never
// computes coordinates, and loads from a buffer never need them.
type index struct {
	key   string // identity for memoization: equal keys denote the same position
	shape ir.Shape
	// dyn marks the axes proportional to the dynamic size, whose extents
	// and strides come from %size (fn.times); nil when there are none.
	dyn  []bool
	dims []string // SSA i64 per dimension, "" when not yet computed
	lin  string   // SSA i64 linear offset, "" when not yet computed
}

func newIndex(key string, shape ir.Shape) *index {
	return &index{key: key, shape: shape, dims: make([]string, len(shape))}
}

// extent returns dimension k of ix's shape as an operand.
func (f *fn) extent(ix *index, k int) string {
	return f.times(ix.shape[k], ix.dyn != nil && ix.dyn[k])
}

// stride returns the stride of axis k of ix's shape as an operand.
func (f *fn) stride(ix *index, k int) string {
	dynamic := false
	for j := k + 1; j < len(ix.dyn); j++ {
		dynamic = dynamic || ix.dyn[j]
	}
	return f.times(ix.shape.Strides()[k], dynamic)
}

// dim returns coordinate k of ix.
func (f *fn) dim(ix *index, k int) string {
	if ix.shape[k] == 1 {
		return "0"
	}
	if ix.dims[k] == "" {
		lin := f.linear(ix)
		st := f.stride(ix, k)
		q := lin
		if st != "1" {
			q = f.ins("udiv i64 %s, %s", lin, st)
		}
		if k > 0 {
			q = f.ins("urem i64 %s, %s", q, f.extent(ix, k))
		}
		ix.dims[k] = q
	}
	return ix.dims[k]
}

// linear returns the row-major offset of ix.
func (f *fn) linear(ix *index) string {
	if ix.lin != "" {
		return ix.lin
	}
	acc := ""
	for k, d := range ix.shape {
		if d == 1 {
			continue
		}
		term := f.dim(ix, k)
		if st := f.stride(ix, k); st != "1" {
			term = f.ins("mul nuw nsw i64 %s, %s", term, st)
		}
		if acc == "" {
			acc = term
		} else {
			acc = f.ins("add nuw nsw i64 %s, %s", acc, term)
		}
	}
	if acc == "" {
		acc = "0"
	}
	ix.lin = acc
	return acc
}
