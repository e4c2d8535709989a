package ir

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Parse reads the text form written by Print. It is meant for tests and
// tools: every node is checked as it is added, so the result is a valid graph.
func Parse(text string) (*Graph, error) {
	p := &lineParser{lines: strings.Split(text, "\n")}
	line, ok := p.next()
	if !ok {
		return nil, fmt.Errorf("ir: missing closing brace")
	}
	if line != "graph {" {
		return nil, p.errf("expected %q, got %q", "graph {", line)
	}
	g := &Graph{}
	closer, err := p.body(g)
	if err != nil {
		return nil, err
	}
	if closer != "}" {
		return nil, p.errf("unexpected %q at the end of the graph", closer)
	}
	if _, more := p.next(); more {
		return nil, p.errf("text after closing brace")
	}
	if err := Verify(g); err != nil {
		return nil, err
	}
	return g, nil
}

// lineParser reads the text form a line at a time; regions of
// control-flow ops nest (control.go).
type lineParser struct {
	lines []string
	ln    int // lines consumed; the current line is lines[ln-1]
}

// next returns the next line that is neither blank nor a comment, trimmed.
func (p *lineParser) next() (string, bool) {
	for p.ln < len(p.lines) {
		line := strings.TrimSpace(p.lines[p.ln])
		p.ln++
		if line != "" && !strings.HasPrefix(line, "//") {
			return line, true
		}
	}
	return "", false
}

func (p *lineParser) errf(format string, args ...any) error {
	return fmt.Errorf("ir: line %d: %s", p.ln, fmt.Sprintf(format, args...))
}

// parseError is an error that already names its line.
type parseError struct{ err error }

func (e *parseError) Error() string { return e.err.Error() }
func (e *parseError) Unwrap() error { return e.err }

// body reads nodes and the return line into g up to a closing line, "}"
// or "} {" (another region follows), which it returns.
func (p *lineParser) body(g *Graph) (string, error) {
	for {
		line, ok := p.next()
		if !ok {
			return "", &parseError{fmt.Errorf("ir: missing closing brace")}
		}
		if line == "}" || line == "} {" {
			return line, nil
		}
		if rest, ok := strings.CutPrefix(line, "return"); ok {
			outs, err := parseRefs(rest, len(g.Nodes))
			if err != nil {
				return "", &parseError{p.errf("%v", err)}
			}
			g.Outputs = outs
			continue
		}
		if head, ok := strings.CutSuffix(line, " {"); ok {
			at := p.ln
			if err := p.control(g, head); err != nil {
				var pe *parseError
				if errors.As(err, &pe) {
					return "", err // from a nested line, which it names
				}
				return "", &parseError{fmt.Errorf("ir: line %d: %v", at, err)}
			}
			continue
		}
		if err := parseNode(g, line); err != nil {
			return "", &parseError{p.errf("%v", err)}
		}
	}
}

// nodeLine splits the line of node number len(g.Nodes), "%N = body : typ
// @pos", into a node holding its position, and body and typ; what names
// the type ("type", or "(types)" for a control-flow op) goes in the error
// for a missing one.
func nodeLine(g *Graph, line, what string) (n Node, body, typ string, err error) {
	if b, pos, ok := strings.Cut(line, "@"); ok {
		line, n.Pos = strings.TrimSpace(b), strings.TrimSpace(pos)
	}
	lhs, rhs, ok := strings.Cut(line, "=")
	if !ok {
		return n, "", "", fmt.Errorf("expected %%N = op")
	}
	id, err := parseRef(strings.TrimSpace(lhs))
	if err != nil {
		return n, "", "", err
	}
	if int(id) != len(g.Nodes) {
		return n, "", "", fmt.Errorf("node %%%d out of order: expected %%%d", id, len(g.Nodes))
	}
	body, typ, ok = strings.Cut(rhs, " : ")
	if !ok {
		return n, "", "", fmt.Errorf("missing \" : %s\"", what)
	}
	return n, body, strings.TrimSpace(typ), nil
}

func parseNode(g *Graph, line string) error {
	n, body, typ, err := nodeLine(g, line, "type")
	if err != nil {
		return err
	}
	if n.DType, n.Shape, err = parseType(typ); err != nil {
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
		case n.Op == OpParam || n.Op == OpGet:
			if n.Index, err = strconv.Atoi(f); err != nil {
				return fmt.Errorf("%s index: %v", n.Op, err)
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
