package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Indexing ops: gathers and dynamic slices are computed where they are
// used, like layout ops, except that the position they read comes from
// data; scatter_add is a group root of its own.
//
// Bounds checks and the error slot. An index i along an axis of size d is
// wrapped (i+d when negative) and compared unsigned with d, which catches
// both ends in one compare. A bad index never reaches an address: it is
// replaced by 0 (a select), and the slow path records it by calling
//
//	void @gojit.index_error(ptr %err, i64 node, i64 pos, i64 value)
//
// with the node's value number, the index's row-major position in the
// index tensor and its value. %err points to the module's error slot
// (Module.ErrorSlot), four i64 words the runtime zeroes before each call:
// a spin lock, then node+1, position and value of the first offending
// index in (node, position) order. Kernels do not stop at a bad index:
// they finish the call with the clamped reads, every chunk on every
// thread records what it meets, and the lock keeps the smallest (node,
// position). That is exactly the error the interpreter reports, which
// evaluates nodes in order and checks each node's indices in row-major
// order, however many threads ran the kernel and however they split it.
// The runtime turns the slot into an *ir.IndexError (internal/runtime).
//
// The check costs a compare and a select per read index; the call sits in
// a cold block off the loop's path. In a group whose root is computed
// element by element (emitMap) the call is deferred instead: the loops
// only or the compares into a flag, which keeps them vectorizable, and a
// bad index makes the group run its range again with the calls
// (gather.go). A gather of whole rows (take along
// axis 0 of a table) reads each index once per row, and LLVM hoists the
// load, the check and the call out of the loop over the row, which becomes
// a plain copy (a 256-byte memcpy for rows of 64 float32).

// checkIndices is false only in BenchmarkTakeCheck, which measures what
// the bounds check costs by generating the same kernel without it (such
// a kernel reads out of bounds on a bad index: nothing else may clear it).
var checkIndices = true

// indexErrorFn is the slow path's name.
const indexErrorFn = "gojit.index_error"

// indexErrorDef is the slow path: take the slot's lock, keep the smaller
// of the recorded and the new (node, pos), release.
const indexErrorDef = `define private void @gojit.index_error(ptr %err, i64 %node, i64 %pos, i64 %val) cold noinline nounwind {
entry:
  %key = add i64 %node, 1
  %pn = getelementptr inbounds i64, ptr %err, i64 1
  %pp = getelementptr inbounds i64, ptr %err, i64 2
  %pv = getelementptr inbounds i64, ptr %err, i64 3
  br label %lock
lock:
  %x = cmpxchg ptr %err, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %x, 1
  br i1 %got, label %locked, label %lock
locked:
  %n = load i64, ptr %pn
  %p = load i64, ptr %pp
  %none = icmp eq i64 %n, 0
  %before = icmp ult i64 %key, %n
  %same = icmp eq i64 %key, %n
  %earlier = icmp ult i64 %pos, %p
  %tie = and i1 %same, %earlier
  %b1 = or i1 %none, %before
  %better = or i1 %b1, %tie
  br i1 %better, label %write, label %unlock
write:
  store i64 %key, ptr %pn
  store i64 %pos, ptr %pp
  store i64 %val, ptr %pv
  br label %unlock
unlock:
  store atomic i64 0, ptr %err release, align 8
  ret void
}`

// checkIndex returns index value iv (i64) of node v, read at row-major
// position pos of its index tensor, wrapped into [0, d) and replaced by 0
// when out of range, in which case the error is recorded.
func (gr *group) checkIndex(v ir.Value, iv, pos, d string) string {
	if !checkIndices {
		neg := gr.ins("icmp slt i64 %s, 0", iv)
		return gr.ins("select i1 %s, i64 %s, i64 %s", neg, gr.ins("add i64 %s, %s", iv, d), iv)
	}
	gr.errs = true
	gr.declare(indexErrorFn, indexErrorDef)
	neg := gr.ins("icmp slt i64 %s, 0", iv)
	wrapped := gr.ins("add i64 %s, %s", iv, d)
	w := gr.ins("select i1 %s, i64 %s, i64 %s", neg, wrapped, iv)
	bad := gr.ins("icmp uge i64 %s, %s", w, d)
	if gr.anyBad != "" { // deferred (gather.go): no branch in the loop
		seen := gr.ins("load i8, ptr %s", gr.anyBad)
		gr.stmt("store i8 %s, ptr %s", gr.ins("or i8 %s, %s", seen, gr.ins("zext i1 %s to i8", bad)), gr.anyBad)
		return gr.ins("select i1 %s, i64 0, i64 %s", bad, w)
	}
	slow, ok := gr.newLabel("oob"), gr.newLabel("inb")
	gr.stmt("br i1 %s, label %%%s, label %%%s%s", bad, slow, ok, gr.coldWeights())
	gr.block(slow)
	gr.stmt("call void @%s(ptr %%err, i64 %d, i64 %s, i64 %s)", indexErrorFn, v, pos, iv)
	gr.stmt("br label %%%s", ok)
	gr.block(ok)
	return gr.ins("select i1 %s, i64 0, i64 %s", bad, w)
}

