package codegen

import (
	"fmt"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// Matmuls in a dynamic module (GenerateDynamic).
//
// A matmul whose batch dimensions hold the dynamic size needs nothing
// new: its outer loop runs over batch x row chunks, which is
// proportional to the size, and every matrix has fixed sizes. One whose
// rows M, columns N or sum length K are proportional to the size (x@w
// for a batch of rows x, w@xT, xT@y) reads them from %size instead, so
// that the code is the same at every size:
//
//   - rows (emitMatMulRows): the outer loop runs over the batch's rows,
//     [0, batch*M). A range owns the row tiles that start inside it,
//     and computes them in chunks of at most mmChunk rows, each a whole
//     number of tiles but for the matrix's last, M % mmRows rows; the
//     nest's Grain (mmChunk) keeps the runtime from splitting it finer.
//     That last tile runs as at most four shorter tiles of 8, 4, 2 and 1
//     rows (the binary digits of M % mmRows), each with its rows' sums
//     exactly as the fixed-size code computes them.
//   - columns: the outer loop runs over row chunks as in emitMatMul, and
//     the number of panels, the narrower last panel and the columns the
//     row loop computes follow N at run time.
//   - sum length: the number of blocks of k and the last one's length
//     follow K; at K = 0 the row loop writes the zeros.
//
// The tiles, the packing and the order of every sum are those of the
// fixed-size kernel, so the results are bit-identical to it. The cost:
// the last M % mmRows rows take up to four passes over each packed panel
// of B instead of one (a batch of 7 rows: 4, 2 and 1), and the kernel
// carries those four tiles, which makes it take about 1.2x as long to
// compile as one static kernel of many rows (BenchmarkDynamicDense
// compares the speed).

// dynamic reports whether axis k of value v is proportional to the
// dynamic size.
func (u *unit) dynamic(v ir.Value, k int) bool {
	return u.dyn != nil && int(v) < len(u.dyn.Axes) && k < len(u.dyn.Axes[v]) && u.dyn.Axes[v][k]
}

// sized returns axis k of value v, whose size is n, as an LLVM operand:
// %size times n/size when the axis is dynamic, else the constant n.
func (u *unit) sized(v ir.Value, k, n int) string { return u.times(n, u.dynamic(v, k)) }

// isConst reports whether an operand is a constant.
func isConst(s string) bool { _, err := strconv.Atoi(s); return err == nil }

// emitMatMulDyn is emitMatMul for a matmul whose M or N follows the
// dynamic size, or whose K does (it sums over the batch, as xT@y), not
// two of them and not with its batch dimensions: such code differs
// between the trace sizes, and the runtime reports it.
func (gr *group) emitMatMulDyn(n *ir.Node) int {
	an, bn := &gr.g.Nodes[n.Args[0]], &gr.g.Nodes[n.Args[1]]
	dt := n.DType
	r := an.Shape.Rank()
	M, K, N := an.Shape[r-2], an.Shape[r-1], bn.Shape[r-1]
	batch := an.Shape[:r-2].Size()
	lanes := 64 / dt.Size()
	mm := &mmCtx{gr: gr, dt: dt, A: gr.buf(n.Args[0]), B: gr.buf(n.Args[1]), K: gr.sized(n.Args[0], r-1, K), N: gr.sized(n.Args[1], r-1, N), lanes: lanes,
		mm: gr.p.MatMul[gr.p.Group[gr.root]], C: gr.out}
	mm.epilogue = mm.mm >= 0
	Mv := gr.sized(n.Args[0], r-2, M)
	if isConst(Mv) {
		// Row chunks as in emitMatMul.
		chunks := mmChunks(M)
		T := M / mmRows
		it := gr.openLoop("%start", "%end")
		it.done = true
		b, c := it.iv, "0"
		if chunks > 1 {
			b = gr.ins("udiv i64 %s, %d", it.iv, chunks)
			c = gr.ins("urem i64 %s, %d", it.iv, chunks)
		}
		mm.bases(b, Mv)
		tileAt := func(c string) string {
			return gr.ins("mul nuw nsw i64 %s, %d", gr.ins("udiv i64 %s, %d", gr.ins("mul nuw nsw i64 %s, %d", c, T), chunks), mmRows)
		}
		r0 := tileAt(c)
		last := gr.ins("icmp eq i64 %s, %d", c, chunks-1)
		rEnd := gr.ins("select i1 %s, i64 %d, i64 %s", last, M, tileAt(gr.ins("add nuw nsw i64 %s, 1", c)))
		slots := max((T+chunks-1)/chunks, 1)
		if M%mmRows != 0 {
			slots++
		}
		mm.chunk(r0, gr.ins("sub nuw nsw i64 %s, %s", rEnd, r0), slots)
		gr.closeLoop(it)
		return batch * chunks
	}
	gr.grain = mmChunk
	gr.emitMatMulRows(mm, batch, Mv)
	return batch * M
}

// bases sets the offsets of batch b's matrices, whose rows number M.
func (mm *mmCtx) bases(b, M string) {
	gr := mm.gr
	mm.aBase = gr.ins("mul nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %s", b, M), mm.K)
	mm.bBase = gr.ins("mul nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %s", b, mm.K), mm.N)
	mm.oBase = gr.ins("mul nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %s", b, M), mm.N)
}

