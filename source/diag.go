package source

import (
	"bytes"
	"fmt"
	"go/token"
	"sort"
	"strings"
)

// A Diagnostic is one problem found in user code: where it is and what it is.
type Diagnostic struct {
	Pos  token.Position // file:line:col in the user's source (Column counts bytes from 1)
	Msg  string         // e.g. "map index: not supported in compiled functions"
	Line string         // the source line at Pos, without its newline ("" if unknown)
}

// String formats d as
//
//	file:line:col: msg
//	    source line
//	        ^
//
// with tabs in the source line kept, so the caret lines up under the column
// (Column counts bytes; the caret is placed by characters).
func (d Diagnostic) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", d.Pos, d.Msg)
	if d.Line != "" {
		b.WriteString("\n\t")
		b.WriteString(d.Line)
		b.WriteString("\n\t")
		col := min(max(d.Pos.Column-1, 0), len(d.Line))
		for _, r := range d.Line[:col] { // one space per character, not per byte
			if r == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('^')
	}
	return b.String()
}

// Error is the error returned for user code that cannot be compiled. It lists
// every problem found, in source order, not only the first.
type Error struct {
	Diags []Diagnostic
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Diags))
	for i, d := range e.Diags {
		parts[i] = d.String()
	}
	return strings.Join(parts, "\n")
}

// sortDiags puts diagnostics in source order (file, line, column) and drops
// exact duplicates.
func sortDiags(ds []Diagnostic) []Diagnostic {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && d == ds[i-1] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// lineAt returns line (1-based) of src without its newline, or "".
func lineAt(src []byte, line int) string {
	if line < 1 {
		return ""
	}
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	return strings.TrimRight(string(src), "\r")
}
