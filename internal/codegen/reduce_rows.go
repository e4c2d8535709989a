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
// several streams. emitReduceRows sums reduceRowsAt rows side by side in
// one inner loop, each with its own accumulators, so that each core
// reads reduceRowsAt streams at once. On the 2-vCPU development host
// (Xeon, AVX-512, quiet moment) a C loop over a 4096x4096 float32 read
// 25 GB/s one row at a time and 34 GB/s four rows at a time on two
// threads (11 and 17 GB/s on one); eight rows were no faster than four.
// BenchmarkReduceRows compares the generated code with and without.
//
// Every output element still sums its own row (only the order within a
// row is reassociated, as emitReduce's vector accumulators do), so the
// result per row is the same as with one row at a time, up to that
// reassociation.
const (
	// reduceRowsAt is how many rows the inner loop reads side by side.
	reduceRowsAt = 4
	// reduceRowsInterleave is the vectors of each row the inner loop
	// adds per iteration, each into an accumulator of its own, with no
	// unrolling besides: one is as fast as two from memory (the rows
	// already give each core four chains of adds), and the code LLVM
	// optimizes and emits is smaller. With two, LLVM's unrolling and a
	// loop for the rows left over, the 4096x4096 row sum spent 1.8x the
	// CPU time of one row at a time in LLVM's optimizer and backend;
	// with one and no such loop, 1.1-1.3x (loaded host).
	reduceRowsInterleave = 1
	// reduceRowsMinBytes is the shortest row that is summed with others:
	// below it a row is a few vectors, and the rows' loads are already
	// many per iteration of the outer loop.
	reduceRowsMinBytes = 1024
)

// reduceRows is false only in BenchmarkReduceRows, which measures the
// generated code against summing one row at a time.
var reduceRows = true

// rowsAtOnce reports whether reduction n is emitted by emitReduceRows: a
// sum over the last axis alone of a static operand, in a group that is a
// nest of its own, with at least reduceRowsAt rows of at least
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
	if an.Shape[rank-1]*dt.Size() < reduceRowsMinBytes || n.Shape.Size() < reduceRowsAt {
		return false
	}
	return !gr.gathers(gr.root, map[ir.Value]bool{})
}

// emitReduceRows computes a sum over the last axis (rowsAtOnce) as a loop
// over the output's elements, the rows, in blocks of reduceRowsAt. The
// outer loop the runtime splits runs over output axis 0 as in
// emitReduce; its range [start, end) covers the rows [start*per,
// end*per), per being the rows under one index of axis 0. The last block
// of a range that does not fill it repeats the range's last row in its
// spare places, rather than leaving the rest to a loop of one row at a
// time: that loop, vectorized as well, was a good part of the extra
// compile time (see reduceRowsInterleave), and every row is now summed
// by the same code whatever the split, so the result does not depend on
// the number of threads. The repeated row is summed by the same
// instructions in every place and stored by the same thread, the same
// value each time.
func (gr *group) emitReduceRows(n *ir.Node) int {
	per := n.Shape.Size() / n.Shape[0]
	q0, q1 := "%start", "%end"
	if per != 1 {
		q0 = gr.ins("mul nuw nsw i64 %%start, %d", per)
		q1 = gr.ins("mul nuw nsw i64 %%end, %d", per)
	}
	rows := gr.ins("sub nuw nsw i64 %s, %s", q1, q0)
	blocks := gr.ins("udiv i64 %s, %d", gr.ins("add nuw nsw i64 %s, %d", rows, reduceRowsAt-1), reduceRowsAt)
	lastRow := gr.ins("sub nuw nsw i64 %s, 1", q1)
	bl := gr.openLoop("0", blocks)
	first := gr.ins("add nuw nsw i64 %s, %s", q0, gr.ins("mul nuw nsw i64 %s, %d", bl.iv, reduceRowsAt))
	qs := make([]string, reduceRowsAt)
	qs[0] = first
	for r := 1; r < len(qs); r++ {
		q := gr.ins("add nuw nsw i64 %s, %d", first, r)
		past := gr.ins("icmp ugt i64 %s, %s", q, lastRow)
		qs[r] = gr.ins("select i1 %s, i64 %s, i64 %s", past, lastRow, q)
	}
	gr.sumRows(n, qs)
	gr.closeLoop(bl)
	return n.Shape[0]
}

// sumRows stores in the output elements qs (linear offsets of the root)
// the sums of their rows of the operand, computed side by side in one
// loop along the last axis.
func (gr *group) sumRows(n *ir.Node, qs []string) {
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
	j.interleave = reduceRowsInterleave
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
