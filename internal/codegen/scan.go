package codegen

import (
	"github.com/gojit/gojit/internal/ir"
)

// emitScan computes a cumsum or cumprod root: a loop nest over the output
// in row-major order, where element i along the axis is element i-1 (read
// back from the output, written one step of the axis earlier) combined with
// the operand's element, computed here from its fused producers. The fold
// is sequential in index order, as the interpreter's (no reassociation, so
// float results are bit-exact); when the axis is not the last one the
// innermost loop runs across independent columns and vectorizes. A scan
// along axis 0 cannot split its rows across threads: it runs as one
// iteration (extent 1) doing the whole tensor.
func (gr *group) emitScan(n *ir.Node) int {
	ax := n.Axes[0]
	ix := gr.indexOf("r", gr.root)
	extent := extentOf(n.Shape)
	var ls []*loop
	if ax == 0 {
		ls = append(ls, gr.openLoop("%start", "%end"))
		extent = 1
	}
	for k := range n.Shape {
		start, end := "0", gr.extent(ix, k)
		if k == 0 && ax != 0 {
			start, end = "%start", "%end"
		}
		l := gr.openLoop(start, end)
		ls = append(ls, l)
		ix.dims[k] = l.iv
	}
	x := gr.value(n.Args[0], ix)
	off := gr.linear(ix)
	t := regType(n.DType)
	first := gr.ins("icmp eq i64 %s, 0", ix.dims[ax])
	back := gr.ins("sub i64 %s, %s", off, gr.stride(ix, ax))
	// At the first element the load reads the element itself (not yet
	// written, and not used): always in bounds.
	prevOff := gr.ins("select i1 %s, i64 %s, i64 %s", first, off, back)
	prev := gr.loadRoot(n.DType, prevOff)
	op := ir.OpAdd
	if n.Op == ir.OpCumProd {
		op = ir.OpMul
	}
	comb := gr.binary(op, n.DType, prev, x)
	v := gr.ins("select i1 %s, %s %s, %s %s", first, t, x, t, comb)
	gr.storeRoot(n.DType, off, v)
	gr.closeLoops(ls)
	return extent
}
