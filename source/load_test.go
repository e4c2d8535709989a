package source

import (
	"errors"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFunc(t *testing.T) {
	c := newConfig(nil)
	u, err := loadFunc(normK, c)
	if err != nil {
		t.Fatal(err)
	}
	if u.fn.Name() != "normK" || u.decl.Name.Name != "normK" {
		t.Fatalf("fn %s decl %s", u.fn.Name(), u.decl.Name.Name)
	}
	var names []string
	for _, fd := range u.funcs {
		names = append(names, fd.Name.Name)
	}
	if got := strings.Join(names, ","); got != "normK,sq" {
		t.Errorf("funcs = %s, want normK,sq", got)
	}
	if err := check(u); err != nil {
		t.Errorf("check: %v", err)
	}
	if unrelatedK(map[string]int{"a": 1}) != 1 || u.pkg.Func("unrelatedK") != nil {
		t.Errorf("unrelatedK was built, though normK does not call it")
	}
	t.Logf("%s", u.fn)
}

func TestLoadFuncErrors(t *testing.T) {
	c := newConfig(nil)
	tests := []struct {
		fn   any
		want string
	}{
		{func(x float64) float64 { return x }, "function literal (closure)"},
		{(&strings.Builder{}).Len, "method value"},
		{(*strings.Builder).Len, "is a method"},
		{nil, "needs a function"},
		{3, "needs a function"},
		{(func())(nil), "non-nil"},
	}
	for _, tt := range tests {
		_, err := loadFunc(tt.fn, c)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadFunc(%T): %v, want %q", tt.fn, err, tt.want)
		}
	}
	_, err := loadFunc(strings.ToUpper, c)
	if err != nil {
		t.Logf("std function: %v", err)
	}
	var e *Error
	if errors.As(err, &e) {
		t.Logf("std: %v", e)
	}
}

func TestLoadRuntimeFuncNoSource(t *testing.T) {
	_, err := loadRuntimeFunc("example.com/gone.Kernel", "/nonexistent/gone/kernel.go", 12, newConfig(nil))
	if !errors.Is(err, ErrNoSource) || !strings.Contains(err.Error(), "source.Compile") {
		t.Errorf("err = %v, want ErrNoSource suggesting source.Compile", err)
	}
	for _, tt := range []struct{ full, want string }{
		{"example.com/p.F[...]", "generic"},
		{"example.com/p.(*T).M-fm", "method value"},
		{"example.com/p.F.func1", "closure"},
		{"example.com/p.glob..func1", "closure"},
	} {
		_, err := loadRuntimeFunc(tt.full, "/nonexistent.go", 1, newConfig(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.full, err, tt.want)
		}
	}
}

func TestLoadNamed(t *testing.T) {
	c := newConfig(nil)
	for _, pattern := range []string{".", sourcePath} {
		u, err := loadNamed(pattern, "saxpyK", c)
		if err != nil {
			t.Fatalf("loadNamed(%q): %v", pattern, err)
		}
		if u.fn.Name() != "saxpyK" || u.fn.Pkg.Pkg.Path() != sourcePath {
			t.Errorf("loadNamed(%q) = %s in %s", pattern, u.fn.Name(), u.fn.Pkg.Pkg.Path())
		}
	}
	u, err := loadNamed("math", "Hypot", c)
	if err != nil {
		t.Fatalf("loadNamed(math, Hypot): %v", err)
	}
	if u.fn.Pkg.Pkg.Path() != "math" {
		t.Errorf("math.Hypot loaded in %s", u.fn.Pkg.Pkg.Path())
	}
	_, err = loadNamed(".", "saxpyk", c)
	if err == nil || !strings.Contains(err.Error(), "no function saxpyk") || !strings.Contains(err.Error(), "did you mean saxpyK") {
		t.Errorf("missing function: %v, want a suggestion of saxpyK", err)
	}
	if _, err := loadNamed("example.invalid/nothing/here", "F", c); err == nil {
		t.Error("unknown package: no error")
	}
}

