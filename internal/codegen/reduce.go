package codegen

import (
	"math"
	"slices"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// emitReduce computes a reduction root. When the operand's last axis is
// kept (a column-wise reduction) it walks the operand in row-major order
// and accumulates into the output (emitReduceWalk); otherwise it loops over
// the output, and inside over the reduced axes, in which the fused
// producers are computed and accumulated in a register. Either way each
// output element sees its reduced elements in row-major order of the
// reduced indices, as the interpreter does; only a float sum over the
// last axis is reassociated (several vector accumulators), within the
// tolerance internal/interp/doc.go documents.
func (gr *group) emitReduce(n *ir.Node) int {
	if bp := gr.blocks; bp != nil && bp.root == gr.root {
		return gr.emitCombine(n, bp) // reduce_blocks.go
	}
	if walkable(gr.g, n) {
		return gr.emitReduceWalk(n)
	}
	if gr.rowsAtOnce(n) {
		return gr.emitReduceRows(n) // reduce_rows.go
	}
	a := n.Args[0]
	an := &gr.g.Nodes[a]
	dt := an.DType
	t := regType(dt)
	outer, oix := gr.loops("r", gr.root)
	outOff := gr.linear(oix)

	acc := gr.alloca(t)
	var idx string
	init := reduceInit(n.Op, dt)
	gr.stmt("store %s %s, ptr %s", t, init, acc)
	if n.Op.Kind() == ir.KindArgReduce {
		idx = gr.alloca("i64")
		gr.stmt("store i64 0, ptr %s", idx)
	}

	in := gr.indexOf("red"+strconv.Itoa(gr.tmp), a)
	kept := reduced(an.Shape.Rank(), n.Axes)
	for j, k := range kept {
		in.dims[k] = oix.dims[j]
	}
	var inner []*loop
	if gr.flatWhole(n) {
		// Every axis of a same-shape elementwise operand: one loop over
		// its linear offset, in the same (row-major) order, vectorized
		// along the whole operand rather than row by row.
		l := gr.openLoop("0", strconv.Itoa(an.Shape.Size()))
		l.interleave = wholeInterleave
		inner = append(inner, l)
		in.lin = l.iv
	} else {
		for _, k := range n.Axes {
			l := gr.openLoop("0", gr.extent(in, k))
			inner = append(inner, l)
			in.dims[k] = l.iv
		}
	}
	if an.Shape.Rank() == 0 {
		in.lin = "0"
	}
	x := gr.value(a, in)
	cur := gr.ins("load %s, ptr %s", t, acc)
	switch n.Op {
	case ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMax, ir.OpReduceMin:
		// reassoc lets the loop vectorizer keep several partial sums of
		// floats: the one documented departure from the sequential order.
		gr.stmt("store %s %s, ptr %s", t, gr.fold(n.Op, dt, cur, x, true), acc)
	case ir.OpArgMax, ir.OpArgMin:
		better := gr.compare(map[bool]ir.Op{true: ir.OpGt, false: ir.OpLt}[n.Op == ir.OpArgMax], dt, x, cur)
		if dt.IsFloat() {
			// The first NaN wins, as in NumPy: take x if it is NaN and the
			// best so far is not.
			xn := gr.ins("fcmp uno %s %s, %s", t, x, x)
			cn := gr.ins("fcmp ord %s %s, %s", t, cur, cur)
			nan := gr.ins("and i1 %s, %s", xn, cn)
			better = gr.ins("or i1 %s, %s", better, nan)
		}
		gr.stmt("store %s %s, ptr %s", t, gr.ins("select i1 %s, %s %s, %s %s", better, t, x, t, cur), acc)
		old := gr.ins("load i64, ptr %s", idx)
		gr.stmt("store i64 %s, ptr %s", gr.ins("select i1 %s, i64 %s, i64 %s", better, inner[0].iv, old), idx)
	}
	gr.closeLoops(inner)
	if idx != "" {
		gr.storeRoot(ir.Int64, outOff, gr.ins("load i64, ptr %s", idx))
	} else {
		gr.storeRoot(dt, outOff, gr.ins("load %s, ptr %s", t, acc))
	}
	gr.closeLoops(outer)
	return extentOf(n.Shape)
}

// flatWhole reports whether reduction n reduces every axis (two or more)
// of a static operand of same-shape elementwise ops, which emitReduce
// then visits in one loop over the linear offset. Arg reductions keep
// their loops (their result is a coordinate).
func (gr *group) flatWhole(n *ir.Node) bool {
	an := &gr.g.Nodes[n.Args[0]]
	return n.Op.Kind() == ir.KindReduce && n.Shape.Rank() == 0 && an.Shape.Rank() >= 2 &&
		gr.dyn == nil && gr.flat(n.Args[0])
}

// wholeInterleave is the interleave count asked of the loop of a
// whole-array reduction (flatWhole, reduce_blocks.go), without unrolling
// besides: its one output element makes it a small nest (smallNest),
// whose unroll.disable alone also keeps the vectorizer to one
// accumulator, whose adds then run at their latency (GT2's relu+mean over
// 100x100 took about 1.4x as long); letting LLVM unroll as well cost 40%
// more compile time on a 30x30 sum, the hint none.
const wholeInterleave = 4

// walkable reports whether a reduction is emitted by emitReduceWalk: a
// sum, product, max or min whose operand keeps its last axis.
func walkable(g *ir.Graph, n *ir.Node) bool {
	if n.Op.Kind() != ir.KindReduce {
		return false
	}
	r := g.Nodes[n.Args[0]].Shape.Rank()
	return r > 0 && !slices.Contains(n.Axes, r-1)
}

// emitReduceWalk computes a reduction whose operand keeps its last axis by
// walking the operand in row-major order and folding each element into its
// output element in the output buffer. The innermost loop then runs along
// kept, contiguous axes of operand and output (it vectorizes without
// reassociating anything), and each output element still folds its
// elements in row-major order of the reduced indices, exactly as the
// interpreter does. The outer loop runs over operand axis 0 when it is
// kept, which is then also output axis 0; otherwise over chunks of the
// last axis (a single chunk when that axis is short).
func (gr *group) emitReduceWalk(n *ir.Node) int {
	a := n.Args[0]
	an := &gr.g.Nodes[a]
	dt := an.DType
	shape := an.Shape
	rank := shape.Rank()
	isRed := make([]bool, rank)
	for _, k := range n.Axes {
		isRed[k] = true
	}
	first := slices.Index(isRed, true) // first reduced axis (-1: none)
	if first < 0 {
		first = rank
	}
	extent := 1
	var ls []*loop
	in := gr.indexOf("walk"+strconv.Itoa(gr.tmp), a)
	// When axis 0 is reduced, the outer loop runs over chunks of the last
	// (kept, contiguous) axis instead, so the runtime can still split the
	// walk; each chunk folds its own output columns, in the same order.
	last := rank - 1
	c0, c1 := "", ""
	if first == 0 {
		cw := walkChunkBytes / max(dt.Size(), 1)
		chunks := 1
		if shape[last] >= 2*cw {
			chunks = (shape[last] + cw - 1) / cw
		}
		l := gr.openLoop("%start", "%end")
		ls = append(ls, l)
		extent = chunks
		if chunks > 1 {
			c0 = gr.ins("mul nuw nsw i64 %s, %d", l.iv, cw)
			c1 = gr.ins("add nuw nsw i64 %s, %d", c0, cw)
			over := gr.ins("icmp sgt i64 %s, %d", c1, shape[last])
			c1 = gr.ins("select i1 %s, i64 %d, i64 %s", over, shape[last], c1)
		}
	}
	// Output coordinates of the kept axes seen so far, and the linear
	// output offset they determine.
	var outDims []string
	openAxis := func(k int) {
		start, end := "0", gr.extent(in, k)
		if k == last && c0 != "" {
			start, end = c0, c1
		}
		if k == 0 && !isRed[0] {
			extent = shape[0]
			if gr.row != "" {
				in.dims[0] = gr.row
				outDims = append(outDims, gr.row)
				return
			}
			start, end = "%start", "%end"
		}
		l := gr.openLoop(start, end)
		ls = append(ls, l)
		in.dims[k] = l.iv
		if !isRed[k] {
			outDims = append(outDims, l.iv)
		}
	}
	for k := range first {
		openAxis(k)
	}
	// Start every output element whose leading coordinates are now fixed.
	block := 1
	for k := first; k < rank; k++ {
		if !isRed[k] {
			block *= shape[k]
		}
	}
	base := "0"
	if len(outDims) > 0 {
		prefix := newIndex("walkout"+strconv.Itoa(gr.tmp), n.Shape[:len(outDims)])
		copy(prefix.dims, outDims)
		base = gr.linear(prefix)
		if block != 1 {
			base = gr.ins("mul nuw nsw i64 %s, %d", base, block)
		}
	}
	if c0 != "" {
		// Only this chunk's columns of every output row.
		rows := gr.openLoop("0", strconv.Itoa(block/shape[last]))
		rowOff := gr.ins("mul nuw nsw i64 %s, %d", rows.iv, shape[last])
		col := gr.openLoop(c0, c1)
		gr.storeRoot(dt, gr.ins("add nuw nsw i64 %s, %s", rowOff, col.iv), reduceInit(n.Op, dt))
		gr.closeLoop(col)
		gr.closeLoop(rows)
	} else {
		init := gr.openLoop("0", strconv.Itoa(block))
		gr.storeRoot(dt, gr.ins("add nuw nsw i64 %s, %s", base, init.iv), reduceInit(n.Op, dt))
		gr.closeLoop(init)
	}
	for k := first; k < rank; k++ {
		openAxis(k)
	}
	oix := newIndex("walkacc"+strconv.Itoa(gr.tmp), n.Shape)
	copy(oix.dims, outDims)
	off := gr.linear(oix)
	x := gr.value(a, in)
	cur := gr.loadRoot(dt, off)
	gr.storeRoot(dt, off, gr.fold(n.Op, dt, cur, x, false))
	gr.closeLoops(ls)
	return extent
}

// walkChunkBytes is the width of the column chunks a walked reduction over
// axis 0 is split into.
const walkChunkBytes = 2048

// reduceInit is the accumulator's start value.
func reduceInit(op ir.Op, dt ir.DType) string {
	lo, hi := int64(0), int64(0)
	if dt.IsInt() {
		lo, hi = limits(dt)
	}
	switch op {
	case ir.OpReduceSum:
		if dt.IsFloat() {
			return floatLit(dt, 0)
		}
		return "0"
	case ir.OpReduceProd:
		if dt.IsFloat() {
			return floatLit(dt, 1)
		}
		return "1"
	case ir.OpReduceMax, ir.OpArgMax:
		if dt.IsFloat() {
			return floatLit(dt, math.Inf(-1))
		}
		return intLit(dt, lo)
	default: // min, argmin
		if dt.IsFloat() {
			return floatLit(dt, math.Inf(1))
		}
		return intLit(dt, hi)
	}
}
