package codegen

import (
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// Several rows at once. A sum over the last axis of a large operand
// reads one long contiguous row per output element; done one row at a
// time, each core has a single stream of loads in flight, and the
// hardware prefetcher, which runs a few lines ahead of each stream, then
// bounds the bandwidth well below what the memory system gives to
// several streams. emitReduceRows sums SumRows.Rows rows side by side in
// one inner loop, each with its own accumulators, so that each core
// reads that many streams at once. On a 2-vCPU Xeon VM (AVX-512, quiet
// moment) a C loop over a 4096x4096 float32 read 25 GB/s one row at a
// time and 34 GB/s four rows at a time on two threads (11 and 17 GB/s on
// one); eight rows were no faster than four.
//
// Each row also needs several vectors per iteration (SumRows.Vectors). On
// a 2-vCPU AMD EPYC VM (Zen 5, family 1Ah, 1 MiB L2 per core, 32 MiB L3)
// four rows of one vector each were the slowest shape tried: each stream
// then advances one cache line per iteration. Kernels generated with
// each shape, alternated in one process over 1,360 rounds of the
// 4096x4096 sum on two threads (a loaded host), took per round, as a
// share of four rows of one vector (median): 4x2 0.94, 1x8 0.94, 2x4
// 0.95, one row at a time (the vectorizer's four vectors) 0.95, 4x4
// 0.95; in the 15 quietest rounds 4x2 0.80 and 1x8 0.75, and the best
// rounds 0.46 ms for 4x2 against 0.58 ms for 4x1. A second run (4x1,
// 4x2, one row at a time) gave 0.92 and 0.94 on two threads (1,200
// rounds), 0.89 and 0.89 on one (240). A C loop agreed (quiet, two
// threads):
// 4x1 74 GB/s, 1x8 106, the whole-array sum 107. 4x2 keeps the four
// streams the Xeon needed and costs 7% more compile time than 4x1 (11
// against 10.5 ms). Where the host's memory gave the whole-array sum
// only 45-55 GB/s, gojit bench -peers found 4x1, 4x2 and PyTorch within
// its run-to-run noise of one another. BenchmarkReduceRows compares the
// default with 4x1 and with one row at a time.
//
// Every output element still sums its own row (only the order within a
// row is reassociated, as emitReduce's vector accumulators do), so the
// result per row is the same as with one row at a time, up to that
// reassociation.
const (
	// reduceRowsAt and reduceRowsVectors are the default SumRows. The
	// inner loop is interleaved reduceRowsVectors times with no
	// unrolling besides and no loop for rows left over (see
	// emitReduceRows): earlier, with LLVM's unrolling and such a loop,
	// the 4096x4096 row sum spent 1.8x the compile time of one row at a
	// time.
	reduceRowsAt      = 4
	reduceRowsVectors = 2
	// reduceRowsMinBytes is the shortest row that is summed with others:
	// below it a row is a few vectors, and the rows' loads are already
	// many per iteration of the outer loop.
	reduceRowsMinBytes = 1024
)

// SumRows is the shape of the inner loop of a sum over the last axis
// (emitReduceRows): Rows rows side by side, each adding Vectors vectors
// per iteration into accumulators of its own.
type SumRows struct {
	Rows, Vectors int
}

// sumRows is the target's row-sum shape: its SumRows, or the default
// (reduceRowsAt, reduceRowsVectors) when that is unset.
func (t Target) sumRows() SumRows {
	if t.SumRows.Rows > 0 && t.SumRows.Vectors > 0 {
		return t.SumRows
	}
	return SumRows{Rows: reduceRowsAt, Vectors: reduceRowsVectors}
}

// reduceRows is false only in BenchmarkReduceRows, which measures the
// generated code against summing one row at a time.
var reduceRows = true

// rowsAtOnce reports whether reduction n is emitted by emitReduceRows: a
// sum over the last axis alone of a static operand, in a group that is a
// nest of its own, with at least SumRows.Rows rows of at least
// reduceRowsMinBytes. A group that gathers is excluded: its bounds
// checks must report the first bad index in row order.
func (gr *group) rowsAtOnce(n *ir.Node) bool {
	if !reduceRows || n.Op != ir.OpReduceSum || len(n.Axes) != 1 || gr.row != "" || gr.dyn != nil {
		return false
	}
	an := &gr.g.Nodes[n.Args[0]]
	dt, rank := an.DType, an.Shape.Rank()
	if rank < 2 || n.Axes[0] != rank-1 || dt.IsHalf() || dt == ir.Bool || !(dt.IsFloat() || dt.IsInt()) {
		return false
	}
	if an.Shape[rank-1]*dt.Size() < reduceRowsMinBytes || n.Shape.Size() < gr.target.sumRows().Rows {
		return false
	}
	return !gr.gathers(gr.root, map[ir.Value]bool{})
}

// emitReduceRows computes a sum over the last axis (rowsAtOnce) as a loop
// over the output's elements, the rows, in blocks of SumRows.Rows. The
// outer loop the runtime splits runs over output axis 0 as in
// emitReduce; its range [start, end) covers the rows [start*per,
// end*per), per being the rows under one index of axis 0. The last block
// of a range that does not fill it repeats the range's last row in its
// spare places, rather than leaving the rest to a loop of one row at a
// time: that loop, vectorized as well, was a good part of the extra
// compile time (see reduceRowsVectors), and every row is now summed
// by the same code whatever the split, so the result does not depend on
// the number of threads. The repeated row is summed by the same
// instructions in every place and stored by the same thread, the same
// value each time.
func (gr *group) emitReduceRows(n *ir.Node) int {
	shape := gr.target.sumRows()
	per := n.Shape.Size() / n.Shape[0]
	q0, q1 := "%start", "%end"
	if per != 1 {
		q0 = gr.ins("mul nuw nsw i64 %%start, %d", per)
		q1 = gr.ins("mul nuw nsw i64 %%end, %d", per)
	}
	rows := gr.ins("sub nuw nsw i64 %s, %s", q1, q0)
	blocks := gr.ins("udiv i64 %s, %d", gr.ins("add nuw nsw i64 %s, %d", rows, shape.Rows-1), shape.Rows)
	lastRow := gr.ins("sub nuw nsw i64 %s, 1", q1)
	bl := gr.openLoop("0", blocks)
	first := gr.ins("add nuw nsw i64 %s, %s", q0, gr.ins("mul nuw nsw i64 %s, %d", bl.iv, shape.Rows))
	qs := make([]string, shape.Rows)
	qs[0] = first
	for r := 1; r < len(qs); r++ {
		q := gr.ins("add nuw nsw i64 %s, %d", first, r)
		past := gr.ins("icmp ugt i64 %s, %s", q, lastRow)
		qs[r] = gr.ins("select i1 %s, i64 %s, i64 %s", past, lastRow, q)
	}
	gr.sumRows(n, qs, shape.Vectors)
	gr.closeLoop(bl)
	return n.Shape[0]
}

// sumRows stores in the output elements qs (linear offsets of the root)
// the sums of their rows of the operand, computed side by side in one
// loop along the last axis.
func (gr *group) sumRows(n *ir.Node, qs []string, vectors int) {
	a := n.Args[0]
	an := &gr.g.Nodes[a]
	dt := an.DType
	t := regType(dt)
	last := an.Shape.Rank() - 1
	cols := an.Shape[last]
	strides := n.Shape.Strides()
	accs := make([]string, len(qs))
	for r := range qs {
		accs[r] = gr.alloca(t)
		gr.stmt("store %s %s, ptr %s", t, reduceInit(n.Op, dt), accs[r])
	}
	// Each row's coordinates along the kept axes, and its first element.
	coords := make([][]string, len(qs))
	bases := make([]string, len(qs))
	for r, q := range qs {
		coords[r] = make([]string, last)
		for k := range last {
			d := q
			if strides[k] != 1 {
				d = gr.ins("udiv i64 %s, %d", d, strides[k])
			}
			if k > 0 {
				d = gr.ins("urem i64 %s, %d", d, n.Shape[k])
			}
			coords[r][k] = d
		}
		bases[r] = gr.ins("mul nuw nsw i64 %s, %d", q, cols)
	}
	gr.tmp++
	key := "rows" + strconv.Itoa(gr.tmp) + "_"
	j := gr.openLoop("0", strconv.Itoa(cols))
	j.interleave = vectors
	for r := range qs {
		in := gr.indexOf(key+strconv.Itoa(r), a)
		copy(in.dims, coords[r])
		in.dims[last] = j.iv
		in.lin = gr.ins("add nuw nsw i64 %s, %s", bases[r], j.iv)
		x := gr.value(a, in)
		cur := gr.ins("load %s, ptr %s", t, accs[r])
		var sum string
		if dt.IsFloat() {
			sum = gr.ins("fadd reassoc %s %s, %s", t, cur, x)
		} else {
			sum = gr.binary(ir.OpAdd, dt, cur, x)
		}
		gr.stmt("store %s %s, ptr %s", t, sum, accs[r])
	}
	gr.closeLoop(j)
	for r, q := range qs {
		gr.storeRoot(dt, q, gr.ins("load %s, ptr %s", t, accs[r]))
	}
}
