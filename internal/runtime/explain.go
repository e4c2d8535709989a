package runtime

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"
)

// Why a function cannot have a dynamic dimension.
//
// BuildDynamic finds that the two traces' code differs, or that some size
// is not proportional to the dynamic size B. explain then looks for the
// cause in the two traces' graphs, whose nodes correspond one to one when
// the function traced the same operations at both sizes, and says it in
// the user's terms: the file:line and public call that made the node
// (ir.Node.Pos and Call), what about it depends on B, and what to do. The
// message shows no IR value names or op names, and no trace size: a
// shape is written with B for the dynamic size ([B,4], [4,2B], [B-1]).

// dynamicAxes returns, for every value of g1 and g2 (the same graph traced
// at sizes b1 and b2), which of its axes differ between the two, and for
// every constant whose value is a times the size (as a mean's divisor),
// a. It returns nils when the graphs do not correspond node for node.
func dynamicAxes(g1, g2 *ir.Graph, b1, b2 int) ([][]bool, []int) {
	if firstMismatch(g1, g2) >= 0 {
		return nil, nil
	}
	axes := make([][]bool, len(g1.Nodes))
	scale := make([]int, len(g1.Nodes))
	for v := range g1.Nodes {
		n1, n2 := &g1.Nodes[v], &g2.Nodes[v]
		for k := range n1.Shape {
			if n1.Shape[k] != n2.Shape[k] {
				if axes[v] == nil {
					axes[v] = make([]bool, len(n1.Shape))
				}
				axes[v][k] = true
			}
		}
		if n1.Op == ir.OpConst && n1.Const != n2.Const {
			scale[v] = sizeMultiple(n1.DType, n1.Const, n2.Const, b1, b2)
		}
	}
	return axes, scale
}

// sizeMultiple returns a when c1 and c2, constants of dtype dt, are a
// times b1 and b2, else 0.
func sizeMultiple(dt ir.DType, c1, c2 ir.Const, b1, b2 int) int {
	switch {
	case dt.IsFloat():
		a := c1.F / float64(b1)
		if a >= 1 && a == math.Trunc(a) && a < 1<<31 && c2.F == a*float64(b2) {
			return int(a)
		}
	case dt.IsInt():
		if c1.I >= int64(b1) && c1.I%int64(b1) == 0 && c1.I/int64(b1)*int64(b2) == c2.I {
			return int(c1.I / int64(b1))
		}
	}
	return 0
}

// sizeDependentCalls finds, in the traces g1 and g2 before optimization,
// calls that one kernel cannot serve although both traces compile to the
// same code:
//   - a slice of the dynamic axis to a fixed size: its bounds are clamped
//     when traced, so x.Slice([]int{0}, []int{16}) has the shape [16,4] at
//     both trace sizes, while at a batch of 3 it would read past x;
//   - Squeeze() without axes of a tensor with the dynamic axis: at a batch
//     of 1 it would drop that axis too.
func sizeDependentCalls(g1, g2 *ir.Graph, b1, b2 int) error {
	if firstMismatch(g1, g2) >= 0 {
		return nil // explain reports it
	}
	w := &why{g1: g1, g2: g2, b1: b1, b2: b2}
	for v := range g1.Nodes {
		n1, n2 := &g1.Nodes[v], &g2.Nodes[v]
		if len(n1.Args) == 0 {
			continue
		}
		a1, a2 := g1.Node(n1.Args[0]).Shape, g2.Node(n2.Args[0]).Shape
		switch {
		case n1.Op == ir.OpSlice && len(a1) == len(a2):
			// A result that follows B in some other way is explained
			// later, from the code's difference.
			for k := range a1 {
				if a1[k] != a2[k] && n1.Shape[k] == n2.Shape[k] {
					return w.fail(n1, fmt.Sprintf("slices the dynamic axis (axis %d of its operand %s) to a fixed size, %d", k, w.shape(n1.Args[0]), n1.Shape[k]),
						"slice the other axes")
				}
			}
		case n1.Call == "Squeeze()" && !a1.Equal(a2):
			return w.fail(n1, fmt.Sprintf("squeezes every axis of size 1 of %s, and at a batch size of 1 that would include the dynamic axis", w.shape(n1.Args[0])),
				"name the axes to squeeze")
		}
	}
	return nil
}

