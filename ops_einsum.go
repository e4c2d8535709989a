package gojit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gojit/gojit/internal/ir"
)

// Einsum evaluates an Einstein summation (numpy.einsum, jnp.einsum) such as
// "bij,bjk->bik" (batched matrix product), "ij->ji" (transpose), "ij->"
// (sum of all) or "i,j->ij" (outer product). Labels are single letters;
// without "->" the output holds, in alphabetical order, the labels that
// appear exactly once (NumPy's implicit mode). A label summed away is
// summed; a label of both operands that the output keeps is a batch
// dimension; a label repeated within one operand takes the diagonal
// ("ii->i"; "ii->" is the trace). Dimensions with one label must have one
// size. "..."
// stands for the dimensions an operand's letters do not name; they are
// aligned on the right and broadcast across operands (a size 1 stretches),
// and lead the output in implicit mode, as in NumPy (an explicit output
// without "..." sums them).
//
// Einsum is lowered to the matrix-product kernel plus layout ops, never a
// loop of its own: each pair of operands is transposed and reshaped to
// [batch, M, K] x [batch, K, N], multiplied with MatMul's kernel and
// reshaped and transposed to the output (labels summed in only one operand
// are summed first). More than two operands are contracted left to right.
// Operands are promoted to one dtype, as for MatMul; Bool is refused.
func Einsum(spec string, operands ...*Tensor) *Tensor {
	pcs := callers()
	if len(operands) == 0 {
		return poisonNil("Einsum")
	}
	tr, ts, ok := unify("Einsum", pcs, operands...)
	if !ok {
		return failed(tr, "Einsum")
	}
	// Promote to one dtype, sizes checked per label.
	dt := ir.InvalidDType
	ranks := make([]int, len(ts))
	for i, t := range ts {
		if t.weak {
			return tr.fail("Einsum", pcs, "operand %d is a scalar; Einsum needs tensors", i)
		}
		dt = promoteDTypes(dt, tr.node(t.v).DType)
		ranks[i] = tr.node(t.v).Shape.Rank()
	}
	ins, out, err := parseEinsum(spec, ranks)
	if err != nil {
		return tr.fail("Einsum", pcs, "%v", err)
	}
	for i, t := range ts {
		var msg string
		ts[i], ins[i], msg = diagonals(tr, t, ins[i], pcs)
		if msg != "" {
			return tr.fail("Einsum", pcs, "operand %d: %s", i, msg)
		}
		if ts[i].v == poison {
			return ts[i]
		}
	}
	size := map[byte]int{}
	for i, t := range ts {
		shape := tr.node(t.v).Shape
		if len(shape) != len(ins[i]) {
			return tr.fail("Einsum", pcs, "operand %d has rank %d but %q names %d axes", i, len(shape), ins[i], len(ins[i]))
		}
		for k, d := range shape {
			l := ins[i][k]
			s, seen := size[l]
			switch {
			case l >= ellipsisLabel && seen && (s == 1 || d == 1):
				size[l] = max(s, d) // "..." dimensions broadcast
			case seen && s != d:
				name := fmt.Sprintf("label %c", l)
				if l >= ellipsisLabel {
					name = "a ... dimension"
				}
				return tr.fail("Einsum", pcs, "%s is %d in one operand and %d in operand %d", name, s, d, i)
			default:
				size[l] = d
			}
		}
	}
	for i, t := range ts {
		// Stretch the "..." dimensions of size 1 to their broadcast size.
		shape := tr.node(t.v).Shape
		want := shape.Clone()
		for k := range shape {
			want[k] = size[ins[i][k]]
		}
		if !want.Equal(shape) {
			t = tr.broadcast(t, want, pcs)
		}
		ts[i] = tr.cast(t, dt, pcs)
		if ts[i].v == poison {
			return ts[i]
		}
	}
	for _, l := range []byte(out) {
		if _, seen := size[l]; !seen {
			return tr.fail("Einsum", pcs, "output label %c is in no operand", l)
		}
	}
	e := einsum{tr: tr, pcs: pcs, size: size}
	acc, accL := ts[0], ins[0]
	for i := 1; i < len(ts); i++ {
		// Keep the labels the output or a later operand needs.
		later := out + strings.Join(ins[i+1:], "")
		var keep []byte
		for _, l := range []byte(accL + ins[i]) {
			if strings.IndexByte(later, l) >= 0 && !slices.Contains(keep, l) {
				keep = append(keep, l)
			}
		}
		acc, accL = e.pair(acc, accL, ts[i], ins[i], string(keep))
		if acc.v == poison {
			return acc
		}
	}
	return e.finish(acc, accL, out)
}