// emitMatMulRows runs the matmul over the rows [%start, %end) of its
// batch of matrices of M rows (M = %size times a constant): the tiles
// that start in the range, in chunks of at most mmChunk rows.
func (gr *group) emitMatMulRows(mm *mmCtx, batch int, M string) {
	perMatrix := func(b, lo, hi string) {
		mm.bases(b, M)
		// Tiles [t0, t1) start in [lo, hi).
		t0 := gr.ins("udiv i64 %s, %d", gr.ins("add nuw nsw i64 %s, %d", lo, mmRows-1), mmRows)
		t1 := gr.ins("udiv i64 %s, %d", gr.ins("add nuw nsw i64 %s, %d", hi, mmRows-1), mmRows)
		nt := gr.ins("sub nuw nsw i64 %s, %s", t1, t0)
		const per = mmChunk / mmRows
		nc := gr.ins("udiv i64 %s, %d", gr.ins("add nuw nsw i64 %s, %d", nt, per-1), per)
		// Chunk s holds tiles [t0 + s*nt/nc, t0 + (s+1)*nt/nc): at most
		// per of them, as balanced as they can be.
		s := gr.openLoop("0", nc)
		s.done = true
		tileAt := func(s string) string {
			q := gr.ins("udiv i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %s", s, nt), nc)
			return gr.ins("mul nuw nsw i64 %s, %d", gr.ins("add nuw nsw i64 %s, %s", t0, q), mmRows)
		}
		r0 := tileAt(s.iv)
		rEnd := tileAt(gr.ins("add nuw nsw i64 %s, 1", s.iv))
		over := gr.ins("icmp ugt i64 %s, %s", rEnd, M)
		rEnd = gr.ins("select i1 %s, i64 %s, i64 %s", over, M, rEnd)
		mm.chunk(r0, gr.ins("sub nuw nsw i64 %s, %s", rEnd, r0), per)
		gr.closeLoop(s)
	}
	if batch == 1 {
		perMatrix("0", "%start", "%end")
		return
	}
	// The matrices [b0, b1) that the range meets, each over its part of
	// the range. M is not zero when the range is not empty.
	yes, no := gr.newLabel("rows"), gr.newLabel("norows")
	gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp slt i64 %%start, %%end"), yes, no)
	gr.block(yes)
	b0 := gr.ins("udiv i64 %%start, %s", M)
	b1 := gr.ins("add nuw nsw i64 %s, 1", gr.ins("udiv i64 %s, %s", gr.ins("sub nuw nsw i64 %%end, 1"), M))
	l := gr.openLoop(b0, b1)
	l.done = true
	base := gr.ins("mul nuw nsw i64 %s, %s", l.iv, M)
	after := gr.ins("icmp ugt i64 %%start, %s", base)
	lo := gr.ins("select i1 %s, i64 %s, i64 0", after, gr.ins("sub nuw nsw i64 %%start, %s", base))
	hi := gr.ins("sub nuw nsw i64 %%end, %s", base)
	beyond := gr.ins("icmp ugt i64 %s, %s", hi, M)
	hi = gr.ins("select i1 %s, i64 %s, i64 %s", beyond, M, hi)
	perMatrix(l.iv, lo, hi)
	gr.closeLoop(l)
	gr.stmt("br label %%%s", no)
	gr.block(no)
}

