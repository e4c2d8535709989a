package codegen

import (
	"fmt"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// Register tiling of matmul. The microkernel keeps an mmRows x
// (mmVecs*lanes) tile of the output in vector registers and runs k from 0
// to K, adding a[i,k]*b[k,j] to each element with a fused multiply-add
// (float results are within the tolerance of internal/interp/doc.go, not
// bit-identical; integer ones are exact). lanes fills 64 bytes (an
// AVX-512 register; LLVM splits the vectors on narrower machines).
//
// Cache blocking: each outer iteration (the unit the runtime splits
// across threads) computes a chunk of about mmChunk rows, a whole number
// of tiles (mmChunks balances them across threads). Within it, blocks of
// mmKC values of k are outermost; for each, the chunk's rows of A are
// packed (packRows), then every panel of columns of B is packed
// (packPanel) and every row tile of the chunk passes over it, continuing
// from the partial sums it stored for the previous block of k. In a
// module whose nests the runtime may split (GenerateSplit), a static
// matmul instead reads its panels from a copy of B packed once per call
// by a nest of its own (matmul_pack.go). The whole
// vectors of columns right of the last panel form one narrower panel, the
// columns that do not fill a vector a tail panel of narrower vectors, or,
// when that takes fewer vector operations, dot products along k
// (dotTail). The rows below the last whole tile form a shorter tile.
//
// Packing: rows of B lie N elements apart, and when N*size is a multiple
// of 4 KiB every row of a panel maps to the same cache sets, so an
// unpacked panel does not stay in cache; rows of A lie K elements apart,
// with the same problem for the mmRows rows a tile reads. Both are
// copied into contiguous, cache-line aligned buffers: a panel's block of
// B row after row, the chunk's block of A row after row, a cache line
// more than a block of k apart (packRows). The microkernel reads B as
// one stream, in order, and each of its rows of A at a constant offset.
// When K fits one block of k (K <= kc) A is not packed: a tile's rows
// are then one contiguous block no larger than the copy, read at
// constant offsets r*K (mmCtx.directA). Reading a small B in place as
// well (K*N*size <= 64 KiB, no pack nest) measured no faster for
// 96..128-square products and was not kept. Tile shape (12 rows x 2 vectors: 24 accumulators, 2 vectors of
// B and a broadcast of A fill 27 of AVX-512's 32 registers), mmChunk and
// mmKC were chosen by measuring BenchmarkMatMulBiasRelu on the
// development machine; 8x2, 8x3 and 6x4 tiles, and chunks of 4 or 16
// tiles, were slower.
//
// Compile time: every loop of the tiling whose code is final as written
// (the microkernel's and the packing's k loops, vectorized by hand, and
// the loops over chunks, blocks of k, panels and tiles around them)
// carries the metadata of metadata.done, so LLVM neither vectorizes nor unrolls
// it: the vectorizer only costs such loops to leave them, and the
// unroller copied them (a tile's k loop twice over, a one-tile chunk's
// loops whole). That halved the compile time of a 16x16x16 product and
// cut a 100..1024-square one's by a tenth (100, whose dot-product tail
// stays LLVM's: see dotTail) to a quarter (1024), for the same speed
// (BenchmarkGT2Split, BenchmarkMatMulThreads). The loops LLVM
// vectorizes (mmCtx.row, applyEpilogue, packRows's copy) keep their
// own metadata. The kernel for dynamic sizes (matmul_dyn.go) marks the
// same loops.
const (
	mmRows  = 12
	mmVecs  = 2
	mmChunk = 8 * mmRows
	mmKC    = 256
)

// A matrix-vector product (N = 1) with a short sum (K <= mmPlainK) and
// at most mmPlainWork multiply-adds runs as the plain loop nest of
// mmCtx.row (row by row, k outside the one column) instead of in tiles
// of a one-lane tail panel. Such products are those of small models (a
// lazy logistic regression's 256x3 @ 3x1, one per step fused into each
// kernel): the tiles, their shorter last tile, the packing of B and its
// nest cost LLVM 36-47 ms of CPU for a 256x3 @ 3x1 module (0.43x of
// it with the plain nest) for a few hundred nanoseconds of work, which the plain
// nest does as fast (256x3 @ 3x1: 310-320 ns against 300-530, 1000x3 @
// 3x1 1.0 us against 0.9-1.3, alternated runs). The sums are the same
// bits: each is its row's fused multiply-adds in the order of k from
// zero, as in a tile. The plain nest keeps its sum in memory, one
// dependent load, multiply-add and store per k, where a tile keeps
// mmRows independent sums in registers, so longer sums and wider
// products stay tiled: plain, 3x256 @ 256x1 took 1.3-1.6 us against
// 0.6-0.8, 64x64 @ 64x4 3.4-5.1 us against 1.8-1.9 and 512x8 @ 8x4
// 1.7-2.7 us against 1.15.
const (
	mmPlainK    = 16
	mmPlainWork = 1 << 14
)

// emitMatMul computes [...,M,K] x [...,K,N] (equal batch dimensions) and
// returns the extent of its outer loop: batch * mmChunks(M). n is
// the group's root, or the matmul the group computes before its root
// (passes.Plan.MatMul): the product then goes to the root's buffer, which
// has its shape and dtype, and the root's elementwise epilogue overwrites
// each element once its sum is complete, a panel of a chunk at a time
// while it is still in cache, instead of in a pass of its own.
func (gr *group) emitMatMul(n *ir.Node) int {
	an, bn := &gr.g.Nodes[n.Args[0]], &gr.g.Nodes[n.Args[1]]
	dt := n.DType
	r := an.Shape.Rank()
	M, K, N := an.Shape[r-2], an.Shape[r-1], bn.Shape[r-1]
	if gr.dynamic(n.Args[0], r-2) || gr.dynamic(n.Args[0], r-1) || gr.dynamic(n.Args[1], r-1) {
		return gr.emitMatMulDyn(n)
	}
	batch := an.Shape[:r-2].Size()
	A, B := gr.buf(n.Args[0]), gr.buf(n.Args[1])
	lanes := 64 / dt.Size()
	panel := mmVecs * lanes
	mmv := gr.p.MatMul[gr.p.Group[gr.root]]
	// A summed epilogue (passes.matMulSum) runs as one chunk: its partial
	// sums are the group's, not a chunk's.
	sum := mmv >= 0 && gr.g.Nodes[gr.root].Op == ir.OpReduceSum
	chunks := mmChunks(M)
	if sum {
		chunks = 1
	}
	T := M / mmRows // whole tiles of rows

	it := gr.openLoop("%start", "%end")
	it.done = true
	b := it.iv
	c := "0"
	if chunks > 1 {
		b = gr.ins("udiv i64 %s, %d", it.iv, chunks)
		c = gr.ins("urem i64 %s, %d", it.iv, chunks)
	}
	mm := &mmCtx{gr: gr, dt: dt, A: A, B: B, K: strconv.Itoa(K), N: strconv.Itoa(N), lanes: lanes, mm: mmv, C: gr.out}
	mm.epilogue = mm.mm >= 0
	if sum {
		// The product (at most passes.matMulSumBytes) lives on the stack,
		// in cache when the sum reads it (sumEpilogue).
		mm.C = gr.alloca(fmt.Sprintf("[%d x %s], align 64", M*N, memType(dt)))
		mm.epilogue = false
	}
	mm.aBase = gr.ins("mul nuw nsw i64 %s, %d", b, M*K)
	mm.bBase = gr.ins("mul nuw nsw i64 %s, %d", b, K*N)
	mm.oBase = gr.ins("mul nuw nsw i64 %s, %d", b, M*N)
	// Chunk c holds tiles [c*T/chunks, (c+1)*T/chunks); the last one also
	// the rows below the last whole tile.
	tileAt := func(c string) string {
		return gr.ins("mul nuw nsw i64 %s, %d", gr.ins("udiv i64 %s, %d", gr.ins("mul nuw nsw i64 %s, %d", c, T), chunks), mmRows)
	}
	r0 := tileAt(c)
	last := gr.ins("icmp eq i64 %s, %d", c, chunks-1)
	rEnd := gr.ins("select i1 %s, i64 %d, i64 %s", last, M, tileAt(gr.ins("add nuw nsw i64 %s, 1", c)))
	rows := gr.ins("sub nuw nsw i64 %s, %s", rEnd, r0)
	tiles := gr.ins("udiv i64 %s, %d", rows, mmRows)
	tiled := gr.ins("mul nuw nsw i64 %s, %d", tiles, mmRows)
	// Columns [0, full) run in panels of mmVecs vectors, the whole vectors
	// after them in one narrower panel, the rest [cols, N) in the row loop.
	full := N / panel * panel
	cols := full + (N-full)/lanes*lanes
	if K == 0 {
		full, cols = 0, 0 // the row loop writes the zeros
	}
	// The columns right of the whole vectors, fewer than a vector's lanes,
	// form a tail panel of narrower vectors (its sums are the row loop's,
	// bit for bit: the same fused multiply-adds in the same order of k).
	tailW := 0
	if K > 0 {
		tailW = N - cols
	}
	// A narrow tail instead computes each of its columns as dot products
	// along k (mmCtx.dotTail), when that takes fewer vector operations.
	dotTail := cols > 0 && mm.useDotTail(tailW, K)
	if dotTail {
		tailW = 0
	}
	// A small matrix-vector product runs as the plain loop nest of
	// mmCtx.row instead of one-lane tiles (see mmPlainK).
	if N == 1 && K > 0 && K <= mmPlainK && M*K <= mmPlainWork {
		tailW = 0
	}
	pr := M % mmRows
	if cols == 0 && tailW == 0 {
		pr = 0
	}
	// covered is the rows the tiles compute: the chunk's rows when the
	// shorter last tile runs, else its whole tiles.
	covered := tiled
	if pr > 0 {
		covered = rows
	}
	if cols == 0 && tailW == 0 && !dotTail {
		// No tiles: the row loop below computes every row.
		covered = "0"
	}

	if cols > 0 || tailW > 0 {
		// Blocks of k hold mmKC 4-byte elements (half as many 8-byte
		// ones), so the packed blocks take the same bytes for every dtype.
		kc := min(mmKC*4/max(dt.Size(), 4), K)
		nkb := (K + kc - 1) / kc
		maxTiles := max((T+chunks-1)/chunks, 1)
		// Cache-line aligned, so no vector load of a packed block
		// straddles two lines. A summed epilogue (one chunk) packs each
		// panel of B just before its tiles, where it stays in L1:
		// GT2's pattern took 19.3-19.4 µs at best against 19.8-19.9
		// with B packed by a nest of its own (BenchmarkGT2Split).
		if _, inNest := gr.outOf[n.Args[1]]; gr.packOnce && gr.dyn == nil && !inNest && !sum {
			mm.packed = &packPlan{B: n.Args[1], dt: dt, batch: batch, K: K, N: N, kc: kc, lanes: lanes, panel: panel, full: full, cols: cols, tailW: tailW}
			gr.packed = mm.packed
		} else {
			mm.pack = gr.alloca(fmt.Sprintf("[%d x %s], align 64", kc*panel, memType(dt)))
		}
		// With one block of k (K <= kc) a tile's rows of A are one
		// contiguous block of at most mmRows*kc elements, as compact as
		// its packed copy, and the microkernel reads row r of it at the
		// constant offset r*K: packing would only copy it. The copy went
		// through scatters (the stores lie mmRows apart), which cost a
		// quarter of GT2's 100x100x100 product.
		mm.directA = nkb == 1
		mm.r0 = r0
		if !mm.directA {
			mm.aStride = kc + 64/dt.Size()
			mm.apack = gr.alloca(fmt.Sprintf("[%d x %s], align 64", (maxTiles*mmRows+pr)*mm.aStride, memType(dt)))
		}
		mm.kc = kc
		kb := gr.openLoop("0", strconv.Itoa(nkb))
		kb.done = true
		k0 := gr.ins("mul nuw nsw i64 %s, %d", kb.iv, kc)
		kLen := gr.ins("sub nuw nsw i64 %d, %s", K, k0)
		short := gr.ins("icmp slt i64 %s, %d", kLen, kc)
		kLen = gr.ins("select i1 %s, i64 %s, i64 %d", short, kLen, kc)
		first := gr.ins("icmp eq i64 %s, 0", kb.iv)
		lastK := gr.ins("icmp eq i64 %s, %d", kb.iv, nkb-1)
		if !mm.directA {
			mm.packRows(r0, covered, k0, kLen)
		}
		partial := func(emit func(i0 string)) {
			// The last chunk's rows below its whole tiles, M % mmRows of
			// them, form one shorter tile.
			if pr == 0 {
				return
			}
			yes, no := gr.newLabel("part"), gr.newLabel("nopart")
			gr.stmt("br i1 %s, label %%%s, label %%%s", last, yes, no)
			gr.block(yes)
			emit(gr.ins("add nuw nsw i64 %s, %s", r0, tiled))
			gr.stmt("br label %%%s", no)
			gr.block(no)
		}
		panels := func(j0 string) {
			if mm.packed != nil {
				mm.packedAt(b, k0, kLen, j0)
			} else {
				mm.packPanel(k0, kLen, j0)
			}
			t := gr.openLoop("0", tiles)
			t.done = true
			i0 := gr.ins("add nuw nsw i64 %s, %s", r0, gr.ins("mul nuw nsw i64 %s, %d", t.iv, mmRows))
			mm.tile(i0, j0, kLen, first, mmRows)
			gr.closeLoop(t)
			partial(func(i0 string) { mm.tile(i0, j0, kLen, first, pr) })
			mm.epilogueAfterK(lastK, r0, rows, j0, mm.w())
		}
		if full > 0 {
			mm.nv = mmVecs
			p := gr.openLoop("0", strconv.Itoa(N/panel))
			p.done = true
			panels(gr.ins("mul nuw nsw i64 %s, %d", p.iv, panel))
			gr.closeLoop(p)
		}
		if cols > full {
			mm.nv = (cols - full) / lanes
			panels(strconv.Itoa(full))
		}
		if tailW > 0 {
			mm.nv, mm.width = 1, tailW
			panels(strconv.Itoa(cols))
			mm.width = 0
		}
		gr.closeLoop(kb)
	}
	if cols < N && tailW == 0 && covered != "0" {
		// The columns right of the last panel, for the tiled rows.
		var bt string
		if dotTail {
			bt = mm.packTail(cols, N-cols, K)
		}
		t := gr.openLoop("0", covered)
		t.done = true
		i := gr.ins("add nuw nsw i64 %s, %s", r0, t.iv)
		if dotTail {
			mm.dotTail(i, bt, cols, N-cols, K)
		} else {
			mm.row(i, strconv.Itoa(cols), mm.N)
		}
		if mm.epilogue {
			mm.applyEpilogue(i, strconv.Itoa(cols), strconv.Itoa(N))
		}
		gr.closeLoop(t)
	}
	// The rows below the last tile, whole, when no shorter tile ran
	// (when one did, covered is rows and there are none).
	if covered != rows {
		rest := gr.openLoop(covered, rows)
		rest.done = true
		i := gr.ins("add nuw nsw i64 %s, %s", r0, rest.iv)
		mm.row(i, "0", mm.N)
		plain := covered == "0"
		if mm.epilogue && !plain {
			mm.applyEpilogue(i, "0", strconv.Itoa(N))
		}
		gr.closeLoop(rest)
		if mm.epilogue && plain {
			// The plain nest's one column is contiguous down the rows: its
			// epilogue in a loop of its own, which LLVM vectorizes along
			// them, as it did the tiles' (epilogueAfterK).
			t := gr.openLoop(r0, rEnd)
			mm.applyEpilogue(t.iv, "0", strconv.Itoa(N))
			gr.closeLoop(t)
		}
	}
	if sum {
		mm.sumEpilogue(M, N)
	}
	gr.closeLoop(it)
	return batch * chunks
}

// mmChunks is the number of row chunks of an M-row matmul: about one per
// mmChunk rows, rounded up to a multiple of 4 so that the runtime's even
// split of the chunks across 2 or 4 threads gives each the same number of
// tiles, give or take one; at most one per whole tile. Up to 2*mmChunk
// rows it is at most 2: every chunk packs all of B, which for a small
// product (GT2's 100x100x100) costs as much as a chunk's arithmetic, so
// four chunks of 25 rows cost 12% more CPU than two of 50
// (BenchmarkGT2Split, one thread).
func mmChunks(M int) int {
	c := (M + mmChunk - 1) / mmChunk
	if c > 2 {
		c = (c + 3) / 4 * 4
	}
	return max(min(c, M/mmRows), 1)
}

// mmCtx holds what the parts of one matmul share.
type mmCtx struct {
	gr                  *group
	dt                  ir.DType
	A, B                string
	C                   string // the product's buffer: the root's, or the stack's for a summed epilogue
	aBase, bBase, oBase string // offsets of the batch's matrices
	lanes               int
	K, N                string    // the sum's length and the columns: constants, or multiples of %size
	accs                []string  // accumulator allocas, reused by every tile
	pack                string    // the packed block of a panel of B
	packed              *packPlan // B packed by a nest of its own (matmul_pack.go), or nil
	apack               string    // the packed block of the chunk's rows of A
	directA             bool      // the microkernel reads A where it is (one block of k), apack unused
	aStride             int       // elements between rows of apack: kc and a cache line
	r0                  string    // the chunk's first row, apack's row 0
	kc                  int       // the length of a block of k
	nv                  int       // vectors in the current panel (mmVecs but for the last)
	// width is the lanes of the current panel's vectors when it is the
	// tail panel, narrower than a whole vector (0: lanes; see w).
	width    int
	accsBy   map[int][]string // accumulator allocas of the tail panel's width
	mm       ir.Value         // the fused matmul when epilogue, else -1
	epilogue bool             // the group's root is an epilogue of mm
	epis     int              // epilogue positions emitted, for their keys
}

// applyEpilogue replaces elements [jlo, jhi) of row i (within the batch's
// matrix) of the root's buffer, which hold the matmul's results, with the
// root computed from them.
// epilogueAfterK applies the epilogue to rows r0 .. r0+rows of the
// panel at column j0 when lastK says this was the last block of k: the
// panel's sums of the chunk are then complete and still in cache.
func (mm *mmCtx) epilogueAfterK(lastK, r0, rows, j0 string, lanes int) {
	if !mm.epilogue {
		return
	}
	gr := mm.gr
	epi, skip := gr.newLabel("epi"), gr.newLabel("noepi")
	gr.stmt("br i1 %s, label %%%s, label %%%s", lastK, epi, skip)
	gr.block(epi)
	t := gr.openLoop(r0, gr.ins("add nuw nsw i64 %s, %s", r0, rows))
	// The loop along the panel's row is the one LLVM vectorizes; the
	// one over rows only when that row is one element (a one-lane tail
	// panel), whose column is then contiguous down the rows. Marked
	// done otherwise, a 16x16x16 product compiled in 0.70x the time.
	t.done = mm.nv*lanes > 1
	mm.applyEpilogue(t.iv, j0, gr.ins("add nuw nsw i64 %s, %d", j0, mm.nv*lanes))
	gr.closeLoop(t)
	gr.stmt("br label %%%s", skip)
	gr.block(skip)
}

func (mm *mmCtx) applyEpilogue(i, jlo, jhi string) {
	gr := mm.gr
	rs := gr.g.Nodes[gr.root].Shape
	rowOff := gr.ins("add nuw nsw i64 %s, %s", mm.oBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.N))
	j := gr.openLoop(jlo, jhi)
	// Unrolled (a panel's 32 columns), the j loop left epilogueAfterK's
	// loop over rows innermost, and for some chunk sizes LLVM vectorized
	// that one instead, with gathers and scatters a row apart: 2048 and
	// 4096 rows in their 24 and 44 chunks took 8-14% more CPU than with
	// this loop kept (not 1024 in 12 chunks; BenchmarkMatMulThreads). Kept
	// as a loop, it is the one vectorized, along the row.
	j.noUnroll = true
	mm.epis++
	ix := gr.indexOf("epi"+strconv.Itoa(mm.epis), gr.root)
	ix.lin = gr.ins("add nuw nsw i64 %s, %s", rowOff, j.iv)
	ix.dims[len(rs)-1] = j.iv
	ix.dims[len(rs)-2] = i
	// The matmul's value at this position is the element in the buffer.
	gr.memo[strconv.Itoa(int(mm.mm))+"@"+ix.key] = gr.loadAt(mm.dt, gr.out, ix.lin)
	gr.store(mm.dt, gr.out, ix.lin, gr.compute(gr.root, ix))
	gr.closeLoop(j)
}

