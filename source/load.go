package source

// The loader: from a Go func value (loadFunc), source text (loadSource) or
// a package pattern and a name (loadNamed) to a unit — the function's
// package, type-checked and built into SSA form, cut down to what the
// function needs (see loadtypes.go).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// ErrNoSource is wrapped by the error CompileFunc returns when the source
// file of the function is not on this machine (a binary built elsewhere, or
// with -trimpath). source.Compile, which takes the source text, still works.
var ErrNoSource = errors.New("source file not found")

// ErrStaleSource is wrapped by the error CompileFunc returns when the
// function's source on disk is not what the running binary was built
// from: one of the package files it was loaded from was modified after
// the executable was written (and is not dated in the future), or the
// function is no longer declared at the line the binary records.
// Compiling that text would silently run different code than the Go
// function; rebuild the program (or pass the text to source.Compile
// deliberately). With WithFallback the Go function runs instead.
var ErrStaleSource = errors.New("source changed since the binary was built")

// loadFunc builds the unit for a Go func value from its own source. On
// ErrStaleSource it returns the unit too (for the fallback), with the error.
func loadFunc(fn any, c *config) (*unit, error) {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.Kind() != reflect.Func {
		return nil, fmt.Errorf("source: CompileFunc needs a function, got %T", fn)
	}
	if v.IsNil() {
		return nil, fmt.Errorf("source: CompileFunc needs a non-nil function, got a nil %T", fn)
	}
	rf := runtime.FuncForPC(v.Pointer())
	if rf == nil {
		return nil, fmt.Errorf("source: cannot find the function %T in the binary", fn)
	}
	file, line := rf.FileLine(rf.Entry())
	u, err := loadRuntimeFunc(rf.Name(), file, line, c)
	if err != nil {
		return nil, err
	}
	if err := checkFresh(u, rf.Name(), line, executableTime()); err != nil {
		// The unit comes back with the error so that WithFallback can name
		// the function and run the Go code, which is what the binary has.
		return u, err
	}
	return u, nil
}

// loadRuntimeFunc loads the function the runtime calls full (as
// import/path.Name), declared at file:line.
func loadRuntimeFunc(full, file string, line int, c *config) (*unit, error) {
	pkgPath, name := splitFuncName(full)
	if err := checkFuncKind(full, name, file, line); err != nil {
		return nil, err
	}
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("source: %s: %w: %s is not on this machine (was the binary built elsewhere, or with -trimpath?); pass the function's source text to source.Compile instead", full, ErrNoSource, file)
	}
	file = filepath.Clean(file)
	dir := filepath.Dir(file)
	pd, err := parseDir(dir)
	if err != nil {
		return nil, fmt.Errorf("source: reading the package of %s: %w", full, err)
	}
	kind := -1
	for _, f := range pd.files {
		if f.path == file {
			kind = 0
			if f.test {
				kind = 1
				if strings.HasSuffix(f.pkg, "_test") {
					kind = 2
				}
			}
		}
	}
	if kind < 0 {
		// The file is not part of the directory's package (go run of a
		// file behind //go:build ignore, say): it is its own package.
		fi, err := os.Stat(file)
		if err != nil {
			return nil, fmt.Errorf("source: %s: %w", full, err)
		}
		key := "file:" + file
		pd, err = dirCache.get(key, fmt.Sprint(fi.Size(), fi.ModTime().UnixNano()), func() (*parsedDir, error) {
			src, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			return &parsedDir{dir: key, files: []*parsedFile{parseOne(file, src)}}, nil
		})
		if err != nil {
			return nil, fmt.Errorf("source: reading the source of %s: %w", full, err)
		}
		l := &loader{pkgs: map[string]*lpkg{}}
		return l.load(pkgPath, dir, pd.files, name, file, c)
	}
	l := &loader{pkgs: map[string]*lpkg{}}
	if kind == 2 {
		l.testPath, l.testDir = strings.TrimSuffix(pkgPath, "_test"), dir
	}
	return l.load(pkgPath, dir, pd.pkgFiles(kind), name, file, c)
}

// splitFuncName splits a runtime function name, import/path.Name or
// import/path.Outer.func1, into the package path and the rest.
func splitFuncName(full string) (pkgPath, name string) {
	slash := strings.LastIndexByte(full, '/')
	dot := strings.IndexByte(full[slash+1:], '.')
	if dot < 0 {
		return "", full
	}
	return full[:slash+1+dot], full[slash+1+dot+1:]
}

// closureName matches the runtime names of function literals: F.func1,
// F.func1.2, glob..func1 (at package level), F.gowrap1.
var closureName = regexp.MustCompile(`(^|\.)(func|gowrap)\d+(\.\d+)*$|^glob\.`)

