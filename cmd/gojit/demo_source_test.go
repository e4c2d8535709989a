package main

import (
	"os"
	"strings"
	"testing"
)

// TestDemoGoSource: the loop compiled from source gives Go's results bit
// for bit (or is skipped, without LLVM), and the text the demo compiles is
// the Go function it is compared with.
func TestDemoGoSource(t *testing.T) {
	d, err := demoGoSource()
	if err != nil {
		t.Fatal(err)
	}
	if d.Skipped == "" && (d.Mismatches != 0 || d.CompiledNs <= 0 || d.GoNs <= 0) {
		t.Fatalf("%+v", d)
	}
	file, err := os.ReadFile("demo_source.go")
	if err != nil {
		t.Fatal(err)
	}
	body := func(text, header string) string {
		i := strings.Index(text, header)
		if i < 0 {
			t.Fatalf("%q not found", header)
		}
		rest := text[i+len(header):]
		return rest[:strings.Index(rest, "\n}\n")]
	}
	if g, s := body(string(file), "func demoNewtonGo(x, out []float64) {"), body(demoNewtonSrc, "func Sqrts(x, out []float64) {"); g != s {
		t.Fatalf("demoNewtonGo and demoNewtonSrc differ:\n%s\n---\n%s", g, s)
	}
}
