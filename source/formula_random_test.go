package source

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gojit/gojit"
)

// randFormula builds a random float64 formula over columns a, b and c
// together with its meaning as a Go function of the row: the oracle for
// TestFormulaRandom. Every subexpression uses a column, so Go's exact
// constant folding never applies and the Go function's float64 steps are
// exactly what the formula means.
func fRandFormula(r *rand.Rand, depth int) (string, func(a, b, c float64) float64) {
	if depth == 0 || r.IntN(4) == 0 {
		switch r.IntN(3) {
		case 0:
			return "a", func(a, b, c float64) float64 { return a }
		case 1:
			return "b", func(a, b, c float64) float64 { return b }
		}
		return "c", func(a, b, c float64) float64 { return c }
	}
	x, fx := fRandFormula(r, depth-1)
	var y string
	var fy func(a, b, c float64) float64
	if r.IntN(3) == 0 {
		k := []float64{0.5, 2, 3, 1e-3, 10}[r.IntN(5)]
		y, fy = fmt.Sprint(k), func(a, b, c float64) float64 { return k }
	} else {
		y, fy = fRandFormula(r, depth-1)
	}
	op := r.IntN(12)
	unary := op == 4 || op == 5 || op == 6 || op == 9 || op == 10
	if !unary && r.IntN(2) == 0 { // a unary op keeps x, which has a column
		x, y, fx, fy = y, x, fy, fx
	}
	switch op {
	case 0:
		return "(" + x + " + " + y + ")", func(a, b, c float64) float64 { return fx(a, b, c) + fy(a, b, c) }
	case 1:
		return "(" + x + " - " + y + ")", func(a, b, c float64) float64 { return fx(a, b, c) - fy(a, b, c) }
	case 2:
		return x + " * " + y, func(a, b, c float64) float64 { return fx(a, b, c) * fy(a, b, c) }
	case 3:
		return "(" + x + ") / (" + y + ")", func(a, b, c float64) float64 { return fx(a, b, c) / fy(a, b, c) }
	case 4:
		return "-(" + x + ")", func(a, b, c float64) float64 { return -fx(a, b, c) }
	case 5:
		return "math.Abs(" + x + ")", func(a, b, c float64) float64 { return math.Abs(fx(a, b, c)) }
	case 6:
		return "math.Sqrt(" + x + ")", func(a, b, c float64) float64 { return math.Sqrt(fx(a, b, c)) }
	case 7:
		return "max(" + x + ", " + y + ")", func(a, b, c float64) float64 { return max(fx(a, b, c), fy(a, b, c)) }
	case 8:
		return "math.Min(" + x + ", " + y + ")", func(a, b, c float64) float64 { return math.Min(fx(a, b, c), fy(a, b, c)) }
	case 9:
		return "math.Floor(" + x + ")", func(a, b, c float64) float64 { return math.Floor(fx(a, b, c)) }
	case 10:
		return "float64(float32(" + x + "))", func(a, b, c float64) float64 { return float64(float32(fx(a, b, c))) }
	}
	cmp := []string{"<", "<=", ">", ">=", "==", "!="}[r.IntN(6)]
	return "where(" + x + " " + cmp + " " + y + " || c > 5, " + x + ", " + y + ")", func(a, b, c float64) float64 {
		u, v := fx(a, b, c), fy(a, b, c)
		var t bool
		switch cmp {
		case "<":
			t = u < v
		case "<=":
			t = u <= v
		case ">":
			t = u > v
		case ">=":
			t = u >= v
		case "==":
			t = u == v
		default:
			t = u != v
		}
		if t || c > 5 {
			return u
		}
		return v
	}
}

// TestFormulaRandom compiles random formulas and compares every row with
// the Go function each was built with, bit for bit.
func TestFormulaRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 5))
	const rows = 3001
	a, b, c := make([]float64, rows), make([]float64, rows), make([]float64, rows)
	for i := range rows {
		a[i], b[i], c[i] = fRandFloat(r), fRandFloat(r), fRandFloat(r)
	}
	cols := map[string]*gojit.Array{"a": gojit.FromFloat64(a), "b": gojit.FromFloat64(b), "c": gojit.FromFloat64(c)}
	schema := map[string]gojit.DType{"a": gojit.Float64, "b": gojit.Float64, "c": gojit.Float64}
	n := 25
	if testing.Short() {
		n = 5
	}
	for range n {
		src, fn := fRandFormula(r, 4)
		f, err := CompileFormula(src, schema)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out, err := f.Eval(cols)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for i, got := range out.Float64() {
			if want := fn(a[i], b[i], c[i]); fULPDiff(got, want) != 0 {
				t.Fatalf("%s: row %d (a=%v b=%v c=%v) = %v, want %v", src, i, a[i], b[i], c[i], got, want)
			}
		}
	}
}

// FuzzParseFormula checks that the parser and checker never panic and
// that every diagnostic points into the formula with a caret line.
func FuzzParseFormula(f *testing.F) {
	for _, s := range fErrorFormulas {
		f.Add(s)
	}
	for _, c := range fDiffCases {
		f.Add(c.expr)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, cols, err := parseFormula(src, fErrorSchema)
		if err == nil {
			if e == nil || e.untyped != fTyped || len(cols) == 0 {
				t.Fatalf("%q: accepted with result %+v, columns %v", src, e, cols)
			}
			return
		}
		fe, ok := err.(*Error)
		if !ok || len(fe.Diags) == 0 {
			t.Fatalf("%q: error %T %v, want *Error with diagnostics", src, err, err)
		}
		for _, d := range fe.Diags {
			if d.Msg == "" || d.Pos.Filename != "formula" || d.Pos.Line < 1 || d.Pos.Column < 1 {
				t.Fatalf("%q: malformed diagnostic %+v", src, d)
			}
			if utf8.ValidString(src) && !strings.Contains(src, "\r") && d.Line != "" && !strings.Contains(src, d.Line) {
				t.Fatalf("%q: diagnostic line %q is not from the formula", src, d.Line)
			}
		}
	})
}