// firstMismatch returns the first node at which g1 and g2 differ in more
// than sizes and constants' values (len(g1.Nodes) when one has fewer
// nodes or other outputs), or -1 when they correspond.
func firstMismatch(g1, g2 *ir.Graph) int {
	n := min(len(g1.Nodes), len(g2.Nodes))
	for v := range n {
		a, b := &g1.Nodes[v], &g2.Nodes[v]
		if a.Op != b.Op || a.DType != b.DType || len(a.Shape) != len(b.Shape) ||
			!slices.Equal(a.Args, b.Args) || !slices.Equal(a.Axes, b.Axes) || a.Index != b.Index {
			return v
		}
	}
	if len(g1.Nodes) != len(g2.Nodes) || !slices.Equal(g1.Outputs, g2.Outputs) {
		return n
	}
	return -1
}

// why holds the two traces while explain looks for the cause.
type why struct {
	g1, g2 *ir.Graph
	b1, b2 int
	axes   [][]bool
	scale  []int
}

// explain returns the error for a function whose code depends on the
// dynamic size: nest is the loop nest where the two traces' code first
// differs, or -1 if unknown.
func explain(plans [2]*passes.Plan, b1, b2, nest int) error {
	g1, g2 := plans[0].Graph, plans[1].Graph
	if v := firstMismatch(g1, g2); v >= 0 {
		msg := "the function records different operations at different batch sizes (does it branch on Tensor.Shape? While tracing, the batch size it reports is a placeholder); one kernel cannot serve every batch size: drop WithDynamicDim"
		if v < len(g1.Nodes) {
			return failAt(&g1.Nodes[v], msg)
		}
		return fmt.Errorf("%s", msg)
	}
	w := &why{g1: g1, g2: g2, b1: b1, b2: b2}
	w.axes, w.scale = dynamicAxes(g1, g2, b1, b2)
	// The nodes the nest computes first, then all of them.
	var in []ir.Value
	if nest >= 0 {
		p := plans[0]
		for v := range g1.Nodes {
			gi := p.Group[v]
			if gi >= 0 && slices.Contains(p.Nests[nest], gi) {
				in = append(in, ir.Value(v))
			}
		}
		for _, gi := range p.Nests[nest] {
			if mm := p.MatMul[gi]; mm >= 0 && !slices.Contains(in, mm) {
				in = append(in, mm)
			}
		}
		slices.Sort(in)
	}
	// Causes that make the code differ for certain first (a constant, a
	// size that is not a multiple of B), then likely ones, in the nest
	// and then anywhere.
	for _, vs := range [][]ir.Value{in, nil} {
		for tier := range 2 {
			if vs == nil {
				for v := range g1.Nodes {
					if err := w.cause(ir.Value(v), tier, false); err != nil {
						return err
					}
				}
				continue
			}
			for _, v := range vs {
				if err := w.cause(v, tier, true); err != nil {
					return err
				}
			}
		}
	}
	if nest >= 0 {
		groups := plans[0].Nests[nest]
		n := &g1.Nodes[plans[0].Roots[groups[len(groups)-1]]]
		return w.fail(n, "its loop nest depends on the batch size")
	}
	return fmt.Errorf("the generated code depends on the batch size; one kernel cannot serve every batch size: drop WithDynamicDim")
}