// ellipsisLabel is the first of the internal labels "..." expands to
// (bytes no user label can be).
const ellipsisLabel = 0x80

// diagonals replaces each label repeated in one operand (t labelled l) by
// the diagonal it names, as numpy.einsum("ii->i"): the two axes are moved
// last, merged, and sliced with step n+1. It returns a message for axes of
// different sizes.
func diagonals(tr *tracer, t *Tensor, l string, pcs callStack) (*Tensor, string, string) {
	for {
		shape := tr.node(t.v).Shape
		if len(shape) != len(l) {
			return t, l, "" // reported by the caller
		}
		p, q := -1, -1
		for k := range len(l) {
			if j := strings.IndexByte(l[:k], l[k]); j >= 0 {
				p, q = j, k
				break
			}
		}
		if p < 0 {
			return t, l, ""
		}
		n := shape[p]
		if shape[q] != n {
			return t, l, fmt.Sprintf("repeated label %c names axes of sizes %d and %d", l[p], n, shape[q])
		}
		var perm []int
		var rest []byte
		flat := ir.Shape{}
		for k := range len(l) {
			if k != p && k != q {
				perm = append(perm, k)
				rest = append(rest, l[k])
				flat = append(flat, shape[k])
			}
		}
		perm = append(perm, p, q)
		flat = append(flat, n*n)
		t = tr.add(ir.Node{Op: ir.OpTranspose, Args: []ir.Value{t.v}, Axes: perm}, pcs)
		if t.v != poison {
			t = tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{t.v}, Shape: flat}, pcs)
		}
		if t.v != poison {
			t = t.axisSlice(len(flat)-1, 0, n+1, n, pcs)
		}
		if t.v == poison {
			return t, l, ""
		}
		l = string(rest) + string(l[p])
	}
}

// parseEinsum splits a spec into the operands' labels and the output's,
// given the operands' ranks: "..." becomes internal labels for the
// dimensions the letters do not name, aligned on the right across operands
// as NumPy broadcasts them.
func parseEinsum(spec string, ranks []int) ([]string, string, error) {
	s := strings.ReplaceAll(spec, " ", "")
	lhs, out, explicit := strings.Cut(s, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(ranks) {
		return nil, "", fmt.Errorf("spec %q names %d operands, got %d", spec, len(ins), len(ranks))
	}
	isLetter := func(l byte) bool { return l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' }
	// The most dimensions any "..." stands for.
	ell := make([]int, len(ins))
	most := 0
	for i, in := range ins {
		ell[i] = -1
		if before, after, ok := strings.Cut(in, "..."); ok {
			if strings.Contains(after, "...") {
				return nil, "", fmt.Errorf("spec %q: more than one ... in operand %d", spec, i)
			}
			ell[i] = ranks[i] - len(before) - len(after)
			if ell[i] < 0 {
				return nil, "", fmt.Errorf("spec %q: operand %d has rank %d, fewer than the %d labels it names", spec, i, ranks[i], len(before)+len(after))
			}
			most = max(most, ell[i])
		}
	}
	labels := make([]byte, most)
	for k := range labels {
		labels[k] = byte(ellipsisLabel + k)
	}
	count := map[byte]int{}
	for i, in := range ins {
		if ell[i] >= 0 {
			before, after, _ := strings.Cut(in, "...")
			in = before + string(labels[most-ell[i]:]) + after
			ins[i] = in
		}
		for k := range len(in) {
			l := in[k]
			if l >= ellipsisLabel {
				count[l]++
				continue
			}
			if !isLetter(l) {
				return nil, "", fmt.Errorf("spec %q: %q is not a label (letters only)", spec, l)
			}
			count[l]++ // a repeat within one operand takes a diagonal
		}
	}
	if !explicit {
		var once []byte
		for l, c := range count {
			if c == 1 && l < ellipsisLabel {
				once = append(once, l)
			}
		}
		slices.Sort(once)
		return ins, string(labels) + string(once), nil
	}
	if before, after, ok := strings.Cut(out, "..."); ok {
		out = before + string(labels) + after
	}
	for i := range len(out) {
		l := out[i]
		if l >= ellipsisLabel {
			continue
		}
		if !isLetter(l) {
			return nil, "", fmt.Errorf("spec %q: %q is not a label (letters only)", spec, l)
		}
		if strings.IndexByte(out[:i], l) >= 0 {
			return nil, "", fmt.Errorf("spec %q: output label %c repeats", spec, l)
		}
	}
	return ins, out, nil
}

type einsum struct {
	tr   *tracer
	pcs  callStack
	size map[byte]int
}

func (e *einsum) shapeOf(labels []byte) ir.Shape {
	s := make(ir.Shape, len(labels))
	for i, l := range labels {
		s[i] = e.size[l]
	}
	return s
}

// sumOut sums t (labelled l) over the labels not in keep, keeping t's dtype.
func (e *einsum) sumOut(t *Tensor, l, keep string) (*Tensor, string) {
	var axes []int
	var rest []byte
	for i := range len(l) {
		if strings.IndexByte(keep, l[i]) < 0 {
			axes = append(axes, i)
		} else {
			rest = append(rest, l[i])
		}
	}
	if len(axes) == 0 {
		return t, l
	}
	return e.tr.add(ir.Node{Op: ir.OpReduceSum, Args: []ir.Value{t.v}, Axes: axes}, e.pcs), string(rest)
}

// arrange transposes t (labelled l) to the order of want (a permutation
// of l) and reshapes it to shape.
func (e *einsum) arrange(t *Tensor, l string, want []byte, shape ir.Shape) *Tensor {
	perm := make([]int, len(want))
	identity := true
	for i, w := range want {
		perm[i] = strings.IndexByte(l, w)
		identity = identity && perm[i] == i
	}
	if !identity && t.v != poison {
		t = e.tr.add(ir.Node{Op: ir.OpTranspose, Args: []ir.Value{t.v}, Axes: perm}, e.pcs)
	}
	if t.v != poison && !e.tr.node(t.v).Shape.Equal(shape) {
		t = e.tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{t.v}, Shape: shape}, e.pcs)
	}
	return t
}

