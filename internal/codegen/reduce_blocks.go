package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// Whole-array reductions in fixed blocks. A reduction of every axis of a
// large operand (x.Sum(), x.Max() ...) has an output of one element, so
// its nest has an outer loop of extent 1 that the runtime cannot split:
// it ran on one thread (4096x4096 float32: 7.4 ms against 3.3 ms for
// x.Sum(1).Sum()). Such a reduction instead gets a nest of its own that
// runs first and folds the operand in blocks of reduceBlockElems
// elements, one partial result per block, into a scratch buffer
// (Module.Scratch); the runtime splits that nest over blocks like any
// other. The reduction's own group then folds the partials in block
// order. The blocks depend on the operand's shape alone, and each is
// folded by the same code whatever range it falls in, so the result is
// the same bits for any number of threads and any chunking.
//
// Sums of floats depart from the sequential order (as every float sum
// here does, internal/interp/doc.go); max and min (llvm.maximum and
// llvm.minimum, which propagate NaN and order -0 below +0) and integer
// sums and products are associative, so their results are exactly the
// interpreter's. Float products keep the sequential code.

// reduceBlockElems is the number of operand elements per block: 64 KiB
// of float32, so the partials of a 4096x4096 operand take 4 KiB and
// folding them costs a few hundred nanoseconds.
const reduceBlockElems = 16 << 10

// reduceBlocksMin is the least operand size reduced in blocks: below it
// the nest is too small for the runtime to split (runtime.ParallelWork).
const reduceBlocksMin = 4 * reduceBlockElems

// blockPlan describes a whole-array reduction computed in blocks.
type blockPlan struct {
	root   ir.Value
	blocks int // partial results, one per block
	scrIdx int // the partials' index in Module.Scratch
}

// blockedReduction returns the plan of nest's reduction when it is
// reduced in blocks: a nest of one group whose root reduces every axis of
// an operand of at least reduceBlocksMin elements, with a sum, max or min
// (or an integer product), of a dtype the result keeps, that fuses no
// gather (whose index checks need the error slot).
func blockedReduction(p *passes.Plan, nest []int, u *unit) *blockPlan {
	if len(nest) != 1 || p.MatMul[nest[0]] >= 0 || u.dyn != nil {
		return nil
	}
	g := p.Graph
	r := p.Roots[nest[0]]
	n := g.Node(r)
	if n.Op.Kind() != ir.KindReduce || n.Shape.Rank() != 0 {
		return nil
	}
	an := g.Node(n.Args[0])
	dt := an.DType
	if dt != n.DType || dt == ir.Bool || dt.IsHalf() || !(dt.IsFloat() || dt.IsInt()) {
		return nil
	}
	if n.Op == ir.OpReduceProd && dt.IsFloat() {
		return nil
	}
	size := an.Shape.Size()
	if an.Shape.Rank() == 0 || size < reduceBlocksMin {
		return nil
	}
	gr := &group{unit: u, p: p, g: g, root: r}
	if gr.gathers(r, map[ir.Value]bool{}) {
		return nil
	}
	_, _, blocks := blockShape(gr, n.Args[0])
	return &blockPlan{root: r, blocks: blocks}
}

// blockShape views the operand a as rows of cols elements and returns
// them with the number of blocks: a whole operand of elementwise ops is
// one row addressed by its linear offset alone; otherwise the rows are
// its last axis. A row longer than a block is cut into blocks; shorter
// rows are grouped, as many whole rows per block as fit.
func blockShape(gr *group, a ir.Value) (rows, cols, blocks int) {
	s := gr.g.Nodes[a].Shape
	n := s.Size()
	if gr.flat(a) {
		rows, cols = 1, n
	} else {
		cols = s[len(s)-1]
		rows = n / cols
	}
	if cols >= reduceBlockElems {
		return rows, cols, rows * ((cols + reduceBlockElems - 1) / reduceBlockElems)
	}
	per := reduceBlockElems / cols
	return rows, cols, (rows + per - 1) / per
}

// emitBlocks writes the body of the function that folds one block of
// bp's operand, columns [%lo, %hi) of row %row or whole rows [%lo, %hi)
// (blockShape), and returns its partial result. The nest's function
// (blocksLoop) computes each block's bounds and calls it. Kept apart
// (noinline), the block's loop, which the vectorizer turns into a main
// loop, an epilogue and a remainder, is neither nested in the loop over
// blocks nor bounded by a minimum of that loop's variable: loop strength
// reduction, which took 2.4-6.6 ms of the 20-30 a 300x300 sum's module
// cost to compile with the loops nested, takes about 1.1 (-time-passes),
// and the module compiles in 0.84x the time.
func (u *unit) emitBlocks(p *passes.Plan, bp *blockPlan) string {
	u.memo = map[string]string{}
	u.block("entry")
	g := p.Graph
	gr := &group{unit: u, p: p, g: g, root: bp.root}
	n := g.Node(bp.root)
	a := n.Args[0]
	shape := g.Nodes[a].Shape
	rank := shape.Rank()
	el := g.Nodes[a].DType
	t := regType(el)
	rows, cols, _ := blockShape(gr, a)
	flat := rows == 1 && gr.flat(a)
	acc := gr.alloca(t)
	gr.stmt("store %s %s, ptr %s", t, reduceInit(n.Op, el), acc)
	// at computes the operand at row r (an operand row: its last axis),
	// column c.
	at := func(r, c string) string {
		gr.tmp++
		ix := gr.indexOf("blk"+strconv.Itoa(gr.tmp), a)
		if flat {
			ix.lin = c
			return gr.value(a, ix)
		}
		if rank > 1 {
			lead := newIndex("lead"+strconv.Itoa(gr.tmp), shape[:rank-1])
			lead.lin = r
			for k := range rank - 1 {
				ix.dims[k] = gr.dim(lead, k)
			}
		}
		ix.dims[rank-1] = c
		return gr.value(a, ix)
	}
	fold := func(x string) {
		cur := gr.ins("load %s, ptr %s", t, acc)
		gr.stmt("store %s %s, ptr %s", t, gr.fold(n.Op, el, cur, x, true), acc)
	}
	if cols >= reduceBlockElems {
		// Columns [%lo, %hi) of row %row.
		l := gr.openLoop("%lo", "%hi")
		l.interleave = wholeInterleave
		fold(at("%row", l.iv))
		gr.closeLoop(l)
	} else {
		// Rows [%lo, %hi), whole.
		lr := gr.openLoop("%lo", "%hi")
		l := gr.openLoop("0", strconv.Itoa(cols))
		l.interleave = wholeInterleave
		fold(at(lr.iv, l.iv))
		gr.closeLoop(l)
		gr.closeLoop(lr)
	}
	u.stmt("ret %s %s", t, gr.ins("load %s, ptr %s", t, acc))
	body := u.b.String()
	if u.allocas.Len() > 0 {
		body = strings.Replace(body, "entry:\n", "entry:\n"+u.allocas.String(), 1)
	}
	return body
}

