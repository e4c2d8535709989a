package pipeline

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestDocsExample builds and runs the complete example of
// docs/pipeline.md, so the documentation cannot drift from the API. The
// example is compiled through a build overlay as package main inside the
// module, without writing into the source tree.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "pipeline.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "```go\npackage main\n")
	if start < 0 {
		t.Fatal("docs/pipeline.md has no complete example (a ```go block with package main)")
	}
	code := text[start+len("```go\n"):]
	code = code[:strings.Index(code, "```")]

	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	virtual := filepath.Join(root, "pipeline", "internal", "docexample", "main.go")
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{virtual: src}})
	ov := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "example")
	build := exec.Command("go", "build", "-overlay", ov, "-o", bin, "./pipeline/internal/docexample")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the example of docs/pipeline.md does not build: %v\n%s", err, out)
	}
	run := exec.Command(bin)
	run.Dir = tmp
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the example of docs/pipeline.md fails: %v\n%s", err, out)
	}
	wants := []string{"[64 3 224 224] [64 1000]", "[100 3 224 224] [100]", "RandomHorizontalFlip"}
	if gojit.LLVMVersion() != "" {
		// Without LLVM (no cgo) the loader runs the plain Go ops.
		wants = append(wants, "compiled: true", "folded")
	}
	for _, want := range wants {
		if !strings.Contains(string(out), want) {
			t.Errorf("the example's output lacks %q:\n%s", want, out)
		}
	}
}