// chunk computes rows [r0, r0+rows) of the current matrices, in tiles of
// mmRows rows but for the last M % mmRows, which only the matrix's last
// chunk has; slots bounds the tiles of a chunk (the packed block of A
// holds that many).
func (mm *mmCtx) chunk(r0, rows string, slots int) {
	gr, dt, lanes := mm.gr, mm.dt, mm.lanes
	panel := mmVecs * lanes
	tiles := gr.ins("udiv i64 %s, %d", rows, mmRows)
	tiled := gr.ins("mul nuw nsw i64 %s, %d", tiles, mmRows)
	pr := gr.ins("sub nuw nsw i64 %s, %s", rows, tiled)
	// Columns [0, full) run in panels of mmVecs vectors, the whole
	// vectors after them in one narrower panel, the rest [cols, N) in the
	// row loop.
	full, cols := "0", "0"
	if mm.K != "0" {
		full = gr.mulC(gr.udivC(mm.N, panel), panel)
		cols = gr.addC(full, gr.mulC(gr.udivC(gr.subC(mm.N, full), lanes), lanes))
	}
	// covered is the rows the tiles compute: all of the chunk's when
	// there are columns for them and a sum to compute (else the row loop
	// writes the zeros).
	covered := "0"
	if cols != "0" {
		covered = rows
		skip := ""
		var conds []string
		for _, x := range []string{cols, mm.K} {
			if !isConst(x) {
				conds = append(conds, gr.ins("icmp sgt i64 %s, 0", x))
			}
		}
		if len(conds) > 0 {
			some := conds[0]
			if len(conds) > 1 {
				some = gr.ins("and i1 %s, %s", conds[0], conds[1])
			}
			covered = gr.ins("select i1 %s, i64 %s, i64 0", some, rows)
			yes := gr.newLabel("tiles")
			skip = gr.newLabel("notiles")
			gr.stmt("br i1 %s, label %%%s, label %%%s", some, yes, skip)
			gr.block(yes)
		}
		kc := mmKC * 4 / max(dt.Size(), 4)
		if k, err := strconv.Atoi(mm.K); err == nil {
			kc = min(kc, k)
		}
		nkb := gr.udivC(gr.addC(mm.K, strconv.Itoa(kc-1)), kc)
		mm.pack = gr.alloca(fmt.Sprintf("[%d x %s], align 64", kc*panel, memType(dt)))
		mm.aStride = kc + 64/dt.Size()
		mm.apack = gr.alloca(fmt.Sprintf("[%d x %s], align 64", slots*mmRows*mm.aStride, memType(dt)))
		mm.kc = kc
		mm.r0 = r0
		kb := gr.openLoop("0", nkb)
		kb.done = true
		k0 := gr.ins("mul nuw nsw i64 %s, %d", kb.iv, kc)
		kLen := gr.ins("sub nuw nsw i64 %s, %s", mm.K, k0)
		short := gr.ins("icmp slt i64 %s, %d", kLen, kc)
		kLen = gr.ins("select i1 %s, i64 %s, i64 %d", short, kLen, kc)
		first := gr.ins("icmp eq i64 %s, 0", kb.iv)
		lastK := gr.ins("icmp eq i64 %s, %s", kb.iv, gr.subC(nkb, "1"))
		mm.packRows(r0, rows, k0, kLen)
		i0 := gr.ins("add nuw nsw i64 %s, %s", r0, tiled)
		panels := func(j0 string) {
			mm.packPanel(k0, kLen, j0)
			t := gr.openLoop("0", tiles)
			t.done = true
			ti := gr.ins("add nuw nsw i64 %s, %s", r0, gr.ins("mul nuw nsw i64 %s, %d", t.iv, mmRows))
			mm.tile(ti, j0, kLen, first, mmRows)
			gr.closeLoop(t)
			mm.partialTile(pr, func(sub string, nr int) {
				mm.tile(gr.ins("add nuw nsw i64 %s, %s", i0, sub), j0, kLen, first, nr)
			})
			mm.epilogueAfterK(lastK, r0, rows, j0, lanes)
		}
		mm.nv = mmVecs
		p := gr.openLoop("0", gr.udivC(mm.N, panel))
		p.done = true
		panels(gr.ins("mul nuw nsw i64 %s, %d", p.iv, panel))
		gr.closeLoop(p)
		// The narrower panel: nv whole vectors, 0 < nv < mmVecs.
		nv := gr.udivC(gr.subC(cols, full), lanes)
		for v := 1; v < mmVecs; v++ {
			if isConst(nv) {
				if nv == strconv.Itoa(v) {
					mm.nv = v
					panels(full)
				}
				continue
			}
			yes, no := gr.newLabel("narrow"), gr.newLabel("nonarrow")
			gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp eq i64 %s, %d", nv, v), yes, no)
			gr.block(yes)
			mm.nv = v
			panels(full)
			gr.stmt("br label %%%s", no)
			gr.block(no)
		}
		gr.closeLoop(kb)
		if skip != "" {
			gr.stmt("br label %%%s", skip)
			gr.block(skip)
		}
	}
	if covered != "0" && cols != mm.N {
		// The columns right of the last panel, for the rows the tiles
		// computed: as dot products when K and N are constants and the
		// static kernel would compute them so, which keeps the two
		// kernels' sums bit for bit the same.
		c, errC := strconv.Atoi(cols)
		k, errK := strconv.Atoi(mm.K)
		n, errN := strconv.Atoi(mm.N)
		dot := errC == nil && errK == nil && errN == nil && c > 0 && mm.useDotTail(n-c, k)
		var bt string
		if dot {
			bt = mm.packTail(c, n-c, k)
		}
		t := gr.openLoop("0", covered)
		t.done = true
		i := gr.ins("add nuw nsw i64 %s, %s", r0, t.iv)
		if dot {
			mm.dotTail(i, bt, c, n-c, k)
		} else {
			mm.row(i, cols, mm.N)
		}
		if mm.epilogue {
			mm.applyEpilogue(i, cols, mm.N)
		}
		gr.closeLoop(t)
	}
	// The other rows, whole.
	rest := gr.openLoop(covered, rows)
	rest.done = true
	i := gr.ins("add nuw nsw i64 %s, %s", r0, rest.iv)
	mm.row(i, "0", mm.N)
	if mm.epilogue {
		mm.applyEpilogue(i, "0", mm.N)
	}
	gr.closeLoop(rest)
}

