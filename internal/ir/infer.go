package ir

import (
	"errors"
	"fmt"
	"slices"
)

// shared returns s for a new node to share with its operand, so that an
// elementwise op, recorded once per op by every front end, allocates no
// shape: shapes are never modified once in a graph (code that makes a
// shape from another copies it first), and the capacity is cut to the
// length so that an append copies.
func shared(s Shape) Shape { return s[:len(s):len(s)] }

// infer checks a node's operands and attributes and returns its result type.
func infer(g *Graph, n *Node) (DType, Shape, error) {
	info := n.Op.Info()
	if info.Kind == KindInvalid {
		return 0, nil, errors.New("unknown op")
	}
	if info.Kind == KindControl || info.Kind == KindGet {
		return inferControl(g, n)
	}
	if err := noTupleOperands(g, n); err != nil {
		return 0, nil, err
	}
	args := make([]*Node, len(n.Args))
	for i, a := range n.Args {
		args[i] = &g.Nodes[a]
	}
	if err := checkArity(n.Op, len(args)); err != nil {
		return 0, nil, err
	}
	for _, a := range args {
		if a.DType.IsHalf() && !carriesHalf(n.Op) {
			return 0, nil, fmt.Errorf("%s is a storage dtype: %s computes in f32 (cast first)", a.DType, n.Op)
		}
		if info.FloatOnly && !a.DType.IsFloat() {
			return 0, nil, fmt.Errorf("needs a float operand, got %s", a.DType)
		}
		if info.NoBool && a.DType == Bool && n.Op != OpWhere {
			return 0, nil, errors.New("does not accept bool operands")
		}
	}
	if err := n.Shape.Check(n.DType); err != nil {
		return 0, nil, err
	}
	switch info.Kind {
	case KindSource:
		if !n.DType.Valid() {
			return 0, nil, fmt.Errorf("invalid dtype %s", n.DType)
		}
		if n.Op == OpIota {
			if n.DType == Bool || n.DType.IsHalf() {
				return 0, nil, fmt.Errorf("does not produce %s", n.DType)
			}
			if len(n.Axes) != 1 || n.Axes[0] < 0 || n.Axes[0] >= len(n.Shape) {
				return 0, nil, fmt.Errorf("axis %v out of range for shape %s", n.Axes, n.Shape)
			}
		}
		if n.Op == OpParam && n.Index < 0 {
			return 0, nil, fmt.Errorf("negative parameter index %d", n.Index)
		}
		return n.DType, n.Shape.Clone(), nil

	case KindUnary:
		return args[0].DType, shared(args[0].Shape), nil

	case KindCast:
		if !n.DType.Valid() {
			return 0, nil, fmt.Errorf("invalid target dtype %s", n.DType)
		}
		return n.DType, shared(args[0].Shape), nil

	case KindBinary, KindCompare:
		a, b := args[0], args[1]
		if a.DType != b.DType {
			return 0, nil, fmt.Errorf("operand dtypes differ: %s and %s", a.DType, b.DType)
		}
		if !a.Shape.Equal(b.Shape) {
			return 0, nil, fmt.Errorf("operand shapes differ: %s and %s", a.Shape, b.Shape)
		}
		if info.Kind == KindCompare {
			return Bool, shared(a.Shape), nil
		}
		return a.DType, shared(a.Shape), nil

	case KindSelect:
		c, a, b := args[0], args[1], args[2]
		if c.DType != Bool {
			return 0, nil, fmt.Errorf("condition must be bool, got %s", c.DType)
		}
		if a.DType != b.DType {
			return 0, nil, fmt.Errorf("branch dtypes differ: %s and %s", a.DType, b.DType)
		}
		if !c.Shape.Equal(a.Shape) || !a.Shape.Equal(b.Shape) {
			return 0, nil, fmt.Errorf("operand shapes differ: %s, %s and %s", c.Shape, a.Shape, b.Shape)
		}
		return a.DType, a.Shape.Clone(), nil

	case KindReduce, KindArgReduce:
		a := args[0]
		if info.Kind == KindArgReduce && len(n.Axes) != 1 {
			return 0, nil, fmt.Errorf("needs exactly one axis, got %v", n.Axes)
		}
		if err := checkAxes(n.Axes, a.Shape.Rank()); err != nil {
			return 0, nil, err
		}
		out := make(Shape, 0, a.Shape.Rank())
		for i, d := range a.Shape {
			if !slices.Contains(n.Axes, i) {
				out = append(out, d)
			}
		}
		if info.Kind == KindArgReduce {
			return Int64, out, nil
		}
		return a.DType, out, nil

	case KindLayout:
		return inferLayout(n, args)

	case KindScan, KindSort:
		a := args[0]
		if len(n.Axes) != 1 || n.Axes[0] < 0 || n.Axes[0] >= a.Shape.Rank() {
			return 0, nil, fmt.Errorf("axis %v out of range for rank %d", n.Axes, a.Shape.Rank())
		}
		if n.Op == OpArgSort {
			return Int64, a.Shape.Clone(), nil
		}
		return a.DType, a.Shape.Clone(), nil

	case KindMatMul:
		a, b := args[0], args[1]
		if a.DType != b.DType {
			return 0, nil, fmt.Errorf("operand dtypes differ: %s and %s", a.DType, b.DType)
		}
		ra, rb := a.Shape.Rank(), b.Shape.Rank()
		if ra < 2 || ra != rb {
			return 0, nil, fmt.Errorf("needs operands of equal rank >= 2, got %s and %s", a.Shape, b.Shape)
		}
		if !a.Shape[:ra-2].Equal(b.Shape[:rb-2]) {
			return 0, nil, fmt.Errorf("batch dimensions differ: %s and %s", a.Shape, b.Shape)
		}
		if a.Shape[ra-1] != b.Shape[rb-2] {
			return 0, nil, fmt.Errorf("contracting dimensions differ: %s x %s", a.Shape, b.Shape)
		}
		out := append(a.Shape[:ra-1].Clone(), b.Shape[rb-1])
		return a.DType, out, nil

	case KindGather, KindScatter, KindDynamicSlice, KindRandom:
		return inferIndexing(n, args)
	}
	return 0, nil, errors.New("unknown op kind")
}