func TestLoadGenericRejected(t *testing.T) {
	_, err := loadSource("package p\n\nfunc G[T int | float64](x []T) T { return x[0] }\n", "G", newConfig(nil))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "generic function G: not supported") {
		t.Errorf("err = %v, want a generic-function diagnostic", err)
	}
}

func TestClosest(t *testing.T) {
	names := []string{"saxpyK", "normK", "sq", "Saxpy2", "unrelated"}
	if got := strings.Join(closest("saxpy", names, 3), ","); got != "Saxpy2,saxpyK" {
		t.Errorf("closest = %s", got)
	}
	if got := closest("zzzzzz", names, 3); len(got) != 0 {
		t.Errorf("closest(zzzzzz) = %v, want none", got)
	}
}

// TestUnrelatedTypeErrors: a type error in a function the compiled one does
// not call is not reported, even when a local name matches that function
// (which makes the loader keep it at first).
func TestUnrelatedTypeErrors(t *testing.T) {
	src := `package p

func F(x []float64) float64 {
	broken := 2.0 // the same name as the broken function below
	return x[0] * broken
}

func broken() int { return "no" }
`
	u, err := loadSource(src, "F", newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := check(u); err != nil {
		t.Fatal(err)
	}
	if u.pkg.Func("broken") != nil {
		t.Error("broken was built")
	}
	src2 := strings.Replace(src, "return x[0] * broken", "return x[0] * broken * float64(g())", 1) + "\nfunc g() int { return broken() }\n"
	_, err = loadSource(src2, "F", newConfig(nil))
	if err == nil || !strings.Contains(err.Error(), "<source>:8:28: cannot use \"no\"") {
		t.Errorf("error in a called function: %v, want it reported at 8:28", err)
	}
}

func TestUnitKey(t *testing.T) {
	base := `package p

const k = 2

func F(x []float64) float64 { return g(x[0]) * k }

func g(v float64) float64 { return v + 1 }

func h(v float64) float64 { return v - 1 }
`
	key := func(src string) string {
		t.Helper()
		u, err := loadSource(src, "F", newConfig(nil))
		if err != nil {
			t.Fatal(err)
		}
		return u.key
	}
	k0 := key(base)
	if k0 == "" {
		t.Fatal("empty key")
	}
	same := []string{
		strings.Replace(base, "v - 1", "v - 2", 1),                       // h is not called
		strings.Replace(base, "package p\n", "package p\n\n// doc\n", 1), // positions move
		base + "\nfunc extra() {}\n",
	}
	for i, s := range same {
		if key(s) != k0 {
			t.Errorf("same[%d]: key changed", i)
		}
	}
	differ := []string{
		strings.Replace(base, "v + 1", "v + 3", 1),             // g is called
		strings.Replace(base, "const k = 2", "const k = 3", 1), // a constant's value
		strings.Replace(base, "* k }", "* k * k }", 1),
	}
	for i, s := range differ {
		if key(s) == k0 {
			t.Errorf("differ[%d]: key unchanged", i)
		}
	}
}

// TestDirCacheInvalidation: a second load reuses the parse; editing a file
// (size or modification time) makes the next load parse again.
func TestDirCacheInvalidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("k.go", "package m\n\nfunc F(x []float64) float64 { return x[0] }\n")
	write("k_test.go", "package m\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n\nfunc T(x []float64) float64 { return x[1] + F(x) }\n")
	c := newConfig(nil)
	u1, err := loadNamed(dir, "F", c)
	if err != nil {
		t.Fatal(err)
	}
	pd1, _ := parseDir(dir)
	u2, err := loadNamed(dir, "T", c) // a function of the _test.go file
	if err != nil {
		t.Fatal(err)
	}
	if u2.fn.Pkg.Pkg.Path() != "example.com/m" || len(u2.funcs) != 2 {
		t.Errorf("package path %s, %d functions; want example.com/m and T, F", u2.fn.Pkg.Pkg.Path(), len(u2.funcs))
	}
	if pd2, _ := parseDir(dir); pd2 != pd1 {
		t.Error("second load parsed the directory again")
	}
	write("k.go", "package m\n\nfunc F(x []float64) float64 { return x[0] + x[1] }\n")
	u3, err := loadNamed(dir, "F", c)
	if err != nil {
		t.Fatal(err)
	}
	if pd3, _ := parseDir(dir); pd3 == pd1 {
		t.Error("edited file: the cached parse was reused")
	}
	if u3.key == u1.key {
		t.Error("edited function: same key")
	}
}

