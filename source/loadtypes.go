package source

// Demand-driven type-checking. Instead of type-checking a whole package and
// everything it imports, the loader keeps only the package-level
// declarations the compiled function can reach by name: a syntactic closure
// over identifiers, followed through selectors into imported packages, whose
// function bodies are never read. Declarations are order-independent at
// package level, so the kept subset type-checks exactly as it would inside
// the whole package. Errors in declarations the function does not reach are
// never seen, and a package that imports "testing" and "fmt" in its other
// files costs no more than one that imports only "math".

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"runtime"
	"sort"
	"strings"
	"unicode"
)

type declRef struct{ f, d int } // file index, decl index within the file

// An lpkg is one package as the loader sees it. Its files are indexed by
// the names they declare; a file is parsed when one of its declarations is
// needed.
type lpkg struct {
	path, name, dir string
	files           []*parsedFile
	bodies          bool             // function bodies are checked (the package being compiled)
	index           map[string][]int // package-level name -> files declaring it
	methods         map[string][]int // receiver base type name -> files with its methods
	resolved        map[string]bool  // names whose declarations are kept
	kept            map[declRef]bool
	usedSpecs       map[*ast.ImportSpec]*lpkg
	specErr         map[string]error // import path -> why it could not be resolved
	allow           func(declRef) bool
	tpkg            *types.Package
	visiting, done  bool
}

// A loader builds the kept subsets for one load.
type loader struct {
	fromText bool   // Compile: only std packages and this package can be imported
	testPath string // path of the package under test when compiling an external test package
	testDir  string
	pkgs     map[string]*lpkg
	work     []workItem
}

type workItem struct {
	p    *lpkg
	name string
}

func newLpkg(path, dir string, files []*parsedFile, bodies bool) *lpkg {
	p := &lpkg{path: path, dir: dir, files: files, bodies: bodies,
		index: map[string][]int{}, methods: map[string][]int{}, resolved: map[string]bool{},
		kept: map[declRef]bool{}, usedSpecs: map[*ast.ImportSpec]*lpkg{}, specErr: map[string]error{}}
	for fi, f := range files {
		if f.pkg == "" {
			continue
		}
		if p.name == "" {
			p.name = f.pkg
		}
		for _, n := range f.decls.names {
			if fs := p.index[n]; len(fs) == 0 || fs[len(fs)-1] != fi {
				p.index[n] = append(fs, fi)
			}
		}
		for _, r := range f.decls.recvs {
			if fs := p.methods[r]; len(fs) == 0 || fs[len(fs)-1] != fi {
				p.methods[r] = append(fs, fi)
			}
		}
	}
	return p
}

// decl returns the declaration ref names.
func (p *lpkg) decl(ref declRef) ast.Decl { return p.files[ref.f].file().Decls[ref.d] }

// declsOfName returns the declarations of name (not methods) in p.
func (p *lpkg) declsOfName(name string) []declRef {
	var out []declRef
	for _, fi := range p.index[name] {
		f := p.files[fi].file()
		if f == nil {
			continue
		}
		for di, d := range f.Decls {
			if declares(d, name) {
				out = append(out, declRef{fi, di})
			}
		}
	}
	return out
}

// declares reports whether d declares the package-level name (a method
// declares none).
func declares(d ast.Decl, name string) bool {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Recv == nil && d.Name.Name == name
	case *ast.GenDecl:
		if d.Tok == token.IMPORT {
			return false
		}
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.Name == name {
					return true
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// recvBase returns the name of a receiver's base type: T in T, *T, T[P], *T[P].
func recvBase(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// need asks for the package-level declaration name of p and, through the
// work list, everything it refers to.
func (l *loader) need(p *lpkg, name string) {
	l.work = append(l.work, workItem{p, name})
}

// closure runs the work list to a fixed point.
func (l *loader) closure() {
	for len(l.work) > 0 {
		it := l.work[len(l.work)-1]
		l.work = l.work[:len(l.work)-1]
		p := it.p
		if p.resolved[it.name] {
			continue
		}
		p.resolved[it.name] = true
		for _, ref := range p.declsOfName(it.name) {
			l.keep(p, ref)
		}
		// The methods of a type (those of any other name do nothing).
		for _, fi := range p.methods[it.name] {
			for di, d := range p.files[fi].file().Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 && recvBase(fd.Recv.List[0].Type) == it.name {
					l.keep(p, declRef{fi, di})
				}
			}
		}
	}
}

func (l *loader) keep(p *lpkg, ref declRef) {
	if p.kept[ref] || (p.allow != nil && !p.allow(ref)) {
		return
	}
	p.kept[ref] = true
	d := p.decl(ref)
	if fd, ok := d.(*ast.FuncDecl); ok && (!p.bodies || fd.Recv != nil) {
		if fd.Recv != nil {
			l.walk(p, ref.f, fd.Recv)
		}
		l.walk(p, ref.f, fd.Type)
		return
	}
	l.walk(p, ref.f, d)
}

// walk asks for every package-level name n mentions: bare identifiers in p,
// and pkg.Name selectors in imported packages.
func (l *loader) walk(p *lpkg, fi int, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if ip := l.importFor(p, fi, x.Name); ip != nil {
					l.need(ip, n.Sel.Name)
					return false
				}
			}
			l.walk(p, fi, n.X) // n.Sel is a field or method, never a package-level name
			return false
		case *ast.Ident:
			if _, ok := p.index[n.Name]; ok {
				l.need(p, n.Name)
			} else {
				l.dotImports(p, fi, n.Name)
			}
		}
		return true
	})
}

