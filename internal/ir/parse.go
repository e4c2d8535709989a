package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads the text form written by Print. It is meant for tests and
// tools: every node is checked as it is added, so the result is a valid graph.
func Parse(text string) (*Graph, error) {
	g := &Graph{}
	lines := strings.Split(text, "\n")
	state := 0 // 0: before "graph {", 1: body, 2: after "}"
	for ln, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("ir: line %d: %s", ln+1, fmt.Sprintf(format, args...))
		}
		switch state {
		case 0:
			if line != "graph {" {
				return nil, errf("expected %q, got %q", "graph {", line)
			}
			state = 1
		case 1:
			if line == "}" {
				state = 2
				continue
			}
			if rest, ok := strings.CutPrefix(line, "return"); ok {
				outs, err := parseRefs(rest, len(g.Nodes))
				if err != nil {
					return nil, errf("%v", err)
				}
				g.Outputs = outs
				continue
			}
			if err := parseNode(g, line); err != nil {
				return nil, errf("%v", err)
			}
		default:
			return nil, errf("text after closing brace")
		}
	}
	if state != 2 {
		return nil, fmt.Errorf("ir: missing closing brace")
	}
	if err := Verify(g); err != nil {
		return nil, err
	}
	return g, nil
}

func parseNode(g *Graph, line string) error {
	var n Node
	if body, pos, ok := strings.Cut(line, "@"); ok {
		line, n.Pos = strings.TrimSpace(body), strings.TrimSpace(pos)
	}
	lhs, rhs, ok := strings.Cut(line, "=")
	if !ok {
		return fmt.Errorf("expected %%N = op")
	}
	id, err := parseRef(strings.TrimSpace(lhs))
	if err != nil {
		return err
	}
	if int(id) != len(g.Nodes) {
		return fmt.Errorf("node %%%d out of order: expected %%%d", id, len(g.Nodes))
	}
	body, typ, ok := strings.Cut(rhs, " : ")
	if !ok {
		return fmt.Errorf("missing \" : type\"")
	}
	if n.DType, n.Shape, err = parseType(strings.TrimSpace(typ)); err != nil {
		return err
	}
	fields := strings.Fields(body)
	if len(fields) == 0 {
		return fmt.Errorf("missing op")
	}
	var found bool
	if n.Op, found = LookupOp(fields[0]); !found {
		return fmt.Errorf("unknown op %q", fields[0])
	}
	for _, f := range fields[1:] {
		f = strings.TrimSuffix(f, ",")
		switch {
		case strings.HasPrefix(f, "%"):
			a, err := parseRef(f)
			if err != nil {
				return err
			}
			n.Args = append(n.Args, a)
		case strings.Contains(f, "="):
			k, v, _ := strings.Cut(f, "=")
			xs, err := parseInts(v)
			if err != nil {
				return fmt.Errorf("attribute %s: %v", k, err)
			}
			switch k {
			case "axes":
				n.Axes = xs
			case "starts":
				n.Starts = xs
			case "steps":
				n.Steps = xs
			default:
				return fmt.Errorf("unknown attribute %q", k)
			}
		case n.Op == OpParam:
			if n.Index, err = strconv.Atoi(f); err != nil {
				return fmt.Errorf("param index: %v", err)
			}
		case n.Op == OpConst:
			if n.Const, err = ParseConst(n.DType, f); err != nil {
				return fmt.Errorf("const value: %v", err)
			}
		default:
			return fmt.Errorf("unexpected %q", f)
		}
	}
	if n.Op == OpParam {
		if n.Index != len(g.Params) {
			return fmt.Errorf("param %d out of order: expected %d", n.Index, len(g.Params))
		}
		_, err = g.AddParam(n.DType, n.Shape, n.Pos)
		return err
	}
	declDT, declShape := n.DType, n.Shape
	v, err := g.Add(n)
	if err != nil {
		return err
	}
	if got := g.Nodes[v]; got.DType != declDT || !got.Shape.Equal(declShape) {
		g.Nodes = g.Nodes[:v]
		return fmt.Errorf("%%%d: recorded type %s%s, inferred %s%s", v, declDT, declShape, got.DType, got.Shape)
	}
	return nil
}

func parseRef(s string) (Value, error) {
	num, ok := strings.CutPrefix(s, "%")
	if !ok {
		return 0, fmt.Errorf("expected %%N, got %q", s)
	}
	v, err := strconv.Atoi(num)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad value reference %q", s)
	}
	return Value(v), nil
}

func parseRefs(s string, limit int) ([]Value, error) {
	var out []Value
	for _, f := range strings.Fields(s) {
		v, err := parseRef(strings.TrimSuffix(f, ","))
		if err != nil {
			return nil, err
		}
		if int(v) >= limit {
			return nil, fmt.Errorf("return of undefined %s", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func parseType(s string) (DType, Shape, error) {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return 0, nil, fmt.Errorf("bad type %q", s)
	}
	dt, err := ParseDType(s[:i])
	if err != nil {
		return 0, nil, err
	}
	dims, err := parseInts(s[i:])
	if err != nil {
		return 0, nil, fmt.Errorf("bad shape %q: %v", s[i:], err)
	}
	return dt, Shape(dims), nil
}

func parseInts(s string) ([]int, error) {
	inner, okL := strings.CutPrefix(s, "[")
	inner, okR := strings.CutSuffix(inner, "]")
	if !okL || !okR {
		return nil, fmt.Errorf("expected [..], got %q", s)
	}
	xs := []int{}
	if inner == "" {
		return xs, nil
	}
	for _, p := range strings.Split(inner, ",") {
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		xs = append(xs, v)
	}
	return xs, nil
}