// checkFuncKind rejects func values that are not top-level functions.
func checkFuncKind(full, name, file string, line int) error {
	where := fmt.Sprintf("%s:%d", file, line)
	switch {
	case strings.HasSuffix(name, "-fm"):
		return fmt.Errorf("source: %s is a method value (%s); only top-level functions can be compiled: write a function that takes what the method needs as parameters", strings.TrimSuffix(full, "-fm"), where)
	case strings.Contains(name, "[...]") || strings.Contains(name, "[go.shape"):
		return fmt.Errorf("source: %s is an instance of a generic function (%s); generic functions cannot be compiled: write a non-generic function for the types you need", full, where)
	case closureName.MatchString(name):
		return fmt.Errorf("source: %s is a function literal (closure) declared at %s; only top-level functions can be compiled: declare it with func at package level", full, where)
	case strings.Contains(name, "."):
		return fmt.Errorf("source: %s is a method (%s); only top-level functions can be compiled: write a function that takes what the method needs as parameters", full, where)
	}
	return nil
}

// loadSource builds the unit for function name in src, a Go file's
// contents. It may import standard library packages and this package.
func loadSource(src, name string, c *config) (*unit, error) {
	filename := c.filename
	if filename == "" {
		filename = "<source>"
	}
	h := sha256.Sum256([]byte(src))
	key := "text:" + filename + ":" + hex.EncodeToString(h[:])
	pd, err := textCache.get(key, key, func() (*parsedDir, error) {
		return &parsedDir{dir: key, sig: key, files: []*parsedFile{parseOne(filename, []byte(src))}}, nil
	})
	if err != nil {
		return nil, err
	}
	f := pd.files[0]
	if t := f.file(); t == nil || t.Name == nil || f.pkg == "" {
		return nil, fmt.Errorf("source: %s: %w", filename, f.syntaxErr())
	}
	l := &loader{fromText: true, pkgs: map[string]*lpkg{}}
	return l.load(f.pkg, "", pd.files, name, filename, c)
}

// loadNamed builds the unit for function name in the package pattern (an
// import path or a directory), for `gojit dump -func pkg.Name`. The
// package's own files are searched first, then its _test.go files.
func loadNamed(pattern, name string, c *config) (*unit, error) {
	var dir, pkgPath string
	if fi, err := os.Stat(pattern); err == nil && fi.IsDir() || isLocalPattern(pattern) {
		abs, err := filepath.Abs(pattern)
		if err != nil {
			return nil, fmt.Errorf("source: %s: %w", pattern, err)
		}
		dir = abs
		pkgPath = dirImportPath(dir)
	} else {
		wd, _ := os.Getwd()
		d, err := resolveImport(wd, pattern, false)
		if mi := findModule(wd); mi.root != "" && (pattern == mi.path || strings.HasPrefix(pattern, mi.path+"/")) {
			// The module's own packages from disk (this package too, with its
			// tests, rather than the copy embedded for imports).
			d, err = filepath.Join(mi.root, filepath.FromSlash(strings.TrimPrefix(pattern, mi.path))), nil
		}
		if err != nil {
			return nil, fmt.Errorf("source: %w%s", err, patternHint(pattern, wd))
		}
		dir, pkgPath = d, pattern
	}
	pd, err := parseDir(dir)
	if err != nil {
		return nil, fmt.Errorf("source: reading package %s: %w", pattern, err)
	}
	for kind := 0; kind <= 2; kind++ {
		files := pd.pkgFiles(kind) // kind 1 includes the non-test files
		for _, f := range files {
			if f.pkg == "" || (kind == 1 && !f.test) || !slices.Contains(f.decls.funcs, name) {
				continue
			}
			l := &loader{pkgs: map[string]*lpkg{}}
			path := pkgPath
			if kind == 2 {
				l.testPath, l.testDir = pkgPath, dir
				path += "_test"
			}
			return l.load(path, dir, files, name, f.path, c)
		}
	}
	return nil, notFound(pattern, name, pd.files)
}

// patternHint suggests the import path a user probably meant when pattern,
// given to loadNamed from wd, names no package: the module's path joined
// with pattern's last element, when that is a directory of the module.
func patternHint(pattern, wd string) string {
	mi := findModule(wd)
	if mi.root == "" {
		return ""
	}
	base := pattern[strings.LastIndexByte(pattern, '/')+1:]
	if base == path.Base(mi.path) {
		return fmt.Sprintf("; did you mean %s, the module's import path?", mi.path)
	}
	if dirExists(filepath.Join(mi.root, base)) {
		return fmt.Sprintf("; did you mean %s/%s?", mi.path, base)
	}
	return fmt.Sprintf("; name the package by its full import path (this module is %s) or by a directory (./%s)", mi.path, base)
}

func isLocalPattern(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p)
}

