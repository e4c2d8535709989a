package codegen

import (
	"maps"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// Non-temporal stores for large outputs.
//
// A flat elementwise group that moves at least the target's StreamBytes
// (its output and the buffers it reads; DefaultStreamBytes unless set) writes its output with non-temporal
// (streaming) stores, which go to memory without
// first reading the destination's cache lines and without evicting the
// inputs from the cache. x86 has such stores only for aligned vectors, and
// LLVM's loop vectorizer refuses a scalar store marked !nontemporal unless
// it is aligned to a whole vector, so the loop computes into a small
// aligned stack tile, which the vectorizer handles as any other loop and
// which stays in L1, and copies each full tile to the output with explicit
// aligned vector stores marked !nontemporal:
//
//	[start, a0)  ordinary loop up to the first 64-byte boundary of the output
//	[a0, a1)     tiles of streamTileBytes: compute into the tile, stream it out
//	[a1, end)    ordinary loop over the rest
//
// An output whose elements are not aligned to their size (never the case
// for Go slices) runs the ordinary loop over the whole range. A fence at
// the end orders the streaming stores before whatever the caller does
// next (they are weakly ordered). The values stored are the same as the
// ordinary loop's, so results do not change.
const (
	// DefaultStreamBytes is the streaming threshold of a Target that
	// sets none: groups moving less stay in the cache.
	DefaultStreamBytes = 2 << 20
	streamTileBytes    = 1 << 10 // one tile: 16 lines of 64 bytes
	streamAlign        = 64      // bytes per aligned vector store
)

// streamOr emits stream() if the flat group of root n writes its output
// with non-temporal stores, plain() otherwise. In a dynamic module where
// the bytes the group moves grow with the batch size, it emits both, and
// a test of %size picks one at run time.
func (gr *group) streamOr(n *ir.Node, stream, plain func()) {
	fixed, perB := gr.moved(n)
	streamMinBytes := gr.target.streamMin()
	if fixed < 0 || perB == 0 || fixed >= streamMinBytes {
		if fixed >= streamMinBytes {
			stream()
		} else {
			plain()
		}
		return
	}
	// Stream from the first batch size at which the group moves
	// streamMinBytes.
	least := (streamMinBytes - fixed + perB - 1) / perB
	yes, no, join := gr.newLabel("stream"), gr.newLabel("nostream"), gr.newLabel("streamed")
	gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp uge i64 %%size, %d", least), yes, no)
	// Neither branch's values dominate the other's code or the join.
	saved := gr.memo
	gr.memo = maps.Clone(saved)
	gr.block(yes)
	stream()
	gr.stmt("br label %%%s", join)
	gr.memo = maps.Clone(saved)
	gr.block(no)
	plain()
	gr.stmt("br label %%%s", join)
	gr.block(join)
	gr.memo = saved
}

// moved returns the bytes the flat group of root n moves (its output and
// the buffers it reads): fixed plus perB times the batch size, perB being
// 0 but in a dynamic module. fixed is -1 when the group must not stream
// whatever its size.
func (gr *group) moved(n *ir.Node) (fixed, perB int) {
	if _, ok := gr.local[gr.root]; ok || gr.reread[gr.root] { // read again soon
		return -1, 0
	}
	esz := memSize(n.DType)
	if streamTileBytes%esz != 0 {
		return -1, 0
	}
	add := func(v ir.Value, bytes int) {
		if gr.dyn != nil && int(v) < len(gr.dyn.Axes) && gr.dyn.Axes[v] != nil && bytes%gr.dyn.Size == 0 {
			perB += bytes / gr.dyn.Size
		} else {
			fixed += bytes
		}
	}
	add(gr.root, n.Shape.Size()*esz)
	seen := map[ir.Value]bool{}
	var walk func(v ir.Value)
	walk = func(v ir.Value) {
		a := &gr.g.Nodes[v]
		if v != gr.root && gr.p.Materialized[v] {
			if !seen[v] {
				seen[v] = true
				add(v, a.Shape.Size()*memSize(a.DType))
			}
			return
		}
		for _, x := range a.Args {
			walk(x)
		}
	}
	walk(gr.root)
	return fixed, perB
}

// memSize is the size in bytes of an element of dt in memory.
func memSize(dt ir.DType) int {
	if dt == ir.Bool {
		return 1
	}
	return dt.Size()
}

// emitStreamingMap writes the loop of root n over the linear range
// [start, end) in the three parts described above; at(off) is the position
// of linear offset off.
func (gr *group) emitStreamingMap(n *ir.Node, start, end string, at func(off string) *index) {
	esz := memSize(n.DType)
	mt := memType(n.DType)
	per := streamTileBytes / esz
	// a0: the first element at or after %start on a 64-byte boundary,
	// clamped to %end; %end when the output is misaligned for its type.
	first := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", mt, gr.out, start)
	addr := gr.ins("ptrtoint ptr %s to i64", first)
	neg := gr.ins("sub i64 0, %s", addr)
	gap := gr.ins("and i64 %s, %d", neg, streamAlign-1)
	peel := gap
	if esz > 1 {
		peel = gr.ins("udiv i64 %s, %d", gap, esz)
	}
	odd := "false"
	if esz > 1 {
		rem := gr.ins("and i64 %s, %d", addr, esz-1)
		odd = gr.ins("icmp ne i64 %s, 0", rem)
	}
	want := gr.ins("add nuw nsw i64 %s, %s", start, peel)
	short := gr.ins("icmp slt i64 %s, %s", end, want)
	clamped := gr.ins("select i1 %s, i64 %s, i64 %s", short, end, want)
	a0 := gr.ins("select i1 %s, i64 %s, i64 %s", odd, end, clamped)
	// a1: a0 plus as many whole tiles as fit.
	left := gr.ins("sub nsw i64 %s, %s", end, a0)
	tiles := gr.ins("sdiv i64 %s, %d", left, per)
	span := gr.ins("mul nsw i64 %s, %d", tiles, per)
	a1 := gr.ins("add nsw i64 %s, %s", a0, span)

	gr.tmp++
	tile := "%tile" + strconv.Itoa(gr.tmp)
	gr.allocas.WriteString("  " + tile + " = alloca " + mt + ", i64 " + strconv.Itoa(per) + ", align " + strconv.Itoa(streamAlign) + "\n")

	gr.flatLoop(start, a0, at, func(off, v string) { gr.store(n.DType, gr.out, off, v) })

	tl := gr.openLoop("0", tiles)
	base := gr.ins("mul nsw i64 %s, %d", tl.iv, per)
	base = gr.ins("add nsw i64 %s, %s", a0, base)
	il := gr.openLoop("0", strconv.Itoa(per))
	off := gr.ins("add nsw i64 %s, %s", base, il.iv)
	gr.store(n.DType, tile, il.iv, gr.compute(gr.root, at(off)))
	gr.closeLoop(il)
	dst := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", mt, gr.out, base)
	const vt = "<16 x i32>" // one 64-byte line, whatever the element type
	for c := 0; c < streamTileBytes; c += streamAlign {
		src := gr.ins("getelementptr inbounds i8, ptr %s, i64 %d", tile, c)
		w := gr.ins("load %s, ptr %s, align %d", vt, src, streamAlign)
		d := gr.ins("getelementptr inbounds i8, ptr %s, i64 %d", dst, c)
		gr.stmt("store %s %s, ptr %s, align %d, !nontemporal !0", vt, w, d, streamAlign)
	}
	gr.closeLoop(tl)

	gr.flatLoop(a1, end, at, func(off, v string) { gr.store(n.DType, gr.out, off, v) })
	if gr.row == "" {
		gr.stmt("fence seq_cst")
	} else {
		gr.fenceAtEnd = true // once, after the nest's loop over rows
	}
	gr.nontemporal = true
}

// flatLoop computes the root over the linear range [start, end) and hands
// each offset and value to store.
func (gr *group) flatLoop(start, end string, at func(off string) *index, store func(off, v string)) {
	l := gr.openLoop(start, end)
	store(l.iv, gr.compute(gr.root, at(l.iv)))
	gr.closeLoop(l)
}
