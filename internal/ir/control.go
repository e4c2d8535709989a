package ir

import (
	"errors"
	"fmt"
	"strings"
)

// Control flow is structured, as MLIR's scf.if/scf.while and XLA's
// Conditional/While: a control-flow op owns regions (Node.Regions), each a
// closed Graph whose parameters the op binds to its operands, rather than
// the tensor IR holding a CFG. A control-flow op has a tuple of results and
// no dtype or shape of its own; get nodes read its results one by one.
//
//	%3 = cond %0, %1, %2 : (f32[4]) {
//	  %0 = param 0 : f32[4]          then: params are the operands after the predicate
//	  %1 = param 1 : f32[4]
//	  %2 = add %0, %1 : f32[4]
//	  return %2
//	} {
//	  %0 = param 0 : f32[4]          else: the same params, the same result types
//	  %1 = param 1 : f32[4]
//	  return %1
//	}
//	%4 = get %3 0 : f32[4]
//
// cond: operand 0 is a bool[] predicate; both regions take the other
// operands as parameters and return results of the same number, dtypes and
// shapes, which are the op's results.
//
// while: the operands are the loop-carried state (the first k, where k is
// the number of outputs of the body) followed by captures, values the loop
// only reads. Both regions, cond then body, take all operands as
// parameters; cond returns one bool[], body the next state (k values of
// the state's types). The op's results are the final state. A loop whose
// cond is false at once runs its body zero times and returns the initial
// state.

// Type is the dtype and shape of one value: a result of a control-flow op
// or a parameter of a region.
type Type struct {
	DType DType
	Shape Shape
}

// String prints the type as in the IR text: f32[4,5].
func (t Type) String() string { return t.DType.String() + t.Shape.String() }

// Equal reports whether the dtypes and shapes are equal.
func (t Type) Equal(u Type) bool { return t.DType == u.DType && t.Shape.Equal(u.Shape) }

// TypeOf returns the type of value v of g.
func (g *Graph) TypeOf(v Value) Type {
	n := &g.Nodes[v]
	return Type{n.DType, n.Shape}
}

// ParamTypes returns the types of g's parameters, in order.
func (g *Graph) ParamTypes() []Type {
	ts := make([]Type, len(g.Params))
	for i, p := range g.Params {
		ts[i] = g.TypeOf(p)
	}
	return ts
}

// OutputTypes returns the types of g's outputs, in order.
func (g *Graph) OutputTypes() []Type {
	ts := make([]Type, len(g.Outputs))
	for i, o := range g.Outputs {
		ts[i] = g.TypeOf(o)
	}
	return ts
}

// Results returns the result types of a control-flow node: the outputs of
// cond's then region, or of while's body. It returns nil for other ops and
// for malformed nodes.
func Results(n *Node) []Type {
	if n.Op.Kind() != KindControl || len(n.Regions) != 2 || n.Regions[1] == nil || n.Regions[0] == nil {
		return nil
	}
	if n.Op == OpCond {
		return n.Regions[0].OutputTypes()
	}
	return n.Regions[1].OutputTypes()
}

// Carried returns the number of loop-carried values of a while node (its
// first Carried operands; the rest are captures), 0 for other nodes.
func Carried(n *Node) int {
	if n.Op != OpWhile || len(n.Regions) != 2 || n.Regions[1] == nil {
		return 0
	}
	return len(n.Regions[1].Outputs)
}

// HasControl reports whether g has a control-flow op.
func HasControl(g *Graph) bool {
	for i := range g.Nodes {
		if g.Nodes[i].Op.Kind() == KindControl {
			return true
		}
	}
	return false
}