// cause returns the error for node v if it depends on the dynamic size
// in a way one kernel cannot follow: tier 0 checks what always makes the
// code differ, tier 1 what usually does. inNest says v is computed by
// the loop nest whose code differs, which also blames it for keeping the
// dynamic axis anywhere but first.
func (w *why) cause(v ir.Value, tier int, inNest bool) error {
	n1, n2 := &w.g1.Nodes[v], &w.g2.Nodes[v]
	if tier == 0 {
		if n1.Op == ir.OpConst && n1.Const != n2.Const && w.scale[v] == 0 {
			if n1.Call == "Mean" {
				return w.fail(n1, "averages over the dynamic axis"+w.origin()+", dividing by the batch size",
					"use Sum and divide by the batch size passed in as a tensor")
			}
			return w.fail(n1, "uses the batch size in a value that is not a multiple of it (Tensor.Shape reports a placeholder batch size while tracing)",
				"pass the value in as a tensor")
		}
		for k := range n1.Shape {
			d1, d2 := n1.Shape[k], n2.Shape[k]
			if d1 == d2 || d1*w.b2 == d2*w.b1 {
				continue
			}
			what := fmt.Sprintf("its result %s has a size that is not a multiple of the batch size", w.shape(v))
			fix := ""
			switch n1.Op {
			case ir.OpSlice:
				what, fix = fmt.Sprintf("slices the dynamic axis (axis %d of its result %s)", k, w.shape(v)), "slice the other axes"
			case ir.OpConcat:
				what, fix = fmt.Sprintf("concatenates along the dynamic axis (result %s)", w.shape(v)), "concatenate along another axis"
			case ir.OpReshape:
				what = fmt.Sprintf("reshapes %s to %s, which splits or merges the dynamic axis", w.shape(n1.Args[0]), w.shape(v))
				fix = "keep the dynamic axis as it is"
			}
			return w.fail(n1, what, fix)
		}
		if s1, s2 := n1.Shape.Size(), n2.Shape.Size(); s1 != s2 && s1*w.b2 != s2*w.b1 {
			return w.fail(n1, fmt.Sprintf("its result %s has the dynamic size in more than one axis, so its size grows faster than the batch size", w.shape(v)))
		}
		return nil
	}
	dynIn := func(i int) []bool { return w.axes[n1.Args[i]] }
	switch n1.Op.Kind() {
	case ir.KindReduce, ir.KindArgReduce:
		for _, ax := range n1.Axes {
			if d := dynIn(0); d != nil && d[ax] {
				return w.fail(n1, fmt.Sprintf("reduces over axis %d, the dynamic axis%s", ax, w.origin()),
					"reduce over the other axes")
			}
		}
	case ir.KindMatMul:
		a := w.g1.Node(n1.Args[0]).Shape
		if d := dynIn(0); d != nil && d[len(a)-1] {
			return w.fail(n1, fmt.Sprintf("sums over the dynamic axis%s: its operands are %s and %s", w.origin(),
				w.shape(n1.Args[0]), w.shape(n1.Args[1])))
		}
		return nil
	}
	if inNest {
		if d := w.axes[v]; d != nil && !d[0] {
			k := slices.Index(d, true)
			return w.fail(n1, fmt.Sprintf("puts the dynamic axis at axis %d of its result %s, where this loop nest cannot follow it", k, w.shape(v)),
				"keep the dynamic axis first")
		}
	}
	return nil
}

// origin names the option that made an axis dynamic: the first parameter
// with a dynamic axis (all dynamic axes have one size).
func (w *why) origin() string {
	for _, p := range w.g1.Params {
		if d := w.axes[p]; d != nil {
			arg := strings.TrimPrefix(w.g1.Nodes[p].Pos, "argument ")
			if _, err := strconv.Atoi(arg); err == nil {
				return fmt.Sprintf(" (WithDynamicDim(%s, %d))", arg, slices.Index(d, true))
			}
		}
	}
	return ""
}

// fail formats the error for node n: what depends on the batch size and
// what to do about it (fix, which may be empty, comes before the
// alternative of dropping the option).
func (w *why) fail(n *ir.Node, what string, fix ...string) error {
	todo := "drop WithDynamicDim"
	if len(fix) > 0 && fix[0] != "" {
		todo = fix[0] + ", or drop WithDynamicDim"
	}
	return failAt(n, what+"; one kernel cannot serve every batch size: "+todo)
}

// failAt is an error at n's position, naming the public call that made it
// (op when that is unknown, as for a graph built by hand).
func failAt(n *ir.Node, msg string) error {
	return &ir.Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: msg}
}

// shape writes v's shape with B for the dynamic size: a dimension that is
// a times the size is aB, one that is the size plus c is B+c.
func (w *why) shape(v ir.Value) string {
	s1, s2 := w.g1.Nodes[v].Shape, w.g2.Nodes[v].Shape
	var b strings.Builder
	b.WriteByte('[')
	for k := range s1 {
		if k > 0 {
			b.WriteByte(',')
		}
		d1, d2 := s1[k], s2[k]
		switch {
		case d1 == d2:
			b.WriteString(strconv.Itoa(d1))
		case d1*w.b2 == d2*w.b1 && d1%w.b1 == 0:
			if a := d1 / w.b1; a != 1 {
				b.WriteString(strconv.Itoa(a))
			}
			b.WriteByte('B')
		case d1-w.b1 == d2-w.b2:
			fmt.Fprintf(&b, "B%+d", d1-w.b1)
		default:
			b.WriteByte('?')
		}
	}
	b.WriteByte(']')
	return b.String()
}
