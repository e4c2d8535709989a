package source

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gojit/gojit/internal/llvm"
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
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, future, future); err != nil {
		t.Fatal(err)
	}
	if err := checkFresh(u, "main.K", 8, written); err != nil {
		t.Errorf("a file dated in the future: %v", err)
	}
	if err := os.Chtimes(file, written, written); err != nil {
		t.Fatal(err)
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

// TestStaleBinary builds a program that compiles one of its own functions,
// runs it from another working directory, edits the source and runs the
// same binary again: the edit is ErrStaleSource, and WithFallback runs the
// Go code the binary has.
func TestStaleBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	if !llvm.Available() {
		t.Skip("needs LLVM (cgo)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	main := `package main

import (
	"errors"
	"fmt"

	"github.com/gojit/gojit/source"
)

func Add(x, y []float64) {
	for i := range x {
		x[i] += y[i]
	}
}

func main() {
	x := []float64{1, 2}
	if f, err := source.CompileFunc(Add); err != nil {
		fmt.Println("stale:", errors.Is(err, source.ErrStaleSource))
	} else if _, err := f.Call(x, []float64{10, 20}); err != nil {
		fmt.Println(err)
	}
	f, err := source.CompileFunc(Add, source.WithFallback(), source.WithLogger(nil))
	if err == nil {
		_, err = f.Call(x, []float64{10, 20})
	}
	fmt.Println(x, err)
}
`
	for name, text := range map[string]string{
		"go.mod":  "module example.com/stale\n\ngo 1.26.0\n\nrequire github.com/gojit/gojit v0.0.0\n\nreplace github.com/gojit/gojit => " + root + "\n",
		"go.sum":  string(gosum),
		"main.go": main,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "stale.bin")
	build := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func() string {
		cmd := exec.Command(bin)
		cmd.Dir = t.TempDir() // another working directory
		cmd.Env = append(os.Environ(), "GOJIT_DISABLE_JIT=", "GOJIT_LOG=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, out)
		}
		return string(out)
	}
	if got, want := run(), "[21 42] <nil>\n"; got != want {
		t.Errorf("fresh binary printed %q, want %q", got, want)
	}
	edited := strings.Replace(main, "x[i] += y[i]", "x[i] -= y[i]", 1)
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// Date the build a minute back, so that the edit is after it whatever
	// the file system's time resolution (a file dated in the future would
	// not count).
	built := time.Now().Add(-time.Minute)
	if err := os.Chtimes(bin, built, built); err != nil {
		t.Fatal(err)
	}
	// The binary adds: compiling the edited text would subtract.
	if got, want := run(), "stale: true\n[11 22] <nil>\n"; got != want {
		t.Errorf("after the edit the binary printed %q, want %q", got, want)
	}
}
