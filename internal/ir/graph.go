package ir

import (
	"fmt"
	"slices"
)

// Value identifies a node of a Graph: its index in Graph.Nodes. A node
// defines exactly one value, so the two words are used interchangeably.
type Value int32

// Const is the payload of an OpConst node. Float dtypes use F; integer and
// Bool dtypes use I (a Bool is 0 or 1).
type Const struct {
	F float64
	I int64
}

// Node is one operation. Which attribute fields are meaningful depends on
// the op; the others are zero.
type Node struct {
	Op    Op
	DType DType // result element type
	Shape Shape // result shape
	Args  []Value

	Axes   []int // reduce: sorted axes; transpose: permutation; concat, iota, argmax, argmin: [axis]
	Starts []int // slice: first index per dim
	Steps  []int // slice: stride per dim (not 0; negative walks backwards from the start)
	Const  Const // const: the value
	Index  int   // param: position among the graph's inputs; get: result number
	// Regions are the sub-graphs a control-flow op owns (cond: then,
	// else; while: cond, body). They are closed: a region reads only its
	// own parameters, which the op binds to its operands.
	Regions []*Graph

	Pos string // where the user created it (file:line); not part of the graph's identity
	// Call is the public API call that created the node ("Sum",
	// "Relu"), for messages; like Pos, not part of the graph's identity.
	Call string
}

// Graph is a computation in static single assignment form: nodes appear
// after their operands, so Nodes is always in topological order.
type Graph struct {
	Nodes   []Node
	Params  []Value // Params[i] is the node with Index i
	Outputs []Value
}

// Node returns the node that defines v.
func (g *Graph) Node(v Value) *Node { return &g.Nodes[v] }

// Error is a problem with one op, found while building or verifying a graph.
type Error struct {
	Op   Op
	Pos  string // the user's file:line, when known
	Call string // the public API call that made the op ("Sum"), when known
	Msg  string
}

// Error formats the problem as "pos: call: msg", naming the op instead of
// the call, and leaving out pos, when they are unknown.
func (e *Error) Error() string {
	name := e.Call
	if name == "" {
		name = e.Op.String()
	}
	if e.Pos != "" {
		return fmt.Sprintf("%s: %s: %s", e.Pos, name, e.Msg)
	}
	return fmt.Sprintf("%s: %s", name, e.Msg)
}

// AddParam appends a parameter node for the next input.
func (g *Graph) AddParam(dt DType, shape Shape, pos string) (Value, error) {
	v, err := g.Add(Node{Op: OpParam, DType: dt, Shape: shape, Index: len(g.Params), Pos: pos})
	if err == nil {
		g.Params = append(g.Params, v)
	}
	return v, err
}

// Add checks n against its operands, infers its dtype and shape where the op
// determines them, and appends it. For param, const, iota, cast, reshape,
// broadcast and slice the caller sets the wanted DType and/or Shape; Add
// checks them. On error the graph is unchanged.
func (g *Graph) Add(n Node) (Value, error) {
	for _, a := range n.Args {
		if a < 0 || int(a) >= len(g.Nodes) {
			return -1, &Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: fmt.Sprintf("operand %%%d is not defined", a)}
		}
	}
	dt, shape, err := infer(g, &n)
	if err == nil {
		err = shape.Check(dt)
	}
	if err != nil {
		return -1, &Error{Op: n.Op, Pos: n.Pos, Call: n.Call, Msg: err.Error()}
	}
	n.DType, n.Shape = dt, shape
	g.Nodes = append(g.Nodes, n)
	return Value(len(g.Nodes) - 1), nil
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := &Graph{
		Nodes:   make([]Node, len(g.Nodes)),
		Params:  slices.Clone(g.Params),
		Outputs: slices.Clone(g.Outputs),
	}
	for i, n := range g.Nodes {
		n.Shape = n.Shape.Clone()
		n.Args = slices.Clone(n.Args)
		n.Axes = slices.Clone(n.Axes)
		n.Starts = slices.Clone(n.Starts)
		n.Steps = slices.Clone(n.Steps)
		if n.Regions != nil {
			n.Regions = slices.Clone(n.Regions)
			for j, r := range n.Regions {
				n.Regions[j] = r.Clone()
			}
		}
		c.Nodes[i] = n
	}
	return c
}

// Users returns, for every value, the nodes that use it as an operand (once
// per use), in node order.
func (g *Graph) Users() [][]Value {
	users := make([][]Value, len(g.Nodes))
	for i, n := range g.Nodes {
		for _, a := range n.Args {
			users[a] = append(users[a], Value(i))
		}
	}
	return users
}

// IsOutput reports, for every value, whether it is one of the graph's outputs.
func (g *Graph) IsOutput() []bool {
	out := make([]bool, len(g.Nodes))
	for _, v := range g.Outputs {
		out[v] = true
	}
	return out
}