// notFound is the error for a function that is not declared in the files,
// suggesting the closest names.
func notFound(where, name string, files []*parsedFile) error {
	var names []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, n := range f.decls.funcs {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	msg := fmt.Sprintf("source: no function %s in %s", name, where)
	if s := closest(name, names, 3); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	for _, f := range files {
		if err := f.syntaxErr(); err != nil {
			msg += fmt.Sprintf(" (%s has syntax errors: %v)", f.path, err)
			break
		}
	}
	return errors.New(msg)
}

// closest returns up to n of names nearest to name by edit distance
// (ignoring case), nearest first, leaving out those too far to be a typo.
func closest(name string, names []string, n int) []string {
	type cand struct {
		s string
		d int
	}
	var cs []cand
	for _, s := range names {
		d := editDistance(strings.ToLower(name), strings.ToLower(s))
		if d <= max(2, len(name)/3) || strings.Contains(strings.ToLower(s), strings.ToLower(name)) {
			cs = append(cs, cand{s, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].s < cs[j].s })
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// load type-checks what function name (declared in file, one of files)
// needs and builds its SSA.
func (l *loader) load(pkgPath, dir string, files []*parsedFile, name, file string, c *config) (*unit, error) {
	p := newLpkg(pkgPath, dir, files, true)
	l.pkgs[pkgPath] = p
	var root declRef
	found := false
	for _, ref := range p.declsOfName(name) {
		if _, ok := p.decl(ref).(*ast.FuncDecl); ok && (!found || files[ref.f].path == file) {
			root, found = ref, true
		}
	}
	if !found {
		where := "package " + pkgPath
		if l.fromText {
			where = file
		}
		return nil, notFound(where, name, files)
	}
	decl := p.decl(root).(*ast.FuncDecl)
	if decl.Body == nil {
		return nil, &Error{Diags: []Diagnostic{diagAt(files, decl.Name.Pos(), "function %s has no Go body (assembly or linkname): not supported in compiled functions", name)}}
	}
	if decl.Type.TypeParams != nil && len(decl.Type.TypeParams.List) > 0 {
		return nil, &Error{Diags: []Diagnostic{diagAt(files, decl.Name.Pos(), "generic function %s: not supported in compiled functions; write a non-generic function for the types you need", name)}}
	}

	info, errs := l.check(p, root)
	var diags []Diagnostic
	if len(errs) > 0 {
		all, _ := p.reach(root, info)
		var inReach []types.Error
		for _, e := range errs {
			if p.within(e.Pos, all) || p.inUsedImport(e.Pos) {
				inReach = append(inReach, e)
			}
		}
		inReach = withRedeclarations(inReach, errs)
		if len(inReach) == 0 {
			// The errors are in declarations the function does not use
			// (kept because a local name matched): check again without them.
			*l = loader{fromText: l.fromText, testPath: l.testPath, testDir: l.testDir, pkgs: map[string]*lpkg{}}
			p = newLpkg(pkgPath, dir, files, true)
			l.pkgs[pkgPath] = p
			p.allow = func(r declRef) bool {
				fd, ok := p.decl(r).(*ast.FuncDecl)
				return all[r] || ok && fd.Recv != nil
			}
			info, inReach = l.check(p, root)
		}
		for _, e := range inReach {
			diags = append(diags, diagAt(files, e.Pos, "%s", e.Msg))
		}
	}
	diags = append(diags, syntaxDiags(p, files)...)
	if len(diags) > 0 {
		diags = sortDiags(diags)
		return nil, &Error{Diags: diags}
	}

	_, funcs := p.reach(root, info)
	u := &unit{fset: fileSet, info: info, decl: decl, files: p.keptFiles(), src: map[string][]byte{}}
	for _, f := range u.files {
		name := fileSet.File(f.FileStart).Name()
		for _, pf := range files {
			if pf.path == name {
				u.src[name] = pf.src
			}
		}
	}
	for _, r := range funcs {
		u.funcs = append(u.funcs, p.decl(r).(*ast.FuncDecl))
	}
	u.key = unitKey(u, p.tpkg)

	if err := buildSSA(u, p, name); err != nil {
		return nil, err
	}
	return u, nil
}

// withRedeclarations adds to kept, the type errors within the function's
// reach, the "X redeclared in this block" errors of all whose other
// declaration kept reports (go/types words it "\tother declaration of X",
// at the reached declaration): without them the user would see only that
// continuation line. The redeclaration is usually in a file of the
// directory that is not part of the build (`go run main.go` builds only the
// files it names; the loader reads the directory), which the message says.
func withRedeclarations(kept, all []types.Error) []types.Error {
	names := map[string]bool{}
	for i, e := range kept {
		if name, ok := strings.CutPrefix(e.Msg, "\tother declaration of "); ok {
			names[name] = true
			kept[i].Msg = e.Msg[1:]
		}
	}
	if len(names) == 0 {
		return kept
	}
	out := kept[:len(kept):len(kept)]
	for _, e := range all {
		if name, ok := strings.CutSuffix(e.Msg, " redeclared in this block"); ok && names[name] {
			e.Msg += " (source reads every file of the directory: is this file left out of the build, as by `go run main.go`? Move it away or compile with `go run .`)"
			out = append(out, e)
		}
	}
	return out
}

// buildSSA builds the SSA of the unit's package. go/ssa panics on code it
// cannot handle (it expects well-typed input); that becomes an error.
func buildSSA(u *unit, p *lpkg, name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("source: building SSA for %s.%s: %v", p.path, name, r)
		}
	}()
	info := u.info
	pkgPath := p.path
	prog := ssa.NewProgram(fileSet, ssa.SanityCheckFunctions|ssa.InstantiateGenerics)
	created := map[*types.Package]bool{}
	var create func(ps []*types.Package)
	create = func(ps []*types.Package) {
		for _, tp := range ps {
			if !created[tp] {
				created[tp] = true
				create(tp.Imports())
				prog.CreatePackage(tp, nil, nil, true)
			}
		}
	}
	create(p.tpkg.Imports())
	u.pkg = prog.CreatePackage(p.tpkg, u.files, info, false)
	u.pkg.Build()
	u.fn = u.pkg.Func(name)
	if u.fn == nil {
		return fmt.Errorf("source: internal error: no SSA for %s.%s", pkgPath, name)
	}
	return nil
}

// check runs the closure from root and type-checks the kept declarations.
func (l *loader) check(p *lpkg, root declRef) (*types.Info, []types.Error) {
	l.keep(p, root)
	l.closure()
	info := &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	errs := l.typecheck(p, info)
	return info, errs
}

// syntaxDiags returns the syntax errors that fall inside declarations the
// function keeps (others do not concern it).
func syntaxDiags(p *lpkg, files []*parsedFile) []Diagnostic {
	var out []Diagnostic
	hasKept := map[int]bool{}
	for ref := range p.kept {
		hasKept[ref.f] = true
	}
	for fi, f := range files {
		if !hasKept[fi] {
			continue
		}
		var errs scanner.ErrorList
		switch e := f.syntaxErr().(type) {
		case nil:
			continue
		case scanner.ErrorList:
			errs = e
		case *scanner.Error:
			errs = scanner.ErrorList{e}
		default:
			errs = scanner.ErrorList{{Pos: token.Position{Filename: f.path}, Msg: e.Error()}}
		}
		for _, e := range errs {
			for ref := range p.kept {
				if ref.f != fi {
					continue
				}
				d := p.decl(ref)
				start, end := fileSet.Position(d.Pos()), fileSet.Position(d.End())
				if e.Pos.Offset >= start.Offset && e.Pos.Offset <= end.Offset {
					out = append(out, Diagnostic{Pos: e.Pos, Msg: e.Msg, Line: lineAt(f.src, e.Pos.Line)})
					break
				}
			}
		}
	}
	return out
}

func diagAt(files []*parsedFile, pos token.Pos, format string, args ...any) Diagnostic {
	p := fileSet.Position(pos)
	d := Diagnostic{Pos: p, Msg: sprintf(format, args...)}
	for _, f := range files {
		if f.path == p.Filename {
			d.Line = lineAt(f.src, p.Line)
		}
	}
	return d
}

// unitKey hashes the source text of every compiled function and the type
// (and constant value) of every package-level object they use, so that an
// edit to a function the compiled code does not call leaves the key alone.
func unitKey(u *unit, pkg *types.Package) string {
	type part struct {
		file string
		off  int
		text string
	}
	var parts []part
	for _, fd := range u.funcs {
		start, end := u.fset.Position(fd.Pos()), u.fset.Position(fd.End())
		src := u.src[start.Filename]
		var b strings.Builder
		if 0 <= start.Offset && start.Offset <= end.Offset && end.Offset <= len(src) {
			b.Write(src[start.Offset:end.Offset])
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := u.info.Uses[id]
			if obj == nil || (obj.Pkg() == pkg && obj.Parent() != pkg.Scope()) {
				return true // a local: its type follows from the text
			}
			fmt.Fprintf(&b, "\n%s|%s|%s", id.Name, types.ObjectString(obj, nil), types.TypeString(obj.Type().Underlying(), nil))
			if k, ok := obj.(*types.Const); ok {
				fmt.Fprintf(&b, "=%s", k.Val().ExactString())
			}
			return true
		})
		parts = append(parts, part{start.Filename, start.Offset, b.String()})
	}
	sort.Slice(parts, func(i, j int) bool {
		return parts[i].file < parts[j].file || parts[i].file == parts[j].file && parts[i].off < parts[j].off
	})
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d\n%s\n", len(p.text), p.text)
	}
	return hex.EncodeToString(h.Sum(nil))
}