// inferControl checks a control-flow or get node; a control-flow node has
// no dtype or shape of its own (InvalidDType, nil).
func inferControl(g *Graph, n *Node) (DType, Shape, error) {
	if n.Op == OpGet {
		if len(n.Args) != 1 || len(n.Regions) != 0 {
			return 0, nil, fmt.Errorf("needs 1 operand and no regions, got %d and %d", len(n.Args), len(n.Regions))
		}
		c := &g.Nodes[n.Args[0]]
		if c.Op.Kind() != KindControl {
			return 0, nil, fmt.Errorf("operand %s is not a control-flow op", c.Op)
		}
		rs := Results(c)
		if n.Index < 0 || n.Index >= len(rs) {
			return 0, nil, fmt.Errorf("result %d out of range: %s has %d results", n.Index, c.Op, len(rs))
		}
		return rs[n.Index].DType, rs[n.Index].Shape.Clone(), nil
	}
	if len(n.Regions) != 2 {
		return 0, nil, fmt.Errorf("needs 2 regions, got %d", len(n.Regions))
	}
	for i, r := range n.Regions {
		if r == nil {
			return 0, nil, fmt.Errorf("region %d is nil", i)
		}
	}
	if n.Axes != nil || n.Starts != nil || n.Steps != nil {
		return 0, nil, errors.New("has attributes it does not take")
	}
	operands := make([]Type, len(n.Args))
	for i, a := range n.Args {
		operands[i] = g.TypeOf(a)
	}
	names := [2]string{"cond", "body"}
	if n.Op == OpCond {
		if len(operands) == 0 || !operands[0].Equal(Type{Bool, nil}) {
			return 0, nil, errors.New("operand 0 must be the predicate, a bool[]")
		}
		operands = operands[1:]
		names = [2]string{"then", "else"}
	}
	for i, r := range n.Regions {
		if err := Verify(r); err != nil {
			return 0, nil, fmt.Errorf("region %s: %w", names[i], err)
		}
		if err := sameTypes("parameters", r.ParamTypes(), "operands", operands); err != nil {
			return 0, nil, fmt.Errorf("region %s: %w", names[i], err)
		}
	}
	outs0, outs1 := n.Regions[0].OutputTypes(), n.Regions[1].OutputTypes()
	if n.Op == OpCond {
		if err := sameTypes("then returns", outs0, "else returns", outs1); err != nil {
			return 0, nil, err
		}
		return InvalidDType, nil, nil
	}
	if len(outs0) != 1 || !outs0[0].Equal(Type{Bool, nil}) {
		return 0, nil, fmt.Errorf("region cond must return one bool[], returns %s", typeList(outs0))
	}
	k := len(outs1)
	if k == 0 {
		return 0, nil, errors.New("needs at least one loop-carried value")
	}
	if k > len(operands) {
		return 0, nil, fmt.Errorf("body returns %d values but there are %d operands", k, len(operands))
	}
	if err := sameTypes("body returns", outs1, "the loop-carried operands", operands[:k]); err != nil {
		return 0, nil, err
	}
	return InvalidDType, nil, nil
}

func sameTypes(what string, a []Type, other string, b []Type) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s %s: %d values, %s %s: %d", what, typeList(a), len(a), other, typeList(b), len(b))
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return fmt.Errorf("%s %s, %s %s: value %d differs", what, typeList(a), other, typeList(b), i)
		}
	}
	return nil
}

func typeList(ts []Type) string {
	var b strings.Builder
	writeTypes(&b, ts)
	return b.String()
}

// writeTypes prints a tuple type: (f32[4], bool[]).
func writeTypes(b *strings.Builder, ts []Type) {
	b.WriteByte('(')
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.String())
	}
	b.WriteByte(')')
}

// control parses a control-flow node whose header line (without its
// trailing " {") is head, then its regions.
func (p *lineParser) control(g *Graph, head string) error {
	n, body, typ, err := nodeLine(g, head, "(types)")
	if err != nil {
		return err
	}
	declared, err := parseTypes(typ)
	if err != nil {
		return err
	}
	var ok bool
	fields := strings.Fields(body)
	if len(fields) == 0 {
		return fmt.Errorf("missing op")
	}
	if n.Op, ok = LookupOp(fields[0]); !ok || n.Op.Kind() != KindControl {
		return fmt.Errorf("%q is not a control-flow op", fields[0])
	}
	if n.Args, err = parseRefs(strings.Join(fields[1:], " "), len(g.Nodes)); err != nil {
		return err
	}
	for {
		r := &Graph{}
		closer, err := p.body(r)
		if err != nil {
			return err
		}
		n.Regions = append(n.Regions, r)
		if closer == "}" {
			break
		}
	}
	v, err := g.Add(n)
	if err != nil {
		return err
	}
	if got := Results(&g.Nodes[v]); typeList(got) != typeList(declared) {
		g.Nodes = g.Nodes[:v]
		return fmt.Errorf("%%%d: recorded types %s, inferred %s", v, typeList(declared), typeList(got))
	}
	return nil
}

// parseTypes parses a tuple type printed by writeTypes.
func parseTypes(s string) ([]Type, error) {
	inner, okL := strings.CutPrefix(s, "(")
	inner, okR := strings.CutSuffix(inner, ")")
	if !okL || !okR {
		return nil, fmt.Errorf("expected (types), got %q", s)
	}
	var ts []Type
	if strings.TrimSpace(inner) == "" {
		return ts, nil
	}
	// Shapes contain commas too: split at the ", " between types.
	for _, part := range strings.Split(inner, ", ") {
		dt, shape, err := parseType(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		ts = append(ts, Type{dt, shape})
	}
	return ts, nil
}

// noTupleOperands reports an operand of n that is a control-flow op: only
// get reads those.
func noTupleOperands(g *Graph, n *Node) error {
	for i, a := range n.Args {
		if g.Nodes[a].Op.Kind() == KindControl {
			return fmt.Errorf("operand %d is the tuple of a %s: read one result with get", i, g.Nodes[a].Op)
		}
	}
	if len(n.Regions) != 0 {
		return errors.New("has regions it does not take")
	}
	return nil
}
