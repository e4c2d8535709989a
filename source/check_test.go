package source

import (
	"errors"
	"flag"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/errors")

// checkSource loads function F of the file at path through the loader for
// source text and runs the checker; it returns the diagnostics.
func checkSource(t *testing.T, path string) ([]Diagnostic, error) {
	t.Helper()
	return checkSourceFunc(t, path, "F")
}

// checkSourceFunc is checkSource for the function name.
func checkSourceFunc(t *testing.T, path, name string) ([]Diagnostic, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u, err := loadSource(string(src), name, newConfig([]Option{WithFilename(path)}))
	if err == nil {
		err = check(u)
	}
	var e *Error
	if !errors.As(err, &e) {
		return nil, err
	}
	return e.Diags, nil
}

var diagHead = regexp.MustCompile(`^testdata/errors/\w+\.go:(\d+):(\d+): \S.*$`)

// verifyDiags checks what the golden files cannot show by themselves: every
// diagnostic has the file:line:col head, the source line at that line, a
// caret under the column, and they come in source order.
func verifyDiags(t *testing.T, src []byte, ds []Diagnostic) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	for i, d := range ds {
		parts := strings.Split(d.String(), "\n")
		if len(parts) != 3 || !diagHead.MatchString(parts[0]) {
			t.Errorf("diagnostic %d is not file:line:col: msg + line + caret:\n%s", i, d)
			continue
		}
		if got, want := strings.TrimPrefix(parts[1], "\t"), lines[d.Pos.Line-1]; got != want {
			t.Errorf("diagnostic %d shows line %q, want %q", i, got, want)
		}
		caret := strings.TrimPrefix(parts[2], "\t")
		if !strings.HasSuffix(caret, "^") || len(caret) != utf8.RuneCountInString(lines[d.Pos.Line-1][:d.Pos.Column-1])+1 {
			t.Errorf("diagnostic %d: caret %q is not under column %d", i, caret, d.Pos.Column)
		}
		if i > 0 {
			p := ds[i-1].Pos
			if p.Line > d.Pos.Line || p.Line == d.Pos.Line && p.Column > d.Pos.Column {
				t.Errorf("diagnostic %d (%s) comes after %d (%s)", i, d.Pos, i-1, p)
			}
		}
	}
}

func TestCheckGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.go")
	if len(files) == 0 {
		t.Fatal("no inputs in testdata/errors")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ds, err := checkSource(t, path)
			if err != nil {
				t.Fatalf("want diagnostics, got %v", err)
			}
			if len(ds) == 0 {
				t.Fatal("no diagnostics")
			}
			src, _ := os.ReadFile(path)
			verifyDiags(t, src, ds)
			got := (&Error{Diags: ds}).Error() + "\n"
			golden := strings.TrimSuffix(path, ".go") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestCheckGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ from %s (-update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestCheckAccepts makes sure the checker does not reject what the lowering
// compiles: every construct of testdata/ok is supported.
func TestCheckAccepts(t *testing.T) {
	files, _ := filepath.Glob("testdata/ok/*.go")
	if len(files) == 0 {
		t.Fatal("no inputs in testdata/ok")
	}
	for _, path := range files {
		for _, name := range []string{"F", "G", "H"} {
			ds, err := checkSourceFunc(t, path, name)
			if err != nil || len(ds) > 0 {
				t.Errorf("%s: %s: %v%s", path, name, err, (&Error{Diags: ds}).Error())
			}
		}
	}
}

// TestCheckRange checks the parallel-loop marker where the package being
// compiled is package source itself (a stand-in module with the same path,
// declaring Range): accepted as a range clause, rejected elsewhere.
func TestCheckRange(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/gojit/gojit\n\ngo 1.26\n")
	write("source/range.go", "package source\n\nfunc Range(n int) int { return n }\n")
	write("source/k.go", `package source

func K(x []float64) float64 {
	s := 0.0
	for i := range Range(len(x)) {
		s += x[i]
	}
	n := Range(3)
	f := Range
	return s + float64(n+f(1))
}

func Ok(x []float64) {
	for i := range Range(len(x)) {
		x[i]++
	}
}
`)
	c := newConfig(nil)
	u, err := loadNamed(filepath.Join(dir, "source"), "Ok", c)
	if err != nil {
		t.Fatal(err)
	}
	if u.fn.Pkg.Pkg.Path() != sourcePath {
		t.Fatalf("package path %s, want %s", u.fn.Pkg.Pkg.Path(), sourcePath)
	}
	if err := check(u); err != nil {
		t.Errorf("Ok: %v", err)
	}
	u, err = loadNamed(filepath.Join(dir, "source"), "K", c)
	if err != nil {
		t.Fatal(err)
	}
	err = check(u)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("K: %v, want diagnostics", err)
	}
	var got []string
	for _, d := range e.Diags {
		got = append(got, strings.TrimPrefix(d.Pos.String(), filepath.Join(dir, "source")+"/")+": "+d.Msg)
	}
	want := []string{
		"k.go:8:7: Range outside the range clause of a for loop: not supported in compiled functions; write for i := range Range(n)",
		"k.go:9:2: function-typed variable f (func(n int) int): not supported in compiled functions",
		"k.go:9:7: function value Range: not supported in compiled functions",
		"k.go:10:23: call of a function value: not supported in compiled functions; call a top-level function by name",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("K:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckStdNoPanic loads and checks every top-level function of a few
// standard packages: whatever they contain, the loader and the checker
// answer with a unit or an error, never a panic, and each diagnostic has a
// position in the package and a source line.
func TestCheckStdNoPanic(t *testing.T) {
	c := newConfig(nil)
	for _, pkg := range []string{"math", "unicode/utf8", "strconv", "sort", "math/bits"} {
		dir, err := resolveImport(".", pkg, true)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := parseDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		accepted, rejected := 0, 0
		for _, f := range pd.pkgFiles(0) {
			for _, d := range f.file().Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Body == nil || fd.Name.Name == "init" {
					continue
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s.%s: panic: %v", pkg, fd.Name.Name, r)
						}
					}()
					u, err := loadNamed(pkg, fd.Name.Name, c)
					if err == nil {
						err = check(u)
					}
					var e *Error
					switch {
					case err == nil:
						accepted++
					case errors.As(err, &e):
						rejected++
						for _, d := range e.Diags {
							if !strings.HasPrefix(d.Pos.Filename, dir) || d.Line == "" {
								t.Errorf("%s.%s: diagnostic without a position in the package or a line: %s", pkg, fd.Name.Name, d)
							}
						}
					default:
						t.Errorf("%s.%s: %v", pkg, fd.Name.Name, err)
					}
				}()
			}
		}
		t.Logf("%s: %d functions accepted, %d rejected", pkg, accepted, rejected)
		if accepted == 0 && pkg == "math" {
			t.Errorf("no function of package math is accepted")
		}
	}
}