// importFor returns the package that identifier x names in file fi of p, or
// nil if x is not an import name there.
func (l *loader) importFor(p *lpkg, fi int, x string) *lpkg {
	if _, ok := p.index[x]; ok {
		return nil // a package-level name cannot also be an import name
	}
	f := p.files[fi].file()
	for pass := 0; pass < 2; pass++ {
		for _, s := range f.Imports {
			path := importPath(s)
			var local string
			switch {
			case s.Name != nil:
				local = s.Name.Name
			case pass == 0:
				local = guessName(path)
			case !uncertainImport(s):
				continue
			default:
				ip, err := l.pkg(p, path)
				if err != nil || ip == nil {
					continue
				}
				local = ip.name
			}
			if local != x {
				continue
			}
			ip, err := l.pkg(p, path)
			if err != nil {
				p.specErr[path] = err
			}
			p.usedSpecs[s] = ip
			return ip
		}
		if !hasUncertainImport(f) {
			break
		}
	}
	return nil
}

func (l *loader) dotImports(p *lpkg, fi int, name string) {
	for _, s := range p.files[fi].file().Imports {
		if s.Name == nil || s.Name.Name != "." {
			continue
		}
		ip, err := l.pkg(p, importPath(s))
		if err != nil || ip == nil {
			continue
		}
		if _, ok := ip.index[name]; ok {
			p.usedSpecs[s] = ip
			l.need(ip, name)
		}
	}
}

func importPath(s *ast.ImportSpec) string {
	return strings.Trim(s.Path.Value, "`\"")
}

// guessName guesses the package name of an import path from its last
// element, as goimports does: math/rand/v2 -> rand, go-yaml.v3 -> yaml.
func guessName(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	if i := strings.IndexByte(last, '.'); i >= 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}

// hasUncertainImport reports whether f has an unnamed import whose package
// name might differ from guessName (outside the standard library, with a
// last element that is not a plain identifier).
func hasUncertainImport(f *ast.File) bool {
	for _, s := range f.Imports {
		if uncertainImport(s) {
			return true
		}
	}
	return false
}

func uncertainImport(s *ast.ImportSpec) bool {
	path := importPath(s)
	if s.Name != nil || isStd(path) {
		return false
	}
	last := path[strings.LastIndexByte(path, '/')+1:]
	for _, r := range last {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return true
		}
	}
	return false
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// pkg returns the loader's package for an import of path by p, reading and
// indexing it on first use.
func (l *loader) pkg(from *lpkg, path string) (*lpkg, error) {
	if p, ok := l.pkgs[path]; ok {
		return p, nil
	}
	if path == "unsafe" || path == "C" {
		l.pkgs[path] = nil
		return nil, nil
	}
	var dir string
	kind := 0
	var err error
	switch {
	case path == l.testPath && l.testPath != "":
		dir, kind = l.testDir, 1
	case path == sourcePath:
		dir = embedDir
	default:
		dir, err = resolveImport(from.dir, path, l.fromText)
	}
	if err != nil {
		return nil, err
	}
	pd, err := parseDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading package %s: %w", path, err)
	}
	files := pd.pkgFiles(kind)
	if len(files) == 0 {
		return nil, fmt.Errorf("package %s: no Go files in %s", path, dir)
	}
	p := newLpkg(path, dir, files, false)
	l.pkgs[path] = p
	return p, nil
}

// typecheck type-checks p's kept declarations after those of the packages
// they import, and returns the errors of p itself (those of imported
// packages are ignored: only their declarations' types are used).
func (l *loader) typecheck(p *lpkg, info *types.Info) []types.Error {
	if p.done || p.visiting {
		return nil
	}
	p.visiting = true
	files := p.keptFiles()
	for _, ip := range p.usedSpecs {
		if ip != nil {
			l.typecheck(ip, nil)
		}
	}
	var errs []types.Error
	conf := types.Config{
		Importer:         importerFunc(func(path string) (*types.Package, error) { return l.imported(p, path) }),
		Error:            func(err error) { errs = append(errs, err.(types.Error)) },
		Sizes:            types.SizesFor("gc", runtime.GOARCH),
		IgnoreFuncBodies: !p.bodies,
		FakeImportC:      true,
	}
	p.tpkg, _ = conf.Check(p.path, fileSet, files, info)
	p.visiting, p.done = false, true
	return errs
}

