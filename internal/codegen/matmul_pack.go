package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Packing B once per call. Every row chunk of a matmul (the unit the
// runtime spreads over threads) reads all of B, panel by panel, and
// packing a panel reads one cache line per row of it, N elements apart.
// Packed inside the chunk, as the dynamic matmul still does, B is packed
// once per chunk: twelve times per call for 1024 rows. A static matmul in
// a module whose nests the runtime may split instead gets a nest of its
// own that runs first and packs all of B into a scratch buffer (a
// Module.Scratch the runtime places in the call's arena), split across
// threads like any other nest; the chunks then read their panels from
// there. The packed layout is the one packPanel writes, block after
// block: for batch b and the block of k from k0 (kLen rows), the panel
// at column j0 starts at element
//
//	b*K*W + k0*W + kLen*j0
//
// where W is the packed width, the columns the panels cover (cols plus
// the tail panel's). Within a panel, row k of it holds its nv vectors of
// w lanes side by side.

// Scratch is a buffer a module needs for the duration of one call beyond
// the values of its plan: args holds a pointer to it after the buffers of
// Slots and the error slot. Nest is the plan nest it serves (its contents
// are dead before and after that nest runs).
type Scratch struct {
	Bytes int
	Nest  int
}

// packPlan describes the packed B of one static matmul.
type packPlan struct {
	B      ir.Value // the matmul's right operand, a slot of the module
	dt     ir.DType
	batch  int
	K, N   int
	kc     int
	lanes  int
	panel  int // columns of a whole panel
	full   int // columns in whole panels
	cols   int // columns in whole vectors
	tailW  int // columns of the tail panel, 0 for none
	scrIdx int // its index in Module.Scratch
}

// width is the packed width W.
func (pk *packPlan) width() int { return pk.cols + pk.tailW }

// panels is the number of panels per block of k: the whole ones, the
// narrower one of whole vectors, the tail.
func (pk *packPlan) panels() int {
	n := pk.full / pk.panel
	if pk.cols > pk.full {
		n++
	}
	if pk.tailW > 0 {
		n++
	}
	return n
}

func (pk *packPlan) blocks() int { return (pk.K + pk.kc - 1) / pk.kc }

// extent is the pack nest's outer loop: one iteration per panel of each
// block of k of each matrix of the batch.
func (pk *packPlan) extent() int { return pk.batch * pk.blocks() * pk.panels() }

func (pk *packPlan) bytes() int { return pk.batch * pk.K * pk.width() * pk.dt.Size() }

// packedAt points mm.pack at the packed panel of the current block (k0,
// kLen) at column j0, in the scratch buffer %packed.
func (mm *mmCtx) packedAt(b, k0, kLen, j0 string) {
	gr, pk := mm.gr, mm.packed
	W := pk.width()
	off := gr.ins("mul nuw nsw i64 %s, %d", b, pk.K*W)
	off = gr.ins("add nuw nsw i64 %s, %s", off, gr.ins("mul nuw nsw i64 %s, %d", k0, W))
	off = gr.ins("add nuw nsw i64 %s, %s", off, gr.ins("mul nuw nsw i64 %s, %s", kLen, j0))
	mm.pack = gr.ins("getelementptr inbounds %s, ptr %%packed, i64 %s", regType(mm.dt), off)
}

// emitPackNest returns the body of the function
//
//	void NAME.pN(ptr %B, ptr %P, i64 %start, i64 %end)
//
// that packs iterations [start, end) of pk's extent from B into P.
func emitPackNest(pk *packPlan, md *metadata, t Target) string {
	f := &fn{loopIDs: md, target: t, noUnroll: true}
	f.block("entry")
	np, nkb := pk.panels(), pk.blocks()
	it := f.openLoop("%start", "%end")
	it.done = true
	b := f.ins("udiv i64 %s, %d", it.iv, nkb*np)
	r := f.ins("urem i64 %s, %d", it.iv, nkb*np)
	kb := f.ins("udiv i64 %s, %d", r, np)
	p := f.ins("urem i64 %s, %d", r, np)
	k0 := f.ins("mul nuw nsw i64 %s, %d", kb, pk.kc)
	rest := f.ins("sub nuw nsw i64 %d, %s", pk.K, k0)
	short := f.ins("icmp slt i64 %s, %d", rest, pk.kc)
	kLen := f.ins("select i1 %s, i64 %s, i64 %d", short, rest, pk.kc)
	bBase := f.ins("mul nuw nsw i64 %s, %d", b, pk.K*pk.N)
	dBase := f.ins("add nuw nsw i64 %s, %s", f.ins("mul nuw nsw i64 %s, %d", b, pk.K*pk.width()), f.ins("mul nuw nsw i64 %s, %d", k0, pk.width()))
	copyPanel := func(j0 string, nv, w int) {
		et := regType(pk.dt)
		vt := fmt.Sprintf("<%d x %s>", w, et)
		dst := f.ins("add nuw nsw i64 %s, %s", dBase, f.ins("mul nuw nsw i64 %s, %s", kLen, j0))
		k := f.openLoop("0", kLen)
		k.done = true
		src := f.ins("add nuw nsw i64 %s, %s", bBase, f.ins("mul nuw nsw i64 %s, %d", f.ins("add nuw nsw i64 %s, %s", k0, k.iv), pk.N))
		src = f.ins("add nuw nsw i64 %s, %s", src, j0)
		row := f.ins("add nuw nsw i64 %s, %s", dst, f.ins("mul nuw nsw i64 %s, %d", k.iv, nv*w))
		for v := range nv {
			sp := f.ins("getelementptr inbounds %s, ptr %%B, i64 %s", et, f.ins("add nuw nsw i64 %s, %d", src, v*w))
			x := f.ins("load %s, ptr %s, align %d", vt, sp, pk.dt.Size())
			dp := f.ins("getelementptr inbounds %s, ptr %%P, i64 %s", et, f.ins("add nuw nsw i64 %s, %d", row, v*w))
			f.stmt("store %s %s, ptr %s, align %d", vt, x, dp, pk.dt.Size())
		}
		f.closeLoop(k)
	}
	// One branch per kind of panel: whole panels (p < nFull), the
	// narrower panel of whole vectors, the tail panel.
	nFull := pk.full / pk.panel
	done := f.newLabel("packed")
	if nFull > 0 {
		yes, no := f.newLabel("whole"), f.newLabel("other")
		f.stmt("br i1 %s, label %%%s, label %%%s", f.ins("icmp ult i64 %s, %d", p, nFull), yes, no)
		f.block(yes)
		copyPanel(f.ins("mul nuw nsw i64 %s, %d", p, pk.panel), mmVecs, pk.lanes)
		f.stmt("br label %%%s", done)
		f.block(no)
	}
	if pk.cols > pk.full {
		nv := (pk.cols - pk.full) / pk.lanes
		if pk.tailW > 0 {
			yes, no := f.newLabel("narrow"), f.newLabel("tail")
			f.stmt("br i1 %s, label %%%s, label %%%s", f.ins("icmp eq i64 %s, %d", p, nFull), yes, no)
			f.block(yes)
			copyPanel(strconv.Itoa(pk.full), nv, pk.lanes)
			f.stmt("br label %%%s", done)
			f.block(no)
		} else {
			copyPanel(strconv.Itoa(pk.full), nv, pk.lanes)
		}
	}
	if pk.tailW > 0 {
		copyPanel(strconv.Itoa(pk.cols), 1, pk.tailW)
	}
	f.stmt("br label %%%s", done)
	f.block(done)
	f.closeLoop(it)
	f.stmt("ret void")
	return f.b.String()
}

// loadScratch loads the n scratch pointers of an entry point's args into
// %sscr0 ... : they follow the slots' buffers and the error slot.
func loadScratch(out *strings.Builder, slots, errSlot, n int) {
	first := slots
	if errSlot >= 0 {
		first++
	}
	for k := range n {
		fmt.Fprintf(out, "  %%pscr%d = getelementptr inbounds ptr, ptr %%args, i64 %d\n", k, first+k)
		fmt.Fprintf(out, "  %%sscr%d = load ptr, ptr %%pscr%d, align 8\n", k, k)
	}
}
