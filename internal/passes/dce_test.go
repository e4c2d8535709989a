package passes

import (
	"testing"

	"github.com/gojit/gojit/internal/ir"
)

func TestDCE(t *testing.T) {
	runCases(t, DCE, []rewriteCase{
		{
			name: "dead nodes go, unused parameters stay, positions follow",
			in: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = exp %0 : f32[4]  @ a.go:1",
				"%2 = param 1 : f32[4]",
				"%3 = neg %0 : f32[4]  @ a.go:2",
				"%4 = log %1 : f32[4]  @ a.go:3",
				"return %3"),
			want: graphText(
				"%0 = param 0 : f32[4]",
				"%1 = param 1 : f32[4]",
				"%2 = neg %0 : f32[4]",
				"return %2"),
		},
	})
	g := mustParse(t, graphText(
		"%0 = param 0 : f32[4]",
		"%1 = exp %0 : f32[4]  @ a.go:1",
		"%2 = neg %0 : f32[4]  @ a.go:2",
		"return %2, %0"))
	out, err := DCE(g)
	if err != nil {
		t.Fatal(err)
	}
	want := graphText(
		"%0 = param 0 : f32[4]",
		"%1 = neg %0 : f32[4]  @ a.go:2",
		"return %1, %0")
	if got := ir.Print(out, true); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}