// sumEpilogue stores in the root the sum of the root's operand over the
// whole M x N product in mm.C (a summed epilogue, passes.matMulSum):
// one flat loop over the product when everything fused into the operand
// is elementwise, otherwise a loop over rows and one along each row. The
// sum is reassociated (several vector accumulators), as emitReduce's
// float sums are, within the tolerance of internal/interp/doc.go.
func (mm *mmCtx) sumEpilogue(M, N int) {
	gr, dt := mm.gr, mm.dt
	t := regType(dt)
	x := gr.g.Nodes[gr.root].Args[0]
	acc := gr.alloca(t)
	gr.stmt("store %s %s, ptr %s", t, mm.zero(), acc)
	add := func(ix *index) {
		gr.memo[strconv.Itoa(int(mm.mm))+"@"+ix.key] = gr.loadAt(dt, mm.C, ix.lin)
		cur := gr.ins("load %s, ptr %s", t, acc)
		gr.stmt("store %s %s, ptr %s", t, gr.ins("fadd reassoc %s %s, %s", t, cur, gr.value(x, ix)), acc)
	}
	if mm.flatOver(x) {
		l := gr.openLoop("0", strconv.Itoa(M*N))
		ix := gr.indexOf("sum", x)
		ix.lin = l.iv
		add(ix)
		gr.closeLoop(l)
	} else {
		i := gr.openLoop("0", strconv.Itoa(M))
		j := gr.openLoop("0", strconv.Itoa(N))
		ix := gr.indexOf("sum", x)
		ix.dims[0], ix.dims[1] = i.iv, j.iv
		ix.lin = gr.ins("add nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %d", i.iv, N), j.iv)
		add(ix)
		gr.closeLoop(j)
		gr.closeLoop(i)
	}
	gr.storeRoot(dt, "0", gr.ins("load %s, ptr %s", t, acc))
}