// coldWeights returns the metadata node marking a branch as almost never
// taken.
func (gr *group) coldWeights() string {
	if gr.loopIDs == nil {
		return ""
	}
	return ", !prof !" + gr.loopIDs.cold()
}

// cold returns the module's branch-weights node for unlikely branches.
func (m *metadata) cold() string {
	for i, n := range m.nodes {
		if n == coldNode(i+1) {
			return strconv.Itoa(i + 1)
		}
	}
	id := len(m.nodes) + 1
	m.nodes = append(m.nodes, coldNode(id))
	return strconv.Itoa(id)
}

func coldNode(id int) string {
	return fmt.Sprintf("!%d = !{!\"branch_weights\", i32 1, i32 1048575}", id)
}

// indexValue loads index tensor a at ix as an i64.
func (gr *group) indexValue(a ir.Value, ix *index) string {
	dt := gr.g.Nodes[a].DType
	return gr.cast(dt, ir.Int64, gr.value(a, ix))
}

// computeIndexing emits a gather, dynamic slice or random op at ix.
func (gr *group) computeIndexing(v ir.Value, n *ir.Node, ix *index) string {
	switch n.Op {
	case ir.OpTake:
		x, idx := n.Args[0], n.Args[1]
		ax := n.Axes[0]
		xs, is := gr.g.Nodes[x].Shape, gr.g.Nodes[idx].Shape
		ii := gr.indexOf(fmt.Sprintf("tk%d(%s)", v, ix.key), idx)
		for k := range is {
			ii.dims[k] = gr.dim(ix, ax+k)
		}
		if len(is) == 0 {
			ii.lin = "0"
		}
		xi := gr.indexOf(fmt.Sprintf("tx%d(%s)", v, ix.key), x)
		for k := range xs {
			switch {
			case k < ax:
				xi.dims[k] = gr.dim(ix, k)
			case k > ax:
				xi.dims[k] = gr.dim(ix, k-1+len(is))
			}
		}
		d := gr.extent(xi, ax)
		xi.dims[ax] = gr.checkedIndex(v, idx, ii, func() string { return gr.linear(ii) }, d)
		return gr.gathered(x, xi, d)

	case ir.OpTakeAlongAxis:
		x, idx := n.Args[0], n.Args[1]
		ax := n.Axes[0]
		xs := gr.g.Nodes[x].Shape
		ii := gr.indexOf(fmt.Sprintf("ta%d(%s)", v, ix.key), idx)
		for k := range ii.dims {
			ii.dims[k] = gr.dim(ix, k)
		}
		ii.lin = gr.linear(ix)
		xi := gr.indexOf(fmt.Sprintf("tx%d(%s)", v, ix.key), x)
		for k := range xs {
			if k != ax {
				xi.dims[k] = gr.dim(ix, k)
			}
		}
		d := gr.extent(xi, ax)
		xi.dims[ax] = gr.checkedIndex(v, idx, ii, func() string { return ii.lin }, d)
		return gr.gathered(x, xi, d)

	case ir.OpDynamicSlice:
		x := n.Args[0]
		xs := gr.g.Nodes[x].Shape
		xi := gr.indexOf(fmt.Sprintf("ds%d(%s)", v, ix.key), x)
		for k := range xs {
			si := gr.indexOf("scalar", n.Args[k+1])
			si.lin = "0"
			s := gr.indexValue(n.Args[k+1], si)
			hi := gr.ins("sub i64 %s, %d", gr.extent(xi, k), n.Shape[k])
			s = gr.ins("select i1 %s, i64 %s, i64 %s", gr.ins("icmp sgt i64 %s, %s", s, hi), hi, s)
			s = gr.ins("select i1 %s, i64 0, i64 %s", gr.ins("icmp slt i64 %s, 0", s), s)
			xi.dims[k] = gr.ins("add i64 %s, %s", gr.dim(ix, k), s)
		}
		return gr.value(x, xi)

	case ir.OpRandomUniform, ir.OpRandomNormal, ir.OpSplitKey:
		return gr.random(n, ix)
	}
	panic(fmt.Sprintf("%s cannot be computed inside a fused loop", ir.FormatNode(gr.g, v)))
}

