package interp

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"

	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// Element types the interpreter stores. They are the Go types of the six
// dtypes; the constraints let one generic kernel serve several dtypes.
type (
	integer interface{ uint8 | int32 | int64 }
	float   interface{ float32 | float64 }
	number  interface{ integer | float }
	elem    interface {
		bool | number | half.Float16 | half.BFloat16
	}
)

// Run evaluates g on inputs and returns one freshly allocated slice per
// output, in the order of g.Outputs.
//
// inputs[i] holds parameter i's data in row-major order, as the slice type
// NewSlice returns for the parameter's dtype ([]bool, []uint8, []int32,
// []int64, []float32 or []float64) with exactly Shape.Size() elements. Run
// never writes to the inputs and never returns memory that aliases them, so
// callers may reuse both freely.
//
// The graph is checked with ir.Verify first. Run does not panic on any
// graph: an invalid graph, bad inputs, or an unexpected failure inside an op
// are all returned as errors.
func Run(g *ir.Graph, inputs []any) ([]any, error) {
	if err := check(g, inputs); err != nil {
		return nil, err
	}
	return run(g, inputs)
}

// RunInto is Run writing into caller-provided output slices, so a caller
// evaluating the same graph repeatedly (the no-cgo fallback does) keeps its
// own buffers. outputs[i] must have the slice type and length of output i;
// everything is validated before any output is written. Outputs may alias
// inputs: the results are copied out only after the whole graph has run.
func RunInto(g *ir.Graph, inputs, outputs []any) error {
	if err := check(g, inputs); err != nil {
		return err
	}
	if len(outputs) != len(g.Outputs) {
		return fmt.Errorf("interp: got %d output slices, the graph has %d outputs", len(outputs), len(g.Outputs))
	}
	for i, v := range g.Outputs {
		n := g.Node(v)
		if err := checkSlice(outputs[i], n.DType, n.Shape.Size()); err != nil {
			return fmt.Errorf("interp: output %d (%%%d, %s%s): %v", i, v, n.DType, n.Shape, err)
		}
	}
	res, err := run(g, inputs)
	if err != nil {
		return err
	}
	for i := range res {
		copySlice(outputs[i], res[i])
	}
	return nil
}

// NewSlice returns a zeroed slice of the Go type Run uses for dt, with n
// elements. An invalid dtype yields nil.
func NewSlice(dt ir.DType, n int) any {
	switch dt {
	case ir.Bool:
		return make([]bool, n)
	case ir.Uint8:
		return make([]uint8, n)
	case ir.Int32:
		return make([]int32, n)
	case ir.Int64:
		return make([]int64, n)
	case ir.Float32:
		return make([]float32, n)
	case ir.Float64:
		return make([]float64, n)
	case ir.Float16:
		return make([]half.Float16, n)
	case ir.BFloat16:
		return make([]half.BFloat16, n)
	}
	return nil
}

// check validates the graph and the inputs before any work is done, so
// errors name the culprit instead of surfacing as a failure inside an op.
func check(g *ir.Graph, inputs []any) error {
	if g == nil {
		return errors.New("interp: nil graph")
	}
	if err := ir.Verify(g); err != nil {
		return fmt.Errorf("interp: invalid graph: %w", err)
	}
	if len(inputs) != len(g.Params) {
		return fmt.Errorf("interp: got %d inputs, the graph has %d parameters", len(inputs), len(g.Params))
	}
	for i, p := range g.Params {
		n := g.Node(p)
		if err := checkSlice(inputs[i], n.DType, n.Shape.Size()); err != nil {
			return fmt.Errorf("interp: input %d (param %%%d, %s%s): %v", i, p, n.DType, n.Shape, err)
		}
	}
	return nil
}

func checkSlice(x any, dt ir.DType, size int) error {
	if dtypeOf(x) != dt {
		return fmt.Errorf("got %T, want %T", x, NewSlice(dt, 0))
	}
	if n := sliceLen(x); n != size {
		return fmt.Errorf("got %d elements, want %d", n, size)
	}
	return nil
}

func sliceLen(x any) int {
	switch s := x.(type) {
	case []bool:
		return len(s)
	case []uint8:
		return len(s)
	case []int32:
		return len(s)
	case []int64:
		return len(s)
	case []float32:
		return len(s)
	case []float64:
		return len(s)
	case []half.Float16:
		return len(s)
	case []half.BFloat16:
		return len(s)
	}
	return -1
}

