package source

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Go's math functions, compiled from Go's own source. Most of package math
// is plain Go on amd64 (Sin, Cos, Tanh, Pow, Atan, ...); lowering that
// source gives Go's results bit for bit, where the C library's differ in
// the last bits. The assembly-backed functions (Sqrt, Floor, Exp, Log,
// Max, ...) are the ones lower_ops.go maps to LLVM intrinsics or to the
// prelude's ports instead.
//
// GOROOT's math is read (for the host's GOOS and GOARCH) once per process,
// on the first compile that calls a math function needing its source.
// Type-checking and building SSA for all of it took about 75 ms, so only
// the declarations the module's calls reach (by name, transitively) are
// type-checked and built: a snapshot. A later module needing more builds a
// larger snapshot; one module uses one snapshot throughout.

// mathLib is GOROOT's math source, parsed.
type mathLib struct {
	err   error
	fset  *token.FileSet
	files []*ast.File
	decls map[string]ast.Decl   // declaration of each package-level name
	uses  map[ast.Decl][]string // package-level names each declaration uses
	init  map[string]ast.Expr   // package-level var initializers by name
	imp   types.Importer        // for math/bits, internal/cpu, shared by snapshots
	mu    sync.Mutex            // guards what follows
	cur   *mathSrc              // the newest snapshot
	have  map[string]bool       // the roots cur was built for
}

// A mathSrc is a snapshot: part of math, type-checked and in SSA form.
type mathSrc struct {
	pkg     *ssa.Package
	fset    *token.FileSet
	info    *types.Info
	init    map[string]ast.Expr
	err     error
	prelude func() *preludePkg
}

type preludePkg struct {
	pkg *ssa.Package
	err error
}

var goMathLib = sync.OnceValue(func() *mathLib {
	lib := &mathLib{decls: map[string]ast.Decl{}, uses: map[ast.Decl][]string{}, init: map[string]ast.Expr{},
		have: map[string]bool{}}
	bp, err := build.Default.Import("math", "", 0)
	if err != nil {
		lib.err = err
		return lib
	}
	lib.fset = token.NewFileSet()
	lib.imp = importer.ForCompiler(lib.fset, "source", nil)
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(lib.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			lib.err = err
			return lib
		}
		lib.files = append(lib.files, f)
	}
	for _, f := range lib.files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name != "init" && d.Name.Name != "_" {
					lib.decls[d.Name.Name] = d
				}
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				// A whole group: a const group's later specs may repeat
				// an earlier one's iota expression.
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for i, n := range sp.Names {
							lib.decls[n.Name] = d
							if d.Tok == token.VAR && i < len(sp.Values) {
								lib.init[n.Name] = sp.Values[i]
							}
						}
					case *ast.TypeSpec:
						lib.decls[sp.Name.Name] = d
					}
				}
			}
		}
	}
	for _, f := range lib.files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			seen := map[string]bool{}
			ast.Inspect(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && !seen[id.Name] {
					seen[id.Name] = true
					lib.uses[d] = append(lib.uses[d], id.Name)
				}
				return true
			})
		}
	}
	return lib
})

// needsSource reports whether math.name is lowered from Go's source (not
// to an intrinsic, an inline sequence or a prelude port).
func needsSource(name string) bool {
	if _, ok := exactMath[name]; ok {
		return false
	}
	if _, ok := amd64Ports[name]; ok {
		return false
	}
	switch name {
	case "Inf", "NaN", "IsNaN", "IsInf", "Signbit", "Float64bits", "Float64frombits", "Float32bits", "Float32frombits":
		return false
	}
	return true
}

// preludeUses are the math functions the prelude calls.
var preludeUses = []string{"FMA", "Float64bits", "Float64frombits", "Inf", "NaN", "RoundToEven", "Sqrt"}

// mathSrc returns the math snapshot of m's module, loading it on first use
// with every math function the unit's package calls.
func (m *module) mathSrc() *mathSrc {
	if m.math != nil {
		return m.math
	}
	var roots []string
	seen := map[*ssa.Function]bool{}
	var walk func(f *ssa.Function)
	walk = func(f *ssa.Function) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		for _, b := range f.Blocks {
			for _, ins := range b.Instrs {
				c, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				g := c.Common().StaticCallee()
				if g == nil || g.Pkg == nil || g.Pkg.Pkg.Path() != "math" {
					continue
				}
				if _, port := amd64Ports[g.Name()]; port {
					roots = append(roots, preludeUses...)
				} else if needsSource(g.Name()) {
					roots = append(roots, g.Name())
				}
			}
		}
		for _, a := range f.AnonFuncs {
			walk(a)
		}
	}
	walk(m.u.fn)
	if m.u.pkg != nil {
		for _, mem := range m.u.pkg.Members {
			if f, ok := mem.(*ssa.Function); ok {
				walk(f)
			}
		}
	}
	if len(roots) > 0 {
		// Go's math source calls the ported functions too (Log10 calls
		// Log, Pow calls Exp...), and those calls go to the prelude, which
		// needs its own uses in the snapshot.
		roots = append(roots, preludeUses...)
	}
	m.math = mathFor(roots)
	return m.math
}