// flatOver is group.flat with the product as a value in memory: v and
// everything fused into it are elementwise ops or constants of the
// product and of values in memory, so that the product's linear offset
// addresses every operand.
func (mm *mmCtx) flatOver(v ir.Value) bool {
	gr := mm.gr
	n := &gr.g.Nodes[v]
	switch {
	case v == mm.mm, v != gr.root && gr.p.Materialized[v], n.Op == ir.OpConst:
		return true
	case !n.Op.IsElementwise():
		return false
	}
	for _, a := range n.Args {
		if !mm.flatOver(a) {
			return false
		}
	}
	return true
}

// packPanel copies rows [k0, k0+kLen) of the panel of B (mm.nv vectors
// wide) at column j0 into mm.pack, row after row.
func (mm *mmCtx) packPanel(k0, kLen, j0 string) {
	gr, t, vt := mm.gr, regType(mm.dt), mm.vec()
	k := gr.openLoop("0", kLen)
	k.done = true
	k.noUnroll = true // see row
	src := gr.ins("add nuw nsw i64 %s, %s", mm.bBase, gr.ins("mul nuw nsw i64 %s, %s", gr.ins("add nuw nsw i64 %s, %s", k0, k.iv), mm.N))
	src = gr.ins("add nuw nsw i64 %s, %s", src, j0)
	dst := gr.ins("mul nuw nsw i64 %s, %d", k.iv, mm.nv*mm.w())
	for v := range mm.nv {
		sp := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.B, gr.ins("add nuw nsw i64 %s, %d", src, v*mm.w()))
		x := gr.ins("load %s, ptr %s, align %d", vt, sp, mm.dt.Size())
		dp := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.pack, gr.ins("add nuw nsw i64 %s, %d", dst, v*mm.w()))
		gr.stmt("store %s %s, ptr %s, align %d", vt, x, dp, mm.dt.Size())
	}
	gr.closeLoop(k)
}