// partialTile emits, for the pr (< mmRows) rows below a chunk's whole
// tiles, one part of nr rows for every binary digit nr of pr, starting at
// row sub of the shorter tile's rows: the rows of the bigger digits first.
func (mm *mmCtx) partialTile(pr string, emit func(sub string, nr int)) {
	gr := mm.gr
	for nr := 8; nr >= 1; nr /= 2 {
		if nr >= mmRows {
			continue
		}
		yes, no := gr.newLabel("part"), gr.newLabel("nopart")
		bit := gr.ins("and i64 %s, %d", pr, nr)
		gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp ne i64 %s, 0", bit), yes, no)
		gr.block(yes)
		emit(gr.ins("and i64 %s, %d", pr, ^(2*nr-1)), nr)
		gr.stmt("br label %%%s", no)
		gr.block(no)
	}
}

// udivC, mulC, addC and subC emit i64 arithmetic on operands, folding
// constants.
func (f *fn) udivC(x string, c int) string {
	if v, err := strconv.Atoi(x); err == nil {
		return strconv.Itoa(v / c)
	}
	return f.ins("udiv i64 %s, %d", x, c)
}

func (f *fn) mulC(x string, c int) string {
	if v, err := strconv.Atoi(x); err == nil {
		return strconv.Itoa(v * c)
	}
	return f.ins("mul nuw nsw i64 %s, %d", x, c)
}

func (f *fn) addC(x, y string) string {
	a, errA := strconv.Atoi(x)
	b, errB := strconv.Atoi(y)
	switch {
	case errA == nil && errB == nil:
		return strconv.Itoa(a + b)
	case x == "0":
		return y
	case y == "0":
		return x
	}
	return f.ins("add nuw nsw i64 %s, %s", x, y)
}

func (f *fn) subC(x, y string) string {
	a, errA := strconv.Atoi(x)
	b, errB := strconv.Atoi(y)
	switch {
	case errA == nil && errB == nil:
		return strconv.Itoa(a - b)
	case y == "0":
		return x
	}
	return f.ins("sub nuw nsw i64 %s, %s", x, y)
}
