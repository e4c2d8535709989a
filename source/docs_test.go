package source

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// between returns the text of doc between <!-- tag --> and <!-- /tag -->.
func between(t *testing.T, doc, tag string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "<!-- "+tag+" -->")
	if !ok {
		t.Fatalf("docs/source.md has no <!-- %s --> section", tag)
	}
	body, _, ok := strings.Cut(rest, "<!-- /"+tag+" -->")
	if !ok {
		t.Fatalf("docs/source.md: <!-- %s --> is not closed", tag)
	}
	return body
}

// TestDocsMathTable keeps the table of math functions in docs/source.md
// equal to mathFuncs, the one the checker uses.
func TestDocsMathTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/source.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `math\\.(\\w+)` \\| (.+) \\|$")
	got := map[string]string{}
	for _, line := range strings.Split(between(t, string(doc), "math-table"), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			got[m[1]] = m[2]
		}
	}
	for name, becomes := range mathFuncs {
		if got[name] != becomes {
			t.Errorf("docs: math.%s becomes %q, check.go says %q", name, got[name], becomes)
		}
	}
	for name := range got {
		if _, ok := mathFuncs[name]; !ok {
			t.Errorf("docs list math.%s, which check.go does not accept", name)
		}
	}
}

// TestDocsErrorExample checks that the error example of docs/source.md is
// what the checker prints for the code shown.
func TestDocsErrorExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/source.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(?:go)?\n(.*?)```").FindAllStringSubmatch(between(t, string(doc), "error-example"), -1)
	if len(blocks) != 2 {
		t.Fatalf("error example: %d code blocks, want the code and the errors", len(blocks))
	}
	u, err := loadSource(blocks[0][1], "Count", newConfig([]Option{WithFilename("count.go")}))
	if err == nil {
		err = check(u)
	}
	if err == nil {
		t.Fatal("the example compiles without errors")
	}
	if got, want := err.Error()+"\n", blocks[1][1]; got != want {
		t.Errorf("docs show\n%s\nthe checker prints\n%s", want, got)
	}
}