// packRows copies columns [k0, k0+kLen) of the n rows of A from row r0
// (the rows the chunk's tiles compute) into mm.apack, row after row,
// mm.aStride elements apart: the microkernel then reads its rows at
// constant offsets, as it reads A in place when K fits one block. Each
// row is a contiguous copy, which LLVM vectorizes; the layout with a
// tile's mmRows values of each k side by side, used before, was packed
// with scatters (its stores lie mmRows apart), about 6% of a 1024-square
// product's time. The stride's extra cache line keeps the rows of a tile
// from mapping to the same cache sets.
func (mm *mmCtx) packRows(r0, n, k0, kLen string) {
	gr, dt := mm.gr, mm.dt
	t := gr.openLoop("0", n)
	t.done = true
	src := gr.ins("add nuw nsw i64 %s, %s", mm.aBase, gr.ins("mul nuw nsw i64 %s, %s", gr.ins("add nuw nsw i64 %s, %s", r0, t.iv), mm.K))
	src = gr.ins("add nuw nsw i64 %s, %s", src, k0)
	dst := gr.ins("mul nuw nsw i64 %s, %d", t.iv, mm.aStride)
	k := gr.openLoop("0", kLen)
	k.noUnroll = true // see row
	x := gr.loadAt(dt, mm.A, gr.ins("add nuw nsw i64 %s, %s", src, k.iv))
	gr.store(dt, mm.apack, gr.ins("add nuw nsw i64 %s, %s", dst, k.iv), x)
	gr.closeLoop(k)
	gr.closeLoop(t)
}

