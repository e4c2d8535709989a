package ir

import (
	"errors"
	"fmt"
	"strings"
)

// KeyShape is the shape of a random key: two 32-bit words of a
// Philox-4x32 key, stored as Int32 (the bits of the uint32 words).
var KeyShape = Shape{2}

// ErrIndexOutOfRange is wrapped by every IndexError, so callers can test
// for it with errors.Is.
var ErrIndexOutOfRange = errors.New("index out of range")

// IndexError is an out-of-range index met at run time by take,
// take_along_axis or scatter_add. Compiled code and the interpreter report
// the same one: the first offending index in node order, then in
// row-major order of the index tensor.
type IndexError struct {
	Op    Op
	Node  Value  // the node that read the index
	Pos   string // the user's file:line, when known
	Call  string // the public API call ("Take"), when known
	Index int64  // the offending value
	At    []int  // its coordinates in the index tensor
	Axis  int    // the axis it indexes
	Dim   int    // that axis's size: valid indices are -Dim..Dim-1
}

// Error formats the problem as "pos: call: index v at indices[i,j] is out
// of range for axis a of size d".
func (e *IndexError) Error() string {
	name := e.Call
	if name == "" {
		name = e.Op.String()
	}
	at := make([]string, len(e.At))
	for i, c := range e.At {
		at[i] = fmt.Sprint(c)
	}
	msg := fmt.Sprintf("%s: index %d at indices[%s] is out of range for axis %d of size %d (valid: %d to %d)",
		name, e.Index, strings.Join(at, ","), e.Axis, e.Dim, -e.Dim, e.Dim-1)
	if e.Pos != "" {
		return e.Pos + ": " + msg
	}
	return msg
}

// Unwrap returns ErrIndexOutOfRange.
func (e *IndexError) Unwrap() error { return ErrIndexOutOfRange }

// NewIndexError describes index value found at flat position pos (row-major)
// of the index operand of node v, a gather or scatter.
func NewIndexError(g *Graph, v Value, pos int, value int64) *IndexError {
	n := g.Node(v)
	idx := g.Node(n.Args[1]).Shape
	at := make([]int, len(idx))
	for k := len(idx) - 1; k >= 0; k-- {
		if idx[k] > 0 {
			at[k] = pos % idx[k]
			pos /= idx[k]
		}
	}
	return &IndexError{Op: n.Op, Node: v, Pos: n.Pos, Call: n.Call, Index: value, At: at,
		Axis: n.Axes[0], Dim: g.Node(n.Args[0]).Shape[n.Axes[0]]}
}

// IsIndexInt reports whether d may hold indices: Uint8, Int32 or Int64.
func IsIndexInt(d DType) bool { return d.IsInt() }

// inferIndexing checks the gather, scatter, dynamic slice and random ops.
func inferIndexing(n *Node, args []*Node) (DType, Shape, error) {
	switch n.Op {
	case OpTake, OpTakeAlongAxis, OpScatterAdd:
		x, idx := args[0], args[1]
		r := x.Shape.Rank()
		if len(n.Axes) != 1 || n.Axes[0] < 0 || n.Axes[0] >= r {
			return 0, nil, fmt.Errorf("axis %v out of range for %s", n.Axes, x.Shape)
		}
		ax := n.Axes[0]
		if !IsIndexInt(idx.DType) {
			return 0, nil, fmt.Errorf("indices must be integers, got %s", idx.DType)
		}
		var out Shape
		if n.Op == OpTakeAlongAxis {
			if idx.Shape.Rank() != r {
				return 0, nil, fmt.Errorf("indices %s must have the rank of %s", idx.Shape, x.Shape)
			}
			for k := range r {
				if k != ax && idx.Shape[k] != x.Shape[k] {
					return 0, nil, fmt.Errorf("indices %s and operand %s differ off axis %d", idx.Shape, x.Shape, ax)
				}
			}
			return x.DType, idx.Shape.Clone(), nil
		}
		out = append(out, x.Shape[:ax]...)
		out = append(out, idx.Shape...)
		out = append(out, x.Shape[ax+1:]...)
		if n.Op == OpTake {
			return x.DType, out, nil
		}
		upd := args[2]
		if upd.DType != x.DType {
			return 0, nil, fmt.Errorf("updates dtype %s differs from operand dtype %s", upd.DType, x.DType)
		}
		if !upd.Shape.Equal(out) {
			return 0, nil, fmt.Errorf("updates have shape %s, want %s", upd.Shape, out)
		}
		return x.DType, x.Shape.Clone(), nil

	case OpDynamicSlice:
		x := args[0]
		r := x.Shape.Rank()
		if len(args) != r+1 {
			return 0, nil, fmt.Errorf("needs one start per axis of %s, got %d", x.Shape, len(args)-1)
		}
		if len(n.Shape) != r {
			return 0, nil, fmt.Errorf("sizes %s must have %d entries", n.Shape, r)
		}
		for k, s := range args[1:] {
			if !IsIndexInt(s.DType) || s.Shape.Rank() != 0 {
				return 0, nil, fmt.Errorf("start %d must be a 0-D integer, got %s%s", k, s.DType, s.Shape)
			}
			if n.Shape[k] > x.Shape[k] {
				return 0, nil, fmt.Errorf("size %d on axis %d exceeds the dimension %d", n.Shape[k], k, x.Shape[k])
			}
		}
		return x.DType, n.Shape.Clone(), nil

	case OpRandomUniform, OpRandomNormal, OpSplitKey:
		key := args[0]
		if key.DType != Int32 || !key.Shape.Equal(KeyShape) {
			return 0, nil, fmt.Errorf("key must be i32%s, got %s%s", KeyShape, key.DType, key.Shape)
		}
		if n.Op == OpSplitKey {
			if n.DType != Int32 || n.Shape.Rank() != 2 || n.Shape[1] != 2 {
				return 0, nil, fmt.Errorf("produces i32[n,2], not %s%s", n.DType, n.Shape)
			}
			return Int32, n.Shape.Clone(), nil
		}
		if !n.DType.IsFloat() {
			return 0, nil, fmt.Errorf("produces f32 or f64, not %s", n.DType)
		}
		return n.DType, n.Shape.Clone(), nil
	}
	return 0, nil, errors.New("unknown indexing op")
}