func TestParseCacheBounded(t *testing.T) {
	pc := newParseCache(3)
	parses := 0
	get := func(dir string) {
		pc.get(dir, "sig", func() (*parsedDir, error) { parses++; return &parsedDir{dir: dir}, nil })
	}
	for _, d := range []string{"a", "b", "c", "a", "d", "a", "b"} {
		get(d)
	}
	// a, b, c parsed; a hit; d evicts b (least recent); a hit; b parsed again.
	if parses != 5 || pc.len() != 3 {
		t.Errorf("parses = %d, entries = %d; want 5 and 3", parses, pc.len())
	}
}

// TestLoadConcurrent loads functions of one package from several goroutines
// (run with -race): the parse cache and the shared ASTs must hold.
func TestLoadConcurrent(t *testing.T) {
	fns := []any{saxpyK, normK, clampK, smoothK}
	names := []string{"saxpyK", "normK", "clampK", "smoothK"}
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		go func() {
			u, err := loadFunc(fns[i%4], newConfig(nil))
			if err == nil && u.fn.Name() != names[i%4] {
				err = errors.New("loaded " + u.fn.Name() + ", want " + names[i%4])
			}
			if err == nil {
				err = check(u)
			}
			errs <- err
		}()
	}
	for i := 0; i < 16; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestMathStub keeps the embedded declarations of package math equal to the
