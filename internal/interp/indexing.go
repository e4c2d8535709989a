package interp

import (
	"fmt"

	"github.com/gojit/gojit/internal/ir"
)

// Indexing ops: take, take_along_axis, scatter_add and dynamic_slice.
//
// Every index is checked before it is used. An index i along an axis of
// size d is valid when -d <= i < d; a negative one counts from the end, as
// in NumPy. The first invalid index, in row-major order of the index
// tensor, is reported as an *ir.IndexError naming the node. An op whose
// result (or, for scatter_add, whose updates) has no elements reads no
// index and checks none (constant folding replaces an empty result by a
// constant anyway): the compiled code reads exactly the indices it
// needs, and this keeps both in agreement.

// isIndexing reports whether op is evaluated by evalIndexing.
func isIndexing(op ir.Op) bool {
	switch op.Kind() {
	case ir.KindGather, ir.KindScatter, ir.KindDynamicSlice, ir.KindRandom:
		return true
	}
	return false
}

// evalIndexing computes node v, an indexing or random op, into a new slice.
func evalIndexing(g *ir.Graph, v ir.Value, n *ir.Node, args []any) (any, error) {
	switch n.Op {
	case ir.OpTake, ir.OpTakeAlongAxis, ir.OpScatterAdd:
		idx := int64s(args[1])
		xs := g.Node(n.Args[0]).Shape
		ax := n.Axes[0]
		outer, dim, inner := split(xs, ax)
		reads := n.Shape.Size()
		if n.Op == ir.OpScatterAdd {
			reads = min(reads, g.Node(n.Args[2]).Shape.Size())
		}
		if reads > 0 {
			for p, i := range idx {
				if i < -int64(dim) || i >= int64(dim) {
					return nil, ir.NewIndexError(g, v, p, i)
				}
			}
		}
		switch n.Op {
		case ir.OpTake:
			return takeAny(args[0], idx, outer, dim, inner), nil
		case ir.OpTakeAlongAxis:
			jdim := g.Node(n.Args[1]).Shape[ax]
			return takeAlongAny(args[0], idx, outer, dim, jdim, inner), nil
		}
		return scatterAddAny(args[0], idx, args[2], outer, dim, inner), nil

	case ir.OpDynamicSlice:
		xs := g.Node(n.Args[0]).Shape
		starts := make([]int, len(xs))
		for k := range xs {
			starts[k] = ClampStart(int64s(args[k+1])[0], xs[k], n.Shape[k])
		}
		steps := make([]int, len(xs))
		for k := range steps {
			steps[k] = 1
		}
		return slice(args[0], xs, starts, steps, n.Shape), nil

	case ir.OpRandomUniform, ir.OpRandomNormal, ir.OpSplitKey:
		return random(n, args[0].([]int32)), nil
	}
	return nil, fmt.Errorf("interp: op %s is not an indexing op", n.Op)
}

// ClampStart is dynamic_slice's start along an axis of size dim for a
// window of size: start clamped to [0, dim-size], as in JAX, so the window
// always lies inside the operand.
func ClampStart(start int64, dim, size int) int {
	hi := int64(dim - size)
	return int(max(min(start, hi), 0))
}

// int64s converts an integer slice to int64 values.
func int64s(x any) []int64 {
	switch s := x.(type) {
	case []int64:
		return s
	case []int32:
		out := make([]int64, len(s))
		for i, v := range s {
			out[i] = int64(v)
		}
		return out
	case []uint8:
		out := make([]int64, len(s))
		for i, v := range s {
			out[i] = int64(v)
		}
		return out
	}
	panic(fmt.Sprintf("indices of type %T", x))
}

// wrapIndex maps a checked index in [-dim, dim) to [0, dim).
func wrapIndex(i int64, dim int) int {
	if i < 0 {
		return int(i) + dim
	}
	return int(i)
}

func takeAny(x any, idx []int64, outer, dim, inner int) any {
	switch s := x.(type) {
	case []bool:
		return take(s, idx, outer, dim, inner)
	case []uint8:
		return take(s, idx, outer, dim, inner)
	case []int32:
		return take(s, idx, outer, dim, inner)
	case []int64:
		return take(s, idx, outer, dim, inner)
	case []float32:
		return take(s, idx, outer, dim, inner)
	case []float64:
		return take(s, idx, outer, dim, inner)
	}
	panic(fmt.Sprintf("take of %T", x))
}

// take copies, for every outer block, the inner-sized rows idx[j] of x.
func take[T elem](x []T, idx []int64, outer, dim, inner int) []T {
	out := make([]T, outer*len(idx)*inner)
	o := 0
	for b := range outer {
		for _, i := range idx {
			src := (b*dim + wrapIndex(i, dim)) * inner
			o += copy(out[o:o+inner], x[src:src+inner])
		}
	}
	return out
}

func takeAlongAny(x any, idx []int64, outer, dim, jdim, inner int) any {
	switch s := x.(type) {
	case []bool:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	case []uint8:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	case []int32:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	case []int64:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	case []float32:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	case []float64:
		return takeAlong(s, idx, outer, dim, jdim, inner)
	}
	panic(fmt.Sprintf("take_along_axis of %T", x))
}

// takeAlong reads out[b,j,i] = x[b, idx[b,j,i], i].
func takeAlong[T elem](x []T, idx []int64, outer, dim, jdim, inner int) []T {
	out := make([]T, len(idx))
	for b := range outer {
		for j := range jdim {
			for i := range inner {
				p := (b*jdim+j)*inner + i
				out[p] = x[(b*dim+wrapIndex(idx[p], dim))*inner+i]
			}
		}
	}
	return out
}

func scatterAddAny(x any, idx []int64, upd any, outer, dim, inner int) any {
	switch s := x.(type) {
	case []uint8:
		return scatterAdd(s, idx, upd.([]uint8), outer, dim, inner)
	case []int32:
		return scatterAdd(s, idx, upd.([]int32), outer, dim, inner)
	case []int64:
		return scatterAdd(s, idx, upd.([]int64), outer, dim, inner)
	case []float32:
		return scatterAdd(s, idx, upd.([]float32), outer, dim, inner)
	case []float64:
		return scatterAdd(s, idx, upd.([]float64), outer, dim, inner)
	}
	panic(fmt.Sprintf("scatter_add of %T", x))
}

// scatterAdd returns a copy of x with upd[b,j,i] added to element
// [b, idx[j], i], visiting the updates in row-major order: each element's
// sum is x's value plus its updates in increasing order of j.
func scatterAdd[T number](x []T, idx []int64, upd []T, outer, dim, inner int) []T {
	out := make([]T, len(x))
	copy(out, x)
	u := 0
	for b := range outer {
		for _, i := range idx {
			dst := (b*dim + wrapIndex(i, dim)) * inner
			for k := range inner {
				out[dst+k] += upd[u]
				u++
			}
		}
	}
	return out
}