// gathered reads table x at xi, whose coordinate along the gathered axis
// of size d was checked. An axis of size 0 has no element to read: every
// index is out of range (and recorded), and the value is 0 without a load.
func (gr *group) gathered(x ir.Value, xi *index, d string) string {
	if d == "0" {
		return zeroLit(gr.g.Nodes[x].DType)
	}
	if b, ok := gr.gatherByte(x, xi); ok { // gather.go
		return b
	}
	return gr.partValue(x, xi, d) // guarded when d follows %size
}

// emitScatter writes scatter_add's loops: the root's buffer gets a copy of
// the operand, then every update is added in row-major order of the
// updates, the interpreter's order. In a dynamic module the group's outer
// loop has one iteration, so the runtime never splits it across threads:
// duplicate indices cannot race, and float sums are those of the
// interpreter. Static modules split it over the columns instead
// (emitScatterColumns).
func (gr *group) emitScatter(n *ir.Node) int {
	if gr.dyn == nil {
		return gr.emitScatterColumns(n)
	}
	x, idx, upd := n.Args[0], n.Args[1], n.Args[2]
	ax := n.Axes[0]
	us, is := gr.g.Nodes[upd].Shape, gr.g.Nodes[idx].Shape
	once := gr.openLoop("%start", "%end")
	if n.Shape.Size() > 0 {
		ix := gr.indexOf("sx", gr.root)
		var ls []*loop
		for k := range n.Shape {
			l := gr.openLoop("0", gr.extent(ix, k))
			ls = append(ls, l)
			ix.dims[k] = l.iv
		}
		if len(n.Shape) == 0 {
			ix.lin = "0"
		}
		gr.storeRoot(n.DType, gr.linear(ix), gr.value(x, ix))
		gr.closeLoops(ls)
	}
	if us.Size() > 0 && n.Shape.Size() > 0 {
		var ls []*loop
		ui := gr.indexOf("su", upd)
		for k := range us {
			l := gr.openLoop("0", gr.extent(ui, k))
			ls = append(ls, l)
			ui.dims[k] = l.iv
		}
		if len(us) == 0 {
			ui.lin = "0"
		}
		ii := gr.indexOf("si", idx)
		for k := range is {
			ii.dims[k] = ui.dims[ax+k]
		}
		if len(is) == 0 {
			ii.lin = "0"
		}
		oi := gr.indexOf("so", gr.root)
		for k := range n.Shape {
			switch {
			case k < ax:
				oi.dims[k] = ui.dims[k]
			case k > ax:
				oi.dims[k] = ui.dims[k-1+len(is)]
			}
		}
		d := gr.extent(oi, ax)
		oi.dims[ax] = gr.checkIndex(gr.root, gr.indexValue(idx, ii), gr.linear(ii), d)
		u := gr.value(upd, ui)
		if d != "0" { // an axis of size 0 has nowhere to add: every index is recorded as bad
			join := ""
			if !isConst(d) { // it follows %size: add only when it is not 0
				yes := gr.newLabel("add")
				join = gr.newLabel("added")
				gr.stmt("br i1 %s, label %%%s, label %%%s", gr.ins("icmp sgt i64 %s, 0", d), yes, join)
				gr.block(yes)
			}
			off := gr.linear(oi)
			gr.storeRoot(n.DType, off, gr.binary(ir.OpAdd, n.DType, gr.loadRoot(n.DType, off), u))
			if join != "" {
				gr.stmt("br label %%%s", join)
				gr.block(join)
			}
		}
		gr.closeLoops(ls)
	}
	gr.closeLoop(once)
	return 1
}