// real package: every constant's type and exact value, every function's
// signature; and every function of mathFuncs is declared.
func TestMathStub(t *testing.T) {
	l := &loader{pkgs: map[string]*lpkg{}}
	real, err := l.pkg(&lpkg{dir: "."}, "math")
	if err != nil {
		t.Fatal(err)
	}
	pd, err := parseDir(mathStubDir)
	if err != nil {
		t.Fatal(err)
	}
	stub := newLpkg("math", mathStubDir, pd.files, false)
	for _, p := range []*lpkg{real, stub} {
		for name := range p.index {
			l.need(p, name)
		}
		l.closure()
		if errs := l.typecheck(p, nil); len(errs) > 0 {
			t.Fatalf("%s: %v", p.dir, errs)
		}
	}
	scope := stub.tpkg.Scope()
	for _, name := range scope.Names() {
		s, r := scope.Lookup(name), real.tpkg.Scope().Lookup(name)
		if r == nil {
			t.Errorf("stub declares %s, math does not", name)
			continue
		}
		if got, want := types.ObjectString(s, nil), types.ObjectString(r, nil); got != want {
			t.Errorf("stub: %s, math: %s", got, want)
		}
		if sc, ok := s.(*types.Const); ok && sc.Val().ExactString() != r.(*types.Const).Val().ExactString() {
			t.Errorf("%s = %s in the stub, %s in math", name, sc.Val().ExactString(), r.(*types.Const).Val().ExactString())
		}
	}
	for name := range mathFuncs {
		if scope.Lookup(name) == nil {
			t.Errorf("stub lacks math.%s", name)
		}
	}
	// Without the Go tree, code compiled from text still imports math.
	defer func(g string) { goroot = g }(goroot)
	goroot = t.TempDir()
	u, err := loadSource("package p\n\nimport \"math\"\n\nfunc F(x float64) float64 { return math.Sqrt(x) * math.Pi }\n", "F", newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := check(u); err != nil {
		t.Fatal(err)
	}
	_, err = loadSource("package p\n\nimport \"strings\"\n\nfunc F() int { return len(strings.ToUpper(\"a\")) }\n", "F", newConfig(nil))
	if err == nil || !strings.Contains(err.Error(), "is the Go tree installed") {
		t.Errorf("strings without the Go tree: %v", err)
	}
}

// TestLoadModuleImports: a kernel that uses a type and a constant of
// another package of its module (one whose name the path does not give),
// and a package of another module found through go list.
func TestLoadModuleImports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("unit-lib.v2/units.go", "package units\n\nimport \"os\"\n\ntype Meters float64\n\nconst Scale = 3\n\nvar Home = os.Getenv(\"HOME\") // not needed by the kernel\n")
	write("k/k.go", `package k

import (
	"fmt"
	"math"

	"example.com/m/unit-lib.v2"
)

func F(x []units.Meters) units.Meters {
	s := units.Meters(0)
	for _, v := range x {
		s += v * units.Scale
	}
	return units.Meters(math.Abs(float64(s)))
}

func Print(x []float64) { fmt.Println(x) }
`)
	u, err := loadNamed(filepath.Join(dir, "k"), "F", newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := check(u); err != nil {
		t.Errorf("check: %v", err)
	}
	var imported []string
	for _, p := range u.pkg.Pkg.Imports() {
		imported = append(imported, p.Path())
	}
	if got := strings.Join(imported, ","); got != "example.com/m/unit-lib.v2,math" && got != "math,example.com/m/unit-lib.v2" {
		t.Errorf("imports %s, want math and example.com/m/unit-lib.v2 only (not fmt)", got)
	}

	// A package of another module (here a dependency of gojit's) resolves
	// through go list -find.
	d, err := resolveImport(".", "golang.org/x/tools/go/ssa", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "doc.go")); err != nil {
		t.Errorf("golang.org/x/tools/go/ssa resolved to %s: %v", d, err)
	}
	if _, err := resolveImport(".", "golang.org/x/tools/go/ssa", true); err == nil {
		t.Error("code compiled from text imported a non-std package")
	}
}

// TestLoadSyntaxErrors: a syntax error in another file of the package does
// not stop a function from loading; one inside the function is reported.
func TestLoadSyntaxErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/s\n\ngo 1.26\n")
	write("k.go", "package s\n\nfunc F(x []float64) float64 { return x[0] }\n\nfunc G(x []float64) float64 {\n\treturn x[0] + )\n}\n")
	write("broken.go", "package s\n\nfunc H( {\n")
	u, err := loadNamed(dir, "F", newConfig(nil))
	if err != nil {
		t.Fatalf("F: %v", err)
	}
	if err := check(u); err != nil {
		t.Errorf("F: %v", err)
	}
	_, err = loadNamed(dir, "G", newConfig(nil))
	if err == nil || !strings.Contains(err.Error(), "k.go:6:") {
		t.Errorf("G: %v, want the syntax error at k.go:6", err)
	}
	t.Logf("G: %v", err)
}

// TestLoadIgnoredFile: a function in a file the go command would not build
// with its directory (a go run script behind //go:build ignore) is loaded
// from that file alone.
func TestLoadIgnoredFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/scripts\n\ngo 1.26\n")
	write("a.go", "//go:build ignore\n\npackage main\n\nfunc K(x []float64) float64 { return h(x[0]) }\n\nfunc h(v float64) float64 { return v * 2 }\n\nfunc main() {}\n")
	write("b.go", "//go:build ignore\n\npackage main\n\nfunc h(v float64) float64 { return v * 3 }\n\nfunc main() {}\n")
	u, err := loadRuntimeFunc("main.K", filepath.Join(dir, "a.go"), 5, newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := check(u); err != nil {
		t.Fatal(err)
	}
	if len(u.funcs) != 2 || !strings.HasSuffix(fileSet.Position(u.funcs[1].Pos()).Filename, "a.go") {
		t.Errorf("K's callee h should come from a.go alone")
	}
}