// rowOff is r rows of the A the microkernel reads: r*K elements in place
// (a constant in a static matmul), r*aStride in apack.
func (mm *mmCtx) rowOff(r int) string {
	if !mm.directA {
		return strconv.Itoa(r * mm.aStride)
	}
	if k, err := strconv.Atoi(mm.K); err == nil {
		return strconv.Itoa(r * k)
	}
	return mm.gr.ins("mul nuw nsw i64 %s, %d", mm.K, r)
}

func (mm *mmCtx) vec() string { return fmt.Sprintf("<%d x %s>", mm.w(), regType(mm.dt)) }

// w is the lanes of the current panel's vectors: a whole vector, or the
// tail panel's width.
func (mm *mmCtx) w() int {
	if mm.width > 0 {
		return mm.width
	}
	return mm.lanes
}

func (mm *mmCtx) zero() string {
	if mm.dt.IsFloat() {
		return floatLit(mm.dt, 0)
	}
	return "0"
}

// tile adds the products of the current block of k (kLen of them) to
// the nr x mm.nv-vector block of the output at row i0 (within the batch's
// matrix) and column j0, in registers, starting from zero when first is
// true and from the block's stored partial sums otherwise; A comes from
// its nr rows (mmRows but for a chunk's last rows) in place or packed
// (packRows), B from the packed panel.
func (mm *mmCtx) tile(i0, j0, kLen, first string, nr int) {
	gr, t, vt := mm.gr, regType(mm.dt), mm.vec()
	accs := mm.accs
	if mm.width > 0 {
		accs = mm.accsBy[mm.width]
	}
	if accs == nil {
		for range mmRows * mmVecs {
			accs = append(accs, gr.alloca(vt))
		}
		if mm.width > 0 {
			if mm.accsBy == nil {
				mm.accsBy = map[int][]string{}
			}
			mm.accsBy[mm.width] = accs
		} else {
			mm.accs = accs
		}
	}
	outPtr := func(r, v int) string {
		i := gr.ins("add nuw nsw i64 %s, %d", i0, r)
		o := gr.ins("add nuw nsw i64 %s, %s", mm.oBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.N))
		o = gr.ins("add nuw nsw i64 %s, %s", o, j0)
		return gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.C, gr.ins("add nuw nsw i64 %s, %d", o, v*mm.w()))
	}
	for r := range nr {
		for v := range mm.nv {
			old := gr.ins("load %s, ptr %s, align %d", vt, outPtr(r, v), mm.dt.Size())
			init := gr.ins("select i1 %s, %s zeroinitializer, %s %s", first, vt, vt, old)
			gr.stmt("store %s %s, ptr %s", vt, init, accs[r*mmVecs+v])
		}
	}
	// Row i0's first k of the block; row r lies rowOff(r) further.
	aArr, aRow0 := mm.A, ""
	if mm.directA {
		aRow0 = gr.ins("add nuw nsw i64 %s, %s", mm.aBase, gr.ins("mul nuw nsw i64 %s, %s", i0, mm.K))
	} else {
		aArr = mm.apack
		aRow0 = gr.ins("mul nuw nsw i64 %s, %d", gr.ins("sub nuw nsw i64 %s, %s", i0, mm.r0), mm.aStride)
	}
	k := gr.openLoop("0", kLen)
	k.done = true
	aK := gr.ins("add nuw nsw i64 %s, %s", aRow0, k.iv)
	bRow := gr.ins("mul nuw nsw i64 %s, %d", k.iv, mm.nv*mm.w())
	var bv []string
	for v := range mm.nv {
		p := gr.ins("getelementptr inbounds %s, ptr %s, i64 %s", t, mm.pack, gr.ins("add nuw nsw i64 %s, %d", bRow, v*mm.w()))
		bv = append(bv, gr.ins("load %s, ptr %s, align %d", vt, p, mm.dt.Size()))
	}
	for r := range nr {
		a := gr.loadAt(mm.dt, aArr, gr.ins("add nuw nsw i64 %s, %s", aK, mm.rowOff(r)))
		one := gr.ins("insertelement %s poison, %s %s, i64 0", vt, t, a)
		splat := gr.ins("shufflevector %s %s, %s poison, <%d x i32> zeroinitializer", vt, one, vt, mm.w())
		for v := range mm.nv {
			acc := accs[r*mmVecs+v]
			cur := gr.ins("load %s, ptr %s", vt, acc)
			gr.stmt("store %s %s, ptr %s", vt, mm.mulAdd(vt, splat, bv[v], cur), acc)
		}
	}
	gr.closeLoop(k)
	for r := range nr {
		for v := range mm.nv {
			gr.stmt("store %s %s, ptr %s, align %d", vt, gr.ins("load %s, ptr %s", vt, accs[r*mmVecs+v]), outPtr(r, v), mm.dt.Size())
		}
	}
}