// copySlice copies src into dst; both have the same type, checked earlier.
func copySlice(dst, src any) {
	switch d := dst.(type) {
	case []bool:
		copy(d, src.([]bool))
	case []uint8:
		copy(d, src.([]uint8))
	case []int32:
		copy(d, src.([]int32))
	case []int64:
		copy(d, src.([]int64))
	case []float32:
		copy(d, src.([]float32))
	case []float64:
		copy(d, src.([]float64))
	case []half.Float16:
		copy(d, src.([]half.Float16))
	case []half.BFloat16:
		copy(d, src.([]half.BFloat16))
	}
}

func cloneSlice(x any) any {
	out := NewSlice(dtypeOf(x), sliceLen(x))
	copySlice(out, x)
	return out
}

func dtypeOf(x any) ir.DType {
	switch x.(type) {
	case []bool:
		return ir.Bool
	case []uint8:
		return ir.Uint8
	case []int32:
		return ir.Int32
	case []int64:
		return ir.Int64
	case []float32:
		return ir.Float32
	case []float64:
		return ir.Float64
	case []half.Float16:
		return ir.Float16
	case []half.BFloat16:
		return ir.BFloat16
	}
	return ir.InvalidDType
}

// run evaluates a verified graph on validated inputs.
func run(g *ir.Graph, inputs []any) (outs []any, err error) {
	cur := -1
	defer func() {
		if r := recover(); r != nil {
			where := "after evaluation"
			if cur >= 0 {
				where = fmt.Sprintf("evaluating %s", ir.FormatNode(g, ir.Value(cur)))
			}
			outs, err = nil, fmt.Errorf("interp: internal error %s: %v\n%s", where, r, debug.Stack())
		}
	}()

	// lastUse lets large intermediates be dropped as soon as nothing reads
	// them, so peak memory tracks the live set rather than the whole graph.
	lastUse := make([]int, len(g.Nodes))
	for i := range lastUse {
		lastUse[i] = -1
	}
	for i, n := range g.Nodes {
		for _, a := range n.Args {
			lastUse[a] = i
		}
	}
	isOut := g.IsOutput()

	// root[v] is the node whose buffer v's value lives in: reshape shares
	// its operand's buffer, which is safe because values are never mutated
	// once computed. It decides which buffers may be handed to the caller.
	vals := make([]any, len(g.Nodes))
	root := make([]ir.Value, len(g.Nodes))
	for i := range g.Nodes {
		cur = i
		n := g.Node(ir.Value(i))
		root[i] = ir.Value(i)
		switch n.Op {
		case ir.OpParam:
			vals[i] = inputs[n.Index]
		case ir.OpReshape:
			vals[i] = vals[n.Args[0]]
			root[i] = root[n.Args[0]]
		case ir.OpCond, ir.OpWhile:
			args := make([]any, len(n.Args))
			for j, a := range n.Args {
				args[j] = vals[a]
			}
			res, err := runControl(n, args)
			if err != nil {
				return nil, err
			}
			vals[i] = res
		case ir.OpGet:
			// A copy: two gets of one result must not share a buffer
			// that could be handed to the caller twice.
			vals[i] = cloneSlice(vals[n.Args[0]].([]any)[n.Index])
		default:
			args := make([]any, len(n.Args))
			for j, a := range n.Args {
				args[j] = vals[a]
			}
			if isIndexing(n.Op) { // indexing.go: ops that can fail at run time
				if vals[i], err = evalIndexing(g, ir.Value(i), n, args); err != nil {
					return nil, err
				}
				break
			}
			vals[i] = eval(g, n, args)
		}
		if lastUse[i] < 0 && !isOut[i] {
			vals[i] = nil // dead code: computed for the sake of errors only
		}
		for _, a := range n.Args {
			if lastUse[a] == i && !isOut[a] {
				vals[a] = nil
			}
		}
	}
	cur = -1

	outs = make([]any, len(g.Outputs))
	handed := make([]bool, len(g.Nodes))
	for i, v := range g.Outputs {
		r := root[v]
		if g.Node(r).Op == ir.OpParam || handed[r] {
			outs[i] = cloneSlice(vals[v])
			continue
		}
		handed[r] = true
		outs[i] = vals[v]
	}
	return outs, nil
}

