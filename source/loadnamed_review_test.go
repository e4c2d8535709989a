package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadNamedWrongPath: a package named by its last element only, as
// users of `gojit dump -func` type it, is not mistaken for a missing Go
// tree, and the error suggests the module's import path.
func TestLoadNamedWrongPath(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":      "module example.com/um\n\ngo 1.26\n",
		"a.go":        "package um\n\nfunc K(x []float64) { x[0] = 1 }\n",
		"kern/k.go":   "package kern\n\nfunc K(x []float64) { x[0] = 2 }\n",
		"zz/readme.1": "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, tt := range []struct{ pattern, want string }{
		{"um", `no package "um": a path whose first element has no dot names a standard package`},
		{"um", "did you mean example.com/um, the module's import path?"},
		{"x/kern", "did you mean example.com/um/kern?"},
		{"nothere", "name the package by its full import path (this module is example.com/um) or by a directory (./nothere)"},
	} {
		_, err := loadNamed(tt.pattern, "K", newConfig(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "is the Go tree installed") {
			t.Errorf("loadNamed(%q): %v, want %q", tt.pattern, err, tt.want)
		}
	}
	for _, pattern := range []string{"example.com/um", "example.com/um/kern", "./kern"} {
		if _, err := loadNamed(pattern, "K", newConfig(nil)); err != nil {
			t.Errorf("loadNamed(%q): %v", pattern, err)
		}
	}
}

// TestLoadRedeclaredElsewhere: a file of the directory that the build
// left out (go run main.go) redeclares the function: both declarations
// are reported, the other one with the likely cause, not only go/types'
// continuation line.
func TestLoadRedeclaredElsewhere(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":     "module example.com/scratch\n\ngo 1.26\n",
		"main.go":    "package main\n\nfunc K(x []float64) { x[0] = 1 }\n\nfunc main() {}\n",
		"scratch.go": "package main\n\nfunc K(x float64) float64 { return x }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := loadRuntimeFunc("main.K", filepath.Join(dir, "main.go"), 3, newConfig(nil))
	var se *Error
	if !errors.As(err, &se) || len(se.Diags) != 2 {
		t.Fatalf("got %v, want two diagnostics", err)
	}
	if d := se.Diags[0]; !strings.HasSuffix(d.Pos.Filename, "main.go") || d.Msg != "other declaration of K" {
		t.Errorf("first diagnostic %v", d)
	}
	if d := se.Diags[1]; !strings.HasSuffix(d.Pos.Filename, "scratch.go") || !strings.HasPrefix(d.Msg, "K redeclared in this block (source reads every file of the directory") {
		t.Errorf("second diagnostic %v", d)
	}
}
