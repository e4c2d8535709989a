package source

// The reference for FuzzCompileVsSSAInterp: golang.org/x/tools/go/ssa/interp
// runs the generated program (the same function text, plus a main that
// prints its results) with no code shared with the lowering beyond go/ssa
// itself.
//
// Package math is interpreted from its Go source as built for mips64le,
// where no function has an assembly body (interp cannot run assembly);
// interp itself calls the host's math.Exp, Log, Sqrt, Abs, Min, Copysign,
// Ldexp and the bit conversions. The pure-Go fallbacks give the amd64
// results bit for bit for everything the generator calls (Floor, Ceil,
// Trunc, Max, Min are exact either way; Exp and Log are the host's), except
// math.Hypot, whose amd64 assembly rounds differently from hypot.go: the
// generator does not call it.
//
// interp reports a panic only as a value, so the program records the line
// of each statement it starts in a global (curLine = N; on the statement's
// own line, so positions are unchanged) and main recovers the panic and
// prints that line with the message.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/interp"
)

// oraclePkg is a standard package type-checked once for the interpreter.
type oraclePkg struct {
	pkg   *types.Package
	files []*ast.File
	info  *types.Info
}

type interpOracle struct {
	once    sync.Once
	err     error
	fset    *token.FileSet
	sizes   types.Sizes
	deps    []*oraclePkg // in dependency order
	byPath  map[string]*oraclePkg
	runtime *oraclePkg // the errorString type recover needs
	mu      sync.Mutex // os.Stderr is swapped while a program runs
}

var theOracle interpOracle

func (o *interpOracle) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p := o.byPath[path]; p != nil {
		return p.pkg, nil
	}
	return nil, fmt.Errorf("oracle: package %s not loaded", path)
}

// loadStd type-checks the standard package path and its imports as built
// for mips64le.
func (o *interpOracle) loadStd(path string) error {
	if path == "unsafe" || o.byPath[path] != nil {
		return nil
	}
	ctx := build.Default
	ctx.GOARCH, ctx.GOOS, ctx.CgoEnabled = "mips64le", "linux", false
	bp, err := ctx.Import(path, "", 0)
	if err != nil {
		return err
	}
	for _, imp := range bp.Imports {
		if err := o.loadStd(imp); err != nil {
			return err
		}
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(o.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	info := newOracleInfo()
	conf := types.Config{Importer: o, Sizes: o.sizes}
	pkg, err := conf.Check(path, o.fset, files, info)
	if err != nil {
		return fmt.Errorf("oracle: type-checking %s: %w", path, err)
	}
	p := &oraclePkg{pkg, files, info}
	o.byPath[path] = p
	o.deps = append(o.deps, p)
	return nil
}

func newOracleInfo() *types.Info {
	return &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
}

// oracleRuntime is the part of package runtime interp needs: recover
// returns a runtime error as a value of runtime.errorString, a nil
// interface without the type.
const oracleRuntime = `type errorString string

func (e errorString) Error() string { return string(e) }

func (e errorString) RuntimeError() {}
`

// check type-checks the one-file package path from src.
func (o *interpOracle) check(path, src string) (*oraclePkg, error) {
	f, err := parser.ParseFile(o.fset, path+".go", src, 0)
	if err != nil {
		return nil, err
	}
	info := newOracleInfo()
	conf := types.Config{Importer: o, Sizes: o.sizes}
	pkg, err := conf.Check(path, o.fset, []*ast.File{f}, info)
	if err != nil {
		return nil, fmt.Errorf("oracle: type-checking %s: %w", path, err)
	}
	return &oraclePkg{pkg, []*ast.File{f}, info}, nil
}

// run interprets the program src (package main) and returns what it
// printed with println.
func (o *interpOracle) run(src string) (string, error) {
	o.once.Do(func() {
		o.fset = token.NewFileSet()
		o.sizes = types.SizesFor("gc", "amd64")
		o.byPath = map[string]*oraclePkg{}
		o.err = o.loadStd("math")
		if o.err == nil {
			o.runtime, o.err = o.check("runtime", "package runtime\n\n"+oracleRuntime)
		}
	})
	if o.err != nil {
		return "", o.err
	}
	m, err := o.check("main", src)
	if err != nil {
		return "", err
	}
	prog := ssa.NewProgram(o.fset, 0)
	prog.CreatePackage(types.Unsafe, nil, &types.Info{}, true) // a non-nil info gives it an init body
	prog.CreatePackage(o.runtime.pkg, o.runtime.files, o.runtime.info, true)
	for _, d := range o.deps {
		prog.CreatePackage(d.pkg, d.files, d.info, true)
	}
	main := prog.CreatePackage(m.pkg, m.files, m.info, false)
	prog.Build()

	o.mu.Lock()
	defer o.mu.Unlock()
	tmp, err := os.CreateTemp("", "gojit-oracle-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	saved := os.Stderr
	code, ierr := func() (code int, err error) {
		os.Stderr = tmp
		defer func() {
			os.Stderr = saved
			if p := recover(); p != nil {
				err = fmt.Errorf("oracle: interp failed: %v", p)
			}
		}()
		return interp.Interpret(main, 0, o.sizes, "oracle", nil), nil
	}()
	if ierr != nil {
		return "", ierr
	}
	out, err := os.ReadFile(tmp.Name())
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", fmt.Errorf("oracle: exit code %d:\n%s", code, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// parseOraclePanic splits the line main prints for a recovered panic,
// "panic LINE (TYPE, runtime error: MSG)", into the line and MSG.
func parseOraclePanic(s string) (line int, msg string, ok bool) {
	rest, found := strings.CutPrefix(s, "panic ")
	if !found {
		return 0, "", false
	}
	if _, err := fmt.Sscanf(rest, "%d", &line); err != nil {
		return 0, "", false
	}
	_, msg, found = strings.Cut(rest, ", ")
	if !found {
		return 0, "", false
	}
	msg = strings.TrimSuffix(msg, ")")
	msg = strings.TrimPrefix(msg, "runtime error: ")
	return line, msg, true
}
