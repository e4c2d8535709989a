package codegen

import (
	"maps"
	"math"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// Deferred bounds checks. A group that gathers (Take, TakeAlongAxis) at
// indices computed inside it checks every index it reads. Branching to
// the slow path of checkIndex at each read keeps LLVM from vectorizing the
// loop: a conditional call is in its body. Such a group therefore runs
// twice when needed: the fast nest clamps every bad index to 0 (a
// select, so nothing is read out of bounds) and ors the compare into a
// flag, a reduction the vectorizer keeps in a vector register; after the
// nest, one branch on the flag runs the group's range again with the
// branching checks, which record the errors in the interpreter's order
// (indexing.go) and store the same values. A call with no bad index pays
// one compare and one or per index instead of a branch.

// gathers reports whether v's fused tree in the group reads a gathered
// value; seen holds the values already visited.
func (gr *group) gathers(v ir.Value, seen map[ir.Value]bool) bool {
	if seen[v] || (v != gr.root && gr.p.Materialized[v]) {
		return false
	}
	seen[v] = true
	n := &gr.g.Nodes[v]
	if n.Op == ir.OpTake || n.Op == ir.OpTakeAlongAxis {
		return true
	}
	for _, a := range n.Args {
		if gr.gathers(a, seen) {
			return true
		}
	}
	return false
}

// emitDeferredChecks writes nest, the group's loops, with deferred checks,
// then the branch on the flag to a second copy of nest with the branching
// checks.
//
// Each copy starts from the values known before the nest: a value the
// fast copy computed outside any loop (a 0-D group has none) must not be
// reused by the second, whose checks would then never run.
func (gr *group) emitDeferredChecks(nest func()) {
	flag := gr.alloca("i8")
	gr.stmt("store i8 0, ptr %s", flag)
	saved := gr.memo
	gr.memo = maps.Clone(saved)
	gr.anyBad = flag
	nest()
	gr.anyBad = ""
	bad := gr.ins("icmp ne i8 %s, 0", gr.ins("load i8, ptr %s", flag))
	slow, done := gr.newLabel("recheck"), gr.newLabel("checked")
	gr.stmt("br i1 %s, label %%%s, label %%%s%s", bad, slow, done, gr.coldWeights())
	gr.block(slow)
	gr.memo = maps.Clone(saved)
	nest()
	gr.stmt("br label %%%s", done)
	gr.block(done)
	gr.memo = saved
}

// checkedIndex is checkIndex for the index tensor idx read at ii (pos
// computes ii's position), along an axis of size d. An index of 32 bits
// or fewer along a static axis that int32 can hold is checked in 32-bit
// arithmetic: a vector of them then fills one register rather than two,
// and only the checked index is widened for the address. The result is
// the same: the wrap (i+d when negative) cannot overflow, and the bad
// index is reported with its own value.
func (gr *group) checkedIndex(v, idx ir.Value, ii *index, pos func() string, d string) string {
	dt := gr.g.Nodes[idx].DType
	size, err := strconv.Atoi(d)
	if (dt != ir.Int32 && dt != ir.Uint8) || err != nil || size > math.MaxInt32 {
		return gr.checkIndex(v, gr.indexValue(idx, ii), pos(), d)
	}
	iv := gr.cast(dt, ir.Int32, gr.value(idx, ii))
	if !checkIndices {
		neg := gr.ins("icmp slt i32 %s, 0", iv)
		w := gr.ins("select i1 %s, i32 %s, i32 %s", neg, gr.ins("add i32 %s, %s", iv, d), iv)
		return gr.ins("zext i32 %s to i64", w)
	}
	gr.errs = true
	gr.declare(indexErrorFn, indexErrorDef)
	neg := gr.ins("icmp slt i32 %s, 0", iv)
	w := gr.ins("select i1 %s, i32 %s, i32 %s", neg, gr.ins("add i32 %s, %s", iv, d), iv)
	bad := gr.ins("icmp uge i32 %s, %s", w, d)
	if gr.anyBad != "" {
		seen := gr.ins("load i8, ptr %s", gr.anyBad)
		gr.stmt("store i8 %s, ptr %s", gr.ins("or i8 %s, %s", seen, gr.ins("zext i1 %s to i8", bad)), gr.anyBad)
	} else {
		slow, ok := gr.newLabel("oob"), gr.newLabel("inb")
		gr.stmt("br i1 %s, label %%%s, label %%%s%s", bad, slow, ok, gr.coldWeights())
		gr.block(slow)
		gr.stmt("call void @%s(ptr %%err, i64 %d, i64 %s, i64 %s)", indexErrorFn, v, pos(), gr.ins("sext i32 %s to i64", iv))
		gr.stmt("br label %%%s", ok)
		gr.block(ok)
	}
	return gr.ins("zext i32 %s to i64", gr.ins("select i1 %s, i32 0, i32 %s", bad, w))
}

// gatherByte reads a byte-sized element of table x at the checked
// position xi as the byte of a 32-bit load: LLVM vectorizes a gather of
// bytes as 16 scalar loads and inserts, but one of 32-bit words as one
// vpgatherdd on AVX-512. The word is the one starting at the byte, or, for
// the last three bytes of the buffer, the buffer's last word, so no byte
// outside it is read; a shift brings the byte down (little-endian, as
// every host gojit targets). It applies when x is a materialized buffer
// of at least 4 bytes, directly or through reshapes (which keep linear
// offsets), in a static module.
func (gr *group) gatherByte(x ir.Value, xi *index) (string, bool) {
	if gr.dyn != nil {
		return "", false
	}
	m := x
	for m == gr.root || !gr.p.Materialized[m] {
		n := &gr.g.Nodes[m]
		if n.Op != ir.OpReshape {
			return "", false
		}
		m = n.Args[0]
	}
	n := &gr.g.Nodes[m]
	size := n.Shape.Size()
	if _, local := gr.local[m]; local || memType(n.DType) != "i8" || size < 4 || size > math.MaxInt32 {
		return "", false
	}
	off := gr.ins("trunc i64 %s to i32", gr.linear(xi))
	if gr.target.AVX512 && size >= windowBytes {
		return gr.gatherWindow(gr.buf(m), off, size, n.DType), true // window.go
	}
	last := size - 4
	base := gr.ins("select i1 %s, i32 %d, i32 %s", gr.ins("icmp ugt i32 %s, %d", off, last), last, off)
	sh := gr.ins("shl i32 %s, 3", gr.ins("sub i32 %s, %s", off, base))
	p := gr.ins("getelementptr inbounds i8, ptr %s, i64 %s", gr.buf(m), gr.ins("zext i32 %s to i64", base))
	word := gr.ins("load i32, ptr %s, align 1", p)
	b := gr.ins("trunc i32 %s to i8", gr.ins("lshr i32 %s, %s", word, sh))
	if n.DType == ir.Bool {
		b = gr.ins("icmp ne i8 %s, 0", b)
	}
	return b, true
}