// pair contracts a (labels la) with b (lb) into a tensor whose labels are
// keep's, in an order of its choosing, which it returns.
func (e *einsum) pair(a *Tensor, la string, b *Tensor, lb, keep string) (*Tensor, string) {
	// Labels of one operand only that nothing keeps are summed first.
	a, la = e.sumOut(a, la, keep+lb)
	b, lb = e.sumOut(b, lb, keep+la)
	if a.v == poison || b.v == poison {
		return poisoned(e.tr), ""
	}
	var batch, free1, free2, contr []byte
	for _, l := range []byte(la) {
		switch inB, kept := strings.IndexByte(lb, l) >= 0, strings.IndexByte(keep, l) >= 0; {
		case inB && kept:
			batch = append(batch, l)
		case inB:
			contr = append(contr, l)
		default:
			free1 = append(free1, l)
		}
	}
	for _, l := range []byte(lb) {
		if strings.IndexByte(la, l) < 0 {
			free2 = append(free2, l)
		}
	}
	bs, m, k, n := e.shapeOf(batch).Size(), e.shapeOf(free1).Size(), e.shapeOf(contr).Size(), e.shapeOf(free2).Size()
	lead := ir.Shape{}
	if len(batch) > 0 {
		lead = ir.Shape{bs}
	}
	av := e.arrange(a, la, slices.Concat(batch, free1, contr), append(lead.Clone(), m, k))
	bv := e.arrange(b, lb, slices.Concat(batch, contr, free2), append(lead.Clone(), k, n))
	if av.v == poison || bv.v == poison {
		return poisoned(e.tr), ""
	}
	p := e.tr.add(ir.Node{Op: ir.OpMatMul, Args: []ir.Value{av.v, bv.v}}, e.pcs)
	labels := slices.Concat(batch, free1, free2)
	if p.v != poison && len(labels) != len(e.tr.node(p.v).Shape) || p.v != poison && !e.tr.node(p.v).Shape.Equal(e.shapeOf(labels)) {
		p = e.tr.add(ir.Node{Op: ir.OpReshape, Args: []ir.Value{p.v}, Shape: e.shapeOf(labels)}, e.pcs)
	}
	return p, string(labels)
}

// finish sums t (labelled l) over the labels out lacks and orders its axes
// as out.
func (e *einsum) finish(t *Tensor, l, out string) *Tensor {
	t, l = e.sumOut(t, l, out)
	if t.v == poison {
		return t
	}
	return e.arrange(t, l, []byte(out), e.shapeOf([]byte(out)))
}