// blocksLoop returns the body of the nest's function: for each block of
// [%start, %end) it computes the block's bounds, calls fn (emitBlocks's
// function) with args (the operand's buffers, each followed by ", ") and
// them, and stores the partial, of type dt, into %part. rows and cols
// are the reduction's operand as blockShape sees it: rows of cols
// elements.
func blocksLoop(fn, args string, dt ir.DType, rows, cols int) string {
	var b strings.Builder
	b.WriteString("entry:\n  %more = icmp slt i64 %start, %end\n  br i1 %more, label %body, label %exit\n")
	b.WriteString("body:\n  %b = phi i64 [ %start, %entry ], [ %b.next, %body ]\n")
	// Block b is columns [lo, hi) of row b/per, or rows [lo, hi).
	n, per := cols, reduceBlockElems/max(cols, 1)
	if cols >= reduceBlockElems {
		per = (cols + reduceBlockElems - 1) / reduceBlockElems
		if rows > 1 {
			fmt.Fprintf(&b, "  %%row = udiv i64 %%b, %d\n  %%cb = urem i64 %%b, %d\n", per, per)
		} else {
			b.WriteString("  %row = add i64 0, 0\n  %cb = add i64 %b, 0\n")
		}
		fmt.Fprintf(&b, "  %%lo = mul nuw nsw i64 %%cb, %d\n  %%lo.n = add nuw nsw i64 %%lo, %d\n", reduceBlockElems, reduceBlockElems)
	} else {
		n = rows
		fmt.Fprintf(&b, "  %%row = add i64 0, 0\n  %%lo = mul nuw nsw i64 %%b, %d\n  %%lo.n = add nuw nsw i64 %%lo, %d\n", per, per)
	}
	fmt.Fprintf(&b, "  %%over = icmp sgt i64 %%lo.n, %d\n  %%hi = select i1 %%over, i64 %d, i64 %%lo.n\n", n, n)
	t := regType(dt)
	fmt.Fprintf(&b, "  %%v = call %s @%s(%si64 %%row, i64 %%lo, i64 %%hi)\n", t, fn, args)
	fmt.Fprintf(&b, "  %%p = getelementptr inbounds %s, ptr %%part, i64 %%b\n", t)
	fmt.Fprintf(&b, "  store %s %%v, ptr %%p\n", t)
	b.WriteString("  %b.next = add nuw nsw i64 %b, 1\n  %again = icmp slt i64 %b.next, %end\n  br i1 %again, label %body, label %exit\n")
	b.WriteString("exit:\n  ret void\n")
	return b.String()
}

// emitCombine folds the partials of a reduction computed in blocks
// (%partials) in block order into the root's one element.
func (gr *group) emitCombine(n *ir.Node, bp *blockPlan) int {
	dt := n.DType
	t := regType(dt)
	acc := gr.alloca(t)
	gr.stmt("store %s %s, ptr %s", t, reduceInit(n.Op, dt), acc)
	l := gr.openLoop("0", strconv.Itoa(bp.blocks))
	x := gr.loadAt(dt, "%partials", l.iv)
	cur := gr.ins("load %s, ptr %s", t, acc)
	gr.stmt("store %s %s, ptr %s", t, gr.fold(n.Op, dt, cur, x, false), acc)
	gr.closeLoop(l)
	gr.storeRoot(dt, "0", gr.ins("load %s, ptr %s", t, acc))
	return 1
}

// fold combines an accumulator with one more value for reduction op. A
// float sum may be reassociated (several vector partial sums) when
// reassoc is set.
func (gr *group) fold(op ir.Op, dt ir.DType, cur, x string, reassoc bool) string {
	switch op {
	case ir.OpReduceSum:
		if dt.IsFloat() && reassoc {
			return gr.ins("fadd reassoc %s %s, %s", regType(dt), cur, x)
		}
		return gr.binary(ir.OpAdd, dt, cur, x)
	case ir.OpReduceProd:
		return gr.binary(ir.OpMul, dt, cur, x)
	case ir.OpReduceMax:
		return gr.binary(ir.OpMax, dt, cur, x)
	}
	return gr.binary(ir.OpMin, dt, cur, x)
}
