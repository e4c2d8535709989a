package codegen

import (
	"math"
	"strconv"

	"github.com/gojit/gojit/internal/ir"
)

// emitReduce computes a reduction root: loops over the output, and inside
// them loops over the reduced axes in which the fused producers are
// computed and accumulated. Elements are visited in row-major order of the
// reduced indices and accumulated in order, exactly as the interpreter does.
func (gr *group) emitReduce(n *ir.Node) int {
	a := n.Args[0]
	an := &gr.g.Nodes[a]
	dt := an.DType
	t := regType(dt)
	outer, oix := gr.loops("r", n.Shape)
	outOff := gr.linear(oix)

	acc := gr.alloca(t)
	var idx string
	init := reduceInit(n.Op, dt)
	gr.stmt("store %s %s, ptr %s", t, init, acc)
	if n.Op.Kind() == ir.KindArgReduce {
		idx = gr.alloca("i64")
		gr.stmt("store i64 0, ptr %s", idx)
	}

	in := newIndex("red"+strconv.Itoa(gr.tmp), an.Shape)
	kept := reduced(an.Shape.Rank(), n.Axes)
	for j, k := range kept {
		in.dims[k] = oix.dims[j]
	}
	var inner []*loop
	for _, k := range n.Axes {
		l := gr.openLoop("0", strconv.Itoa(an.Shape[k]))
		inner = append(inner, l)
		in.dims[k] = l.iv
	}
	if an.Shape.Rank() == 0 {
		in.lin = "0"
	}
	x := gr.value(a, in)
	cur := gr.ins("load %s, ptr %s", t, acc)
	switch n.Op {
	case ir.OpReduceSum:
		gr.stmt("store %s %s, ptr %s", t, gr.binary(ir.OpAdd, dt, cur, x), acc)
	case ir.OpReduceProd:
		gr.stmt("store %s %s, ptr %s", t, gr.binary(ir.OpMul, dt, cur, x), acc)
	case ir.OpReduceMax:
		gr.stmt("store %s %s, ptr %s", t, gr.binary(ir.OpMax, dt, cur, x), acc)
	case ir.OpReduceMin:
		gr.stmt("store %s %s, ptr %s", t, gr.binary(ir.OpMin, dt, cur, x), acc)
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
		gr.store(ir.Int64, "%out", outOff, gr.ins("load i64, ptr %s", idx))
	} else {
		gr.store(dt, "%out", outOff, gr.ins("load %s, ptr %s", t, acc))
	}
	gr.closeLoops(outer)
	return extentOf(n.Shape)
}

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

// emitMatMul computes [...,M,K] x [...,K,N] one output row per outer
// iteration. The k loop is outside the j loop so the innermost loop
// streams a row of B and of the output (it vectorizes); each output
// element still accumulates its products in ascending k, starting from
// zero, like the interpreter.
func (gr *group) emitMatMul(n *ir.Node) int {
	an, bn := &gr.g.Nodes[n.Args[0]], &gr.g.Nodes[n.Args[1]]
	dt := n.DType
	r := an.Shape.Rank()
	M, K, N := an.Shape[r-2], an.Shape[r-1], bn.Shape[r-1]
	batch := an.Shape[:r-2].Size()
	A, B := gr.buf(n.Args[0]), gr.buf(n.Args[1])
	zero := "0"
	if dt.IsFloat() {
		zero = floatLit(dt, 0)
	}

	row := gr.openLoop("%start", "%end")
	bBase := "0"
	if batch > 1 {
		b := gr.ins("udiv i64 %s, %d", row.iv, M)
		bBase = gr.ins("mul nuw nsw i64 %s, %d", b, K*N)
	}
	outRow := gr.ins("mul nuw nsw i64 %s, %d", row.iv, N)
	aRow := gr.ins("mul nuw nsw i64 %s, %d", row.iv, K)

	j := gr.openLoop("0", strconv.Itoa(N))
	gr.store(dt, "%out", gr.ins("add nuw nsw i64 %s, %s", outRow, j.iv), zero)
	gr.closeLoop(j)

	k := gr.openLoop("0", strconv.Itoa(K))
	aik := gr.loadAt(dt, A, gr.ins("add nuw nsw i64 %s, %s", aRow, k.iv))
	kOff := gr.ins("mul nuw nsw i64 %s, %d", k.iv, N)
	bRow := gr.ins("add nuw nsw i64 %s, %s", bBase, kOff)
	j = gr.openLoop("0", strconv.Itoa(N))
	oOff := gr.ins("add nuw nsw i64 %s, %s", outRow, j.iv)
	o := gr.loadAt(dt, "%out", oOff)
	bkj := gr.loadAt(dt, B, gr.ins("add nuw nsw i64 %s, %s", bRow, j.iv))
	prod := gr.binary(ir.OpMul, dt, aik, bkj)
	gr.store(dt, "%out", oOff, gr.binary(ir.OpAdd, dt, o, prod))
	gr.closeLoop(j)
	gr.closeLoop(k)
	gr.closeLoop(row)
	return batch * M
}
