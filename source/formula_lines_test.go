package source

import (
	"errors"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestFormulaLineBreaks: a formula broken across lines before an operator
// (as written in a config file) compiles as if on one line, and errors in
// it name the original line and column.
func TestFormulaLineBreaks(t *testing.T) {
	schema := map[string]gojit.DType{"price": gojit.Float64, "qty": gojit.Float64, "n": gojit.Int64}
	f, err := CompileFormula("price\n\t* qty\r\n\t- 1", schema, WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	price, qty := []float64{1.5, 2, -3}, []float64{4, 0.25, 8}
	out, err := f.Eval(map[string]*gojit.Array{"price": gojit.FromFloat64(price), "qty": gojit.FromFloat64(qty)})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Data().([]float64)
	for i := range price {
		if want := price[i]*qty[i] - 1; got[i] != want {
			t.Errorf("row %d: %v, want %v", i, got[i], want)
		}
	}

	for _, tt := range []struct {
		src        string
		line, col  int
		msg, caret string
	}{
		{"price\n\t* n", 2, 2, "price * n: mismatched types float64 and int64", "\t\t^"},
		{"price *\n  nope", 2, 3, "unknown column nope", "\t  ^"},
		{"price\n*\n)", 3, 1, "syntax error", "\t^"},
		{"price // per unit\n* qty", 2, 1, "syntax error", "\t^"}, // a comment keeps Go's line rule
	} {
		_, err := CompileFormula(tt.src, schema)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("%q: %v, want *Error", tt.src, err)
			continue
		}
		d := fe.Diags[0]
		lines := strings.Split(d.String(), "\n")
		if d.Pos.Line != tt.line || d.Pos.Column != tt.col || !strings.Contains(d.Msg, tt.msg) || lines[len(lines)-1] != tt.caret {
			t.Errorf("%q: got %d:%d %q caret %q, want %d:%d %q caret %q", tt.src, d.Pos.Line, d.Pos.Column, d.Msg, lines[len(lines)-1], tt.line, tt.col, tt.msg, tt.caret)
		}
	}
}