// row computes columns [lo, hi) of output row i (within the batch's
// matrix) with the k loop outside the j loop, so the inner loop streams a
// row of B and of the output.
func (mm *mmCtx) row(i string, lo, hi string) {
	gr, dt := mm.gr, mm.dt
	outRow := gr.ins("add nuw nsw i64 %s, %s", mm.oBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.N))
	aRow := gr.ins("add nuw nsw i64 %s, %s", mm.aBase, gr.ins("mul nuw nsw i64 %s, %s", i, mm.K))
	j := gr.openLoop(lo, hi)
	gr.store(dt, mm.C, gr.ins("add nuw nsw i64 %s, %s", outRow, j.iv), mm.zero())
	gr.closeLoop(j)
	k := gr.openLoop("0", mm.K)
	aik := gr.loadAt(dt, mm.A, gr.ins("add nuw nsw i64 %s, %s", aRow, k.iv))
	bRow := gr.ins("add nuw nsw i64 %s, %s", mm.bBase, gr.ins("mul nuw nsw i64 %s, %s", k.iv, mm.N))
	j = gr.openLoop(lo, hi)
	// A short constant j loop inside the k loop would be unrolled fully,
	// and the SLP vectorizer then spends seconds (22 s for uint8 with
	// K = 600, N = 40) on the straight-line result; the loop vectorizer
	// handles the loop as it is.
	j.noUnroll = true
	oOff := gr.ins("add nuw nsw i64 %s, %s", outRow, j.iv)
	o := gr.loadAt(dt, mm.C, oOff)
	bkj := gr.loadAt(dt, mm.B, gr.ins("add nuw nsw i64 %s, %s", bRow, j.iv))
	gr.store(dt, mm.C, oOff, mm.mulAdd(regType(dt), aik, bkj, o))
	gr.closeLoop(j)
	gr.closeLoop(k)
}

// mulAdd returns acc + x*y in type t (dt's register type, or a vector of
// it). Floats use llvm.fmuladd, which the backend fuses into one FMA
// where the target has it (one rounding instead of two; the tolerance of
// internal/interp/doc.go covers it); integers multiply and add, wrapping.
func (mm *mmCtx) mulAdd(t, x, y, acc string) string {
	gr := mm.gr
	if !mm.dt.IsFloat() {
		return gr.ins("add %s %s, %s", t, acc, gr.ins("mul %s %s, %s", t, x, y))
	}
	suffix := intrinsicSuffix(mm.dt)
	if t != regType(mm.dt) {
		suffix = fmt.Sprintf("v%d%s", mm.w(), suffix)
	}
	name := "llvm.fmuladd." + suffix
	gr.declare(name, fmt.Sprintf("declare %s @%s(%s, %s, %s)", t, name, t, t, t))
	return gr.ins("call %s @%s(%s %s, %s %s, %s %s)", t, name, t, x, t, y, t, acc)
}