// eval computes one non-param, non-reshape node into a new slice.
func eval(g *ir.Graph, n *ir.Node, args []any) any {
	size := n.Shape.Size()
	switch n.Op.Kind() {
	case ir.KindSource:
		if n.Op == ir.OpConst {
			return constant(n.DType, n.Const, size)
		}
		return iotaValues(n.DType, n.Shape, n.Axes[0])
	case ir.KindUnary:
		return unary(n.Op, args[0])
	case ir.KindCast:
		return cast(n.DType, args[0])
	case ir.KindBinary:
		return binary(n.Op, args[0], args[1])
	case ir.KindCompare:
		return compare(n.Op, args[0], args[1])
	case ir.KindSelect:
		return where(args[0].([]bool), args[1], args[2])
	case ir.KindReduce:
		return reduce(n.Op, args[0], g.Node(n.Args[0]).Shape, n.Axes, size)
	case ir.KindArgReduce:
		return argReduce(n.Op, args[0], g.Node(n.Args[0]).Shape, n.Axes[0], size)
	case ir.KindLayout:
		in := g.Node(n.Args[0]).Shape
		switch n.Op {
		case ir.OpTranspose:
			return transpose(args[0], in, n.Axes, n.Shape)
		case ir.OpBroadcast:
			return broadcast(args[0], in, n.Shape)
		case ir.OpSlice:
			return slice(args[0], in, n.Starts, n.Steps, n.Shape)
		case ir.OpConcat:
			shapes := make([]ir.Shape, len(n.Args))
			for i, a := range n.Args {
				shapes[i] = g.Node(a).Shape
			}
			return concat(args, shapes, n.Axes[0], n.Shape)
		}
	case ir.KindMatMul:
		return matmul(args[0], args[1], g.Node(n.Args[0]).Shape, n.Shape)
	case ir.KindScan:
		return scan(n.Op, args[0], n.Shape, n.Axes[0])
	case ir.KindSort:
		return sortAxis(n.Op, args[0], n.Shape, n.Axes[0])
	}
	panic(fmt.Sprintf("op %s is not implemented", n.Op))
}

// constant fills a new slice with the node's value, converted to the dtype
// the way the code generator materialises it.
func constant(dt ir.DType, c ir.Const, n int) any {
	switch dt {
	case ir.Bool:
		return fill(make([]bool, n), c.I != 0)
	case ir.Uint8:
		return fill(make([]uint8, n), uint8(c.I))
	case ir.Int32:
		return fill(make([]int32, n), int32(c.I))
	case ir.Int64:
		return fill(make([]int64, n), c.I)
	case ir.Float32:
		return fill(make([]float32, n), float32(c.F))
	case ir.Float64:
		return fill(make([]float64, n), c.F)
	case ir.Float16:
		return fill(make([]half.Float16, n), half.Float16From(float32(c.F)))
	case ir.BFloat16:
		return fill(make([]half.BFloat16, n), half.BFloat16From(float32(c.F)))
	}
	panic(fmt.Sprintf("const of dtype %s", dt))
}

func fill[T elem](s []T, v T) []T {
	for i := range s {
		s[i] = v
	}
	return s
}

// iotaValues writes each element's index along axis, converted like an
// int64-to-dtype cast.
func iotaValues(dt ir.DType, shape ir.Shape, axis int) any {
	switch dt {
	case ir.Uint8:
		return iotaOf[uint8](shape, axis)
	case ir.Int32:
		return iotaOf[int32](shape, axis)
	case ir.Int64:
		return iotaOf[int64](shape, axis)
	case ir.Float32:
		return iotaOf[float32](shape, axis)
	case ir.Float64:
		return iotaOf[float64](shape, axis)
	}
	panic(fmt.Sprintf("iota of dtype %s", dt))
}

func iotaOf[T number](shape ir.Shape, axis int) []T {
	out := make([]T, shape.Size())
	outer, dim, inner := split(shape, axis)
	o := 0
	for range outer {
		for k := range dim {
			v := T(int64(k))
			for range inner {
				out[o] = v
				o++
			}
		}
	}
	return out
}

// split returns the number of elements before, along and after axis: the
// layout every single-axis op (iota, argmax, concat) walks.
func split(shape ir.Shape, axis int) (outer, dim, inner int) {
	outer, inner = 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	return outer, shape[axis], inner
}

// Saturating float-to-integer conversions. Go leaves out-of-range
// conversions implementation-defined; the IR pins them to LLVM's
// fptosi.sat / fptoui.sat: truncate toward zero, clamp, NaN becomes 0.
func satInt32(x float64) int32 {
	switch {
	case x != x:
		return 0
	case x >= 1<<31:
		return math.MaxInt32
	case x <= -1<<31:
		return math.MinInt32
	}
	return int32(x)
}

func satInt64(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 1<<63:
		return math.MaxInt64
	case x <= -1<<63:
		return math.MinInt64
	}
	return int64(x)
}

func satUint8(x float64) uint8 {
	switch {
	case x != x, x <= 0:
		return 0
	case x >= 255:
		return 255
	}
	return uint8(x)
}
