package source

import (
	"go/token"
	"strings"
	"testing"
)

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Pos: token.Position{Filename: "a.go", Line: 3, Column: 7}, Msg: "map index: not supported in compiled functions", Line: "\ts += m[k]"},
			"a.go:3:7: map index: not supported in compiled functions\n\t\ts += m[k]\n\t\t     ^"},
		// é is two bytes: column 13 (bytes) is the 12th character.
		{Diagnostic{Pos: token.Position{Filename: "a.go", Line: 1, Column: 13}, Msg: "m", Line: `x := "é" + y`},
			"a.go:1:13: m\n\tx := \"é\" + y\n\t           ^"},
		{Diagnostic{Pos: token.Position{Filename: "a.go", Line: 1, Column: 1}, Msg: "no line"}, "a.go:1:1: no line"},
		// A column past the end of the line puts the caret after it.
		{Diagnostic{Pos: token.Position{Filename: "a.go", Line: 1, Column: 9}, Msg: "m", Line: "ab"}, "a.go:1:9: m\n\tab\n\t  ^"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("got\n%s\nwant\n%s", got, tt.want)
		}
	}
	e := &Error{Diags: []Diagnostic{tests[0].d, tests[2].d}}
	if got := e.Error(); got != tests[0].want+"\n"+tests[2].want {
		t.Errorf("Error() = %q", got)
	}
	if lineAt([]byte("a\r\nbb\nccc"), 1) != "a" || lineAt([]byte("a\nbb\nccc"), 3) != "ccc" || lineAt([]byte("a"), 2) != "" || lineAt(nil, 0) != "" {
		t.Error("lineAt")
	}
	if !strings.Contains(tests[1].want, "é") {
		t.Fatal("test table lost its non-ASCII character")
	}
}