// mathFor returns a snapshot holding the math functions roots and all they
// use: the newest one if it does, else a new one, larger.
func mathFor(roots []string) *mathSrc {
	lib := goMathLib()
	if lib.err != nil {
		return &mathSrc{err: lib.err, prelude: func() *preludePkg { return &preludePkg{err: lib.err} }}
	}
	lib.mu.Lock()
	defer lib.mu.Unlock()
	fresh := lib.cur == nil
	for _, r := range roots {
		if !lib.have[r] {
			fresh = true
			lib.have[r] = true
		}
	}
	if !fresh {
		return lib.cur
	}
	// The declarations reached from the roots.
	keep := map[ast.Decl]bool{}
	var work []ast.Decl
	for r := range lib.have {
		if d, ok := lib.decls[r]; ok && !keep[d] {
			keep[d] = true
			work = append(work, d)
		}
	}
	used := map[string]bool{}
	for len(work) > 0 {
		d := work[len(work)-1]
		work = work[:len(work)-1]
		for _, n := range lib.uses[d] {
			used[n] = true
			if e, ok := lib.decls[n]; ok && !keep[e] {
				keep[e] = true
				work = append(work, e)
			}
		}
	}
	var files []*ast.File
	for _, f := range lib.files {
		var decls []ast.Decl
		var imports []*ast.ImportSpec
		kept := 0
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.IMPORT {
				if keep[d] {
					decls = append(decls, d)
					kept++
				}
				continue
			}
			var specs []ast.Spec
			for _, sp := range g.Specs {
				is := sp.(*ast.ImportSpec)
				name := path.Base(strings.Trim(is.Path.Value, `"`))
				if is.Name != nil {
					name = is.Name.Name
				}
				if used[name] {
					specs = append(specs, is)
					imports = append(imports, is)
				}
			}
			if len(specs) > 0 {
				ng := *g
				ng.Specs = specs
				decls = append([]ast.Decl{&ng}, decls...)
			}
		}
		if kept == 0 {
			continue
		}
		nf := *f
		nf.Decls, nf.Imports = decls, imports
		files = append(files, &nf)
	}
	ms := &mathSrc{fset: lib.fset, init: lib.init}
	if len(files) == 0 {
		// Nothing needed yet: an empty math package for the prelude.
		files = append(files, &ast.File{Name: ast.NewIdent("math"), Package: lib.files[0].Package, FileStart: lib.files[0].FileStart, FileEnd: lib.files[0].FileEnd})
	}
	tc := &types.Config{Importer: lib.imp}
	ms.pkg, ms.info, ms.err = ssautil.BuildPackage(tc, lib.fset, types.NewPackage("math", "math"), files, 0)
	if ms.err != nil {
		names := make([]string, 0, len(lib.have))
		for n := range lib.have {
			names = append(names, n)
		}
		sort.Strings(names)
		ms.err = fmt.Errorf("math source for %s: %w", strings.Join(names, ", "), ms.err)
	}
	ms.prelude = sync.OnceValue(func() *preludePkg { return buildPrelude(ms) })
	lib.cur = ms
	return ms
}

// isMathSrc reports whether p is a snapshot of math or the prelude built
// against one.
func isMathSrc(p *ssa.Package) bool {
	return p != nil && (p.Pkg.Path() == "math" || p.Pkg.Path() == preludePath)
}

const preludePath = "gojit/prelude"

// fn returns math's function name from the snapshot, or nil.
func (ms *mathSrc) fn(name string) *ssa.Function {
	if ms.pkg == nil {
		return nil
	}
	return ms.pkg.Func(name)
}

// preludeFunc returns the prelude's function name, or nil.
func (ms *mathSrc) preludeFunc(name string) *ssa.Function {
	if p := ms.prelude(); p.pkg != nil {
		return p.pkg.Func(name)
	}
	return nil
}

// preludeErr is why the prelude could not be built (nil if it was).
func (ms *mathSrc) preludeErr() error { return ms.prelude().err }

func buildPrelude(ms *mathSrc) *preludePkg {
	p := &preludePkg{}
	if ms.err != nil {
		p.err = ms.err
		return p
	}
	src := strings.Replace(preludeSrc, "USEFMA", fmt.Sprint(hostHasFMA()), 1)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "prelude.go", src, 0)
	if err != nil {
		p.err = err
		return p
	}
	tc := &types.Config{Importer: mathImporter{ms.pkg.Pkg}}
	p.pkg, _, p.err = ssautil.BuildPackage(tc, fset, types.NewPackage(preludePath, "prelude"), []*ast.File{f}, 0)
	return p
}
