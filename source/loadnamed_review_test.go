package source

import (
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
