package ir

import (
	"crypto/sha256"
	"math"
	"strconv"
	"strings"
)

// String prints the graph with positions.
func (g *Graph) String() string { return Print(g, true) }

// Print formats g in the IR text form that Parse reads back:
//
//	graph {
//	  %0 = param 0 : f32[4]
//	  %1 = const 2 : f32[4]
//	  %2 = mul %0, %1 : f32[4]  @ main.go:12
//	  return %2
//	}
//
// With positions false the user's file:line annotations are left out, which
// is the form hashed into signatures.
func Print(g *Graph, positions bool) string {
	var b strings.Builder
	b.WriteString("graph {\n")
	writeBody(&b, g, "  ", positions)
	b.WriteString("}\n")
	return b.String()
}

// writeBody writes g's nodes and return line, each line indented, the
// regions of control-flow ops nested one level deeper.
func writeBody(b *strings.Builder, g *Graph, indent string, positions bool) {
	for i := range g.Nodes {
		b.WriteString(indent)
		writeNode(b, g, Value(i), positions)
		if rs := g.Nodes[i].Regions; len(rs) > 0 {
			b.WriteString(" {\n")
			for j, r := range rs {
				if j > 0 {
					b.WriteString(indent)
					b.WriteString("} {\n")
				}
				writeBody(b, r, indent+"  ", positions)
			}
			b.WriteString(indent)
			b.WriteByte('}')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent)
	b.WriteString("return")
	for i, v := range g.Outputs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" %")
		b.WriteString(strconv.Itoa(int(v)))
	}
	b.WriteByte('\n')
}

// FormatNode prints one node as it appears in the graph text, without
// position (and, for a control-flow op, without its regions).
func FormatNode(g *Graph, v Value) string {
	var b strings.Builder
	writeNode(&b, g, v, false)
	return b.String()
}

func writeNode(b *strings.Builder, g *Graph, v Value, positions bool) {
	n := &g.Nodes[v]
	b.WriteByte('%')
	b.WriteString(strconv.Itoa(int(v)))
	b.WriteString(" = ")
	b.WriteString(n.Op.String())
	switch n.Op {
	case OpParam:
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n.Index))
	case OpConst:
		b.WriteByte(' ')
		b.WriteString(FormatConst(n.DType, n.Const))
	}
	for i, a := range n.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" %")
		b.WriteString(strconv.Itoa(int(a)))
	}
	if n.Op == OpGet {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(n.Index))
	}
	writeInts(b, "axes", n.Axes)
	writeInts(b, "starts", n.Starts)
	writeInts(b, "steps", n.Steps)
	b.WriteString(" : ")
	if n.Op.Kind() == KindControl {
		writeTypes(b, Results(n))
	} else {
		b.WriteString(n.DType.String())
		b.WriteString(n.Shape.String())
	}
	if positions && n.Pos != "" {
		b.WriteString("  @ ")
		b.WriteString(n.Pos)
	}
}

func writeInts(b *strings.Builder, name string, xs []int) {
	if xs == nil {
		return
	}
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteByte('=')
	b.WriteString(Shape(xs).String())
}

// FormatConst prints a constant so that ParseConst reads back the same bits
// (NaN payloads aside).
func FormatConst(dt DType, c Const) string {
	switch {
	case dt.Floating():
		switch {
		case math.IsNaN(c.F):
			return "nan"
		case math.IsInf(c.F, 1):
			return "inf"
		case math.IsInf(c.F, -1):
			return "-inf"
		}
		return strconv.FormatFloat(c.F, 'g', -1, 64)
	case dt == Bool:
		if c.I != 0 {
			return "true"
		}
		return "false"
	}
	return strconv.FormatInt(c.I, 10)
}

// ParseConst parses a constant printed by FormatConst for dtype dt.
func ParseConst(dt DType, s string) (Const, error) {
	switch {
	case dt.Floating():
		f, err := strconv.ParseFloat(s, 64)
		return Const{F: f}, err
	case dt == Bool:
		bv, err := strconv.ParseBool(s)
		if bv {
			return Const{I: 1}, err
		}
		return Const{}, err
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return Const{I: i}, err
}

// Hash returns the SHA-256 of the graph's canonical text (Print without
// positions): structure, wiring, op attributes, dtypes and shapes. Graphs
// that differ in any of these hash differently.
func Hash(g *Graph) [32]byte {
	return sha256.Sum256([]byte(Print(g, false)))
}