// carriesHalf reports whether op accepts Float16 and BFloat16 operands:
// the ops that move or convert data without arithmetic.
func carriesHalf(op Op) bool {
	switch op.Kind() {
	case KindCast, KindLayout, KindSelect:
		return true
	}
	return false
}

func checkArity(op Op, n int) error {
	want := -1
	switch op.Kind() {
	case KindSource:
		want = 0
	case KindUnary, KindCast, KindReduce, KindArgReduce, KindScan, KindSort:
		want = 1
	case KindBinary, KindCompare, KindMatMul:
		want = 2
	case KindSelect, KindScatter:
		want = 3
	case KindGather:
		want = 2
	case KindRandom:
		want = 1
	case KindDynamicSlice:
		if n < 1 {
			return errors.New("needs at least one operand")
		}
		return nil
	case KindLayout:
		if op == OpConcat {
			if n < 1 {
				return errors.New("needs at least one operand")
			}
			return nil
		}
		want = 1
	}
	if n != want {
		return fmt.Errorf("needs %d operand(s), got %d", want, n)
	}
	return nil
}

// checkAxes requires strictly increasing axes within [0, rank).
func checkAxes(axes []int, rank int) error {
	for i, ax := range axes {
		if ax < 0 || ax >= rank {
			return fmt.Errorf("axis %d out of range for rank %d", ax, rank)
		}
		if i > 0 && axes[i-1] >= ax {
			return fmt.Errorf("axes %v must be sorted and distinct", axes)
		}
	}
	return nil
}

func inferLayout(n *Node, args []*Node) (DType, Shape, error) {
	a := args[0]
	switch n.Op {
	case OpReshape:
		if n.Shape.Size() != a.Shape.Size() {
			return 0, nil, fmt.Errorf("cannot reshape %s (%d elements) to %s (%d elements)",
				a.Shape, a.Shape.Size(), n.Shape, n.Shape.Size())
		}
		return a.DType, n.Shape.Clone(), nil

	case OpTranspose:
		r := a.Shape.Rank()
		if len(n.Axes) != r {
			return 0, nil, fmt.Errorf("permutation %v does not match rank %d", n.Axes, r)
		}
		seen := make([]bool, r)
		out := make(Shape, r)
		for i, p := range n.Axes {
			if p < 0 || p >= r || seen[p] {
				return 0, nil, fmt.Errorf("%v is not a permutation of %d axes", n.Axes, r)
			}
			seen[p] = true
			out[i] = a.Shape[p]
		}
		return a.DType, out, nil

	case OpBroadcast:
		if len(n.Shape) < a.Shape.Rank() {
			return 0, nil, fmt.Errorf("cannot broadcast %s to lower rank %s", a.Shape, n.Shape)
		}
		off := len(n.Shape) - a.Shape.Rank()
		for i, d := range a.Shape {
			if d != 1 && d != n.Shape[off+i] {
				return 0, nil, fmt.Errorf("cannot broadcast %s to %s", a.Shape, n.Shape)
			}
		}
		return a.DType, n.Shape.Clone(), nil

	case OpSlice:
		r := a.Shape.Rank()
		if len(n.Starts) != r || len(n.Steps) != r || len(n.Shape) != r {
			return 0, nil, fmt.Errorf("starts %v, steps %v and shape %s must each have %d entries", n.Starts, n.Steps, n.Shape, r)
		}
		for i := range r {
			st, step, cnt, dim := n.Starts[i], n.Steps[i], n.Shape[i], a.Shape[i]
			if step == 0 {
				return 0, nil, fmt.Errorf("step on axis %d must not be 0", i)
			}
			// A negative step walks backwards from start (Flip, x[::-1]).
			last := st + (cnt-1)*step
			if st < 0 || st > dim || (cnt > 0 && (st >= dim || last < 0 || last >= dim)) {
				return 0, nil, fmt.Errorf("axis %d: start %d, step %d, count %d out of range for size %d", i, st, step, cnt, dim)
			}
		}
		return a.DType, n.Shape.Clone(), nil

	case OpConcat:
		r := a.Shape.Rank()
		if len(n.Axes) != 1 || n.Axes[0] < 0 || n.Axes[0] >= r {
			return 0, nil, fmt.Errorf("axis %v out of range for rank %d", n.Axes, r)
		}
		ax := n.Axes[0]
		out := a.Shape.Clone()
		for _, b := range args[1:] {
			if b.DType != a.DType {
				return 0, nil, fmt.Errorf("operand dtypes differ: %s and %s", a.DType, b.DType)
			}
			if b.Shape.Rank() != r {
				return 0, nil, fmt.Errorf("operand ranks differ: %s and %s", a.Shape, b.Shape)
			}
			for i := range r {
				if i != ax && b.Shape[i] != a.Shape[i] {
					return 0, nil, fmt.Errorf("shapes %s and %s differ off axis %d", a.Shape, b.Shape, ax)
				}
			}
			out[ax] += b.Shape[ax]
		}
		return a.DType, out, nil
	}
	return 0, nil, errors.New("unknown layout op")
}
