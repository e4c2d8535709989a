package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckFresh: a unit loaded from a file is fresh against a binary built
// after the file was written and at the line the file declares; a file
// modified after the build, or a binary line outside the declaration, is
// ErrStaleSource naming the file.
func TestCheckFresh(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	src := "//go:build ignore\n\npackage main\n\n// K doubles.\nfunc K(x []float64,\n\ty float64) float64 {\n\treturn x[0] * y\n}\n\nfunc main() {}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	written := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, written, written); err != nil {
		t.Fatal(err)
	}
	u, err := loadRuntimeFunc("main.K", file, 6, newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{6, 7, 8, 9} { // the func line (-N) or the first statement's (optimized)
		if err := checkFresh(u, "main.K", line, written.Add(time.Minute)); err != nil {
			t.Errorf("line %d, built after the edit: %v", line, err)
		}
	}
	if err := checkFresh(u, "main.K", 8, time.Time{}); err != nil {
		t.Errorf("no executable time: %v", err)
	}
	for _, tt := range []struct {
		line  int
		built time.Time
		want  string
	}{
		{8, written.Add(-time.Minute), "a.go was modified at"},
		{3, written.Add(time.Minute), "declares it at lines 6-9"},
		{12, time.Time{}, "declares it at lines 6-9"},
	} {
		err := checkFresh(u, "main.K", tt.line, tt.built)
		if !errors.Is(err, ErrStaleSource) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("line %d built %v: got %v, want ErrStaleSource with %q", tt.line, tt.built, err, tt.want)
		}
	}
}

// TestCompileFuncFresh: CompileFunc of a kernel of this package passes the
// checks (the test binary was built after its files).
func TestCompileFuncFresh(t *testing.T) {
	if _, err := loadFunc(saxpy, newConfig(nil)); err != nil {
		t.Fatal(err)
	}
}