func (l *loader) imported(from *lpkg, path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if err := from.specErr[path]; err != nil {
		return nil, err
	}
	ip := l.pkgs[path]
	if ip == nil || ip.tpkg == nil {
		return nil, fmt.Errorf("package %s was not loaded", path)
	}
	return ip.tpkg, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// keptFiles returns p's files cut down to the kept declarations and the
// imports they use. Methods of the compiled package lose their bodies: they
// are never compiled (method calls are rejected), so their bodies' imports
// need not be loaded.
func (p *lpkg) keptFiles() []*ast.File {
	var out []*ast.File
	hasKept := map[int]bool{}
	for ref := range p.kept {
		hasKept[ref.f] = true
	}
	for fi, pf := range p.files {
		if !hasKept[fi] {
			continue // not even parsed, maybe
		}
		f := pf.file()
		var decls []ast.Decl
		var specs []*ast.ImportSpec
		var importPos token.Pos
		for di, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				for _, s := range gd.Specs {
					if _, used := p.usedSpecs[s.(*ast.ImportSpec)]; used {
						specs = append(specs, s.(*ast.ImportSpec))
						if importPos == token.NoPos {
							importPos = gd.TokPos
						}
					}
				}
				continue
			}
			if !p.kept[declRef{fi, di}] {
				continue
			}
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && p.bodies && fd.Body != nil {
				cp := *fd
				cp.Body = nil
				d = &cp
			}
			decls = append(decls, d)
		}
		if len(decls) == 0 {
			continue
		}
		nf := &ast.File{Package: f.Package, Name: f.Name, FileStart: f.FileStart, FileEnd: f.FileEnd, GoVersion: f.GoVersion, Imports: specs}
		if len(specs) > 0 {
			sp := make([]ast.Spec, len(specs))
			for i, s := range specs {
				sp[i] = s
			}
			nf.Decls = append(nf.Decls, &ast.GenDecl{TokPos: importPos, Tok: token.IMPORT, Lparen: importPos, Specs: sp, Rparen: importPos})
		}
		nf.Decls = append(nf.Decls, decls...)
		out = append(out, nf)
	}
	return out
}

// declAt maps the position of each kept declaration's name to the
// declaration, for following types.Info.Uses back to declarations.
func (p *lpkg) declAt() map[token.Pos]declRef {
	m := map[token.Pos]declRef{}
	for ref := range p.kept {
		switch d := p.decl(ref).(type) {
		case *ast.FuncDecl:
			m[d.Name.Pos()] = ref
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					m[s.Name.Pos()] = ref
				case *ast.ValueSpec:
					for _, n := range s.Names {
						m[n.Pos()] = ref
					}
				}
			}
		}
	}
	return m
}

// reach returns the declarations of p that root reaches through the
// objects it uses (every kind: functions, types, constants, variables), and
// separately the functions reached through function bodies only, which is
// what gets compiled, in source order with root first.
func (p *lpkg) reach(root declRef, info *types.Info) (all map[declRef]bool, funcs []declRef) {
	at := p.declAt()
	refs := func(ref declRef, visit func(to declRef)) {
		ast.Inspect(p.decl(ref), func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[id]
			if obj == nil || obj.Pkg() != p.tpkg || p.tpkg == nil || obj.Parent() != p.tpkg.Scope() {
				return true
			}
			if to, ok := at[obj.Pos()]; ok {
				visit(to)
			}
			return true
		})
	}
	all = map[declRef]bool{root: true}
	for stack := []declRef{root}; len(stack) > 0; {
		ref := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		refs(ref, func(to declRef) {
			if !all[to] {
				all[to] = true
				stack = append(stack, to)
			}
		})
	}
	isFunc := map[declRef]bool{root: true}
	for stack := []declRef{root}; len(stack) > 0; {
		ref := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		refs(ref, func(to declRef) {
			fd, ok := p.decl(to).(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Body != nil && !isFunc[to] {
				isFunc[to] = true
				stack = append(stack, to)
			}
		})
	}
	for ref := range isFunc {
		if ref != root {
			funcs = append(funcs, ref)
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return p.declPos(funcs[i]) < p.declPos(funcs[j]) })
	return all, append([]declRef{root}, funcs...)
}

func (p *lpkg) declPos(r declRef) token.Pos { return p.decl(r).Pos() }

// within reports whether pos lies inside one of the declarations refs.
func (p *lpkg) within(pos token.Pos, refs map[declRef]bool) bool {
	for r := range refs {
		d := p.decl(r)
		if d.Pos() <= pos && pos < d.End() {
			return true
		}
	}
	return false
}

// inUsedImport reports whether pos lies in an import the kept declarations
// use (a failed import of a package the function needs).
func (p *lpkg) inUsedImport(pos token.Pos) bool {
	for s := range p.usedSpecs {
		if s.Pos() <= pos && pos < s.End() {
			return true
		}
	}
	return false
}