// loadErrSlot loads the error slot's pointer, %serr, in an entry point.
func loadErrSlot(out *strings.Builder, errSlot int) {
	if errSlot >= 0 {
		fmt.Fprintf(out, "  %%perr = getelementptr inbounds ptr, ptr %%args, i64 %d\n", errSlot)
		fmt.Fprintf(out, "  %%serr = load ptr, ptr %%perr, align 8\n")
	}
}

// scatterGrain is the fewest columns a range of scatter_add's column loop
// covers. Every range walks all the indices and reads the rows they
// address, so narrow ranges only multiply that walk: BenchmarkScatterAdd
// (rows of 64 float32) ran 1.65x slower split in two ranges of 32 columns
// than on one thread. From 256 columns (1 KiB of float32 per row and range)
// the adds dominate.
const scatterGrain = 256

// emitScatterColumns is emitScatter for a static module, viewing the
// operand as [outer, d, inner] (the axes before the indexed one, the
// indexed one, the axes after it): the outer loop runs over a range of the
// inner columns, [%start, %end), so the runtime may split it across
// threads. Each range copies its columns of the operand, then for every
// outer block and every index j in order adds update [b, j, c] to
// [b, idx[j], c] for its columns c. Threads own disjoint columns, so
// duplicate indices never race, and each element still receives its
// updates in increasing j: the interpreter's sums, bit for bit. The index
// is loaded and checked once per (b, j), outside the loop over columns,
// which is a contiguous add that vectorizes.
func (gr *group) emitScatterColumns(n *ir.Node) int {
	x, idx, upd := n.Args[0], n.Args[1], n.Args[2]
	ax := n.Axes[0]
	outer, d, inner := 1, n.Shape[ax], 1
	for _, e := range n.Shape[:ax] {
		outer *= e
	}
	for _, e := range n.Shape[ax+1:] {
		inner *= e
	}
	nIdx := gr.g.Nodes[idx].Shape.Size()
	gr.grain = scatterGrain
	if n.Shape.Size() == 0 {
		return inner
	}
	column := func(row string) (*loop, string) { // opens the loop over this range's columns
		base := gr.ins("mul nuw nsw i64 %s, %d", row, inner)
		l := gr.openLoop("%start", "%end")
		return l, gr.ins("add nuw nsw i64 %s, %s", base, l.iv)
	}
	// Copy the operand's columns.
	lb := gr.openLoop("0", strconv.Itoa(outer))
	lr := gr.openLoop("0", strconv.Itoa(d))
	lc, off := column(gr.ins("add nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %d", lb.iv, d), lr.iv))
	xi := gr.indexOf("sx", x)
	xi.lin = off
	gr.storeRoot(n.DType, off, gr.value(x, xi))
	gr.closeLoops([]*loop{lb, lr, lc})
	if nIdx == 0 {
		return inner
	}
	// Add the updates in order.
	lb = gr.openLoop("0", strconv.Itoa(outer))
	lj := gr.openLoop("0", strconv.Itoa(nIdx))
	ii := gr.indexOf("si", idx)
	ii.lin = lj.iv
	w := gr.checkIndex(gr.root, gr.indexValue(idx, ii), lj.iv, strconv.Itoa(d))
	if d == 0 {
		gr.closeLoops([]*loop{lb, lj}) // nowhere to add: every index was recorded as bad
		return inner
	}
	lc, uoff := column(gr.ins("add nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %d", lb.iv, nIdx), lj.iv))
	ui := gr.indexOf("su", upd)
	ui.lin = uoff
	u := gr.value(upd, ui)
	ooff := gr.ins("add nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %d",
		gr.ins("add nuw nsw i64 %s, %s", gr.ins("mul nuw nsw i64 %s, %d", lb.iv, d), w), inner), lc.iv)
	gr.storeRoot(n.DType, ooff, gr.binary(ir.OpAdd, n.DType, gr.loadRoot(n.DType, ooff), u))
	gr.closeLoops([]*loop{lb, lj, lc})
	return inner
}
