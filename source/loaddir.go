package source

// The directory cache: each directory's Go files, parsed once and reused
// while the files are unchanged (same names, sizes and modification times).
// Type-checking is not cached here: the loader checks only the declarations
// a function needs (loadtypes.go), which costs far less than parsing.

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// sourceFS holds this package's own source, so that code compiled from text
// (Compile) can import github.com/gojit/gojit/source for source.Range even
// where the module's source is not on disk, and always sees the declarations
// of the package this binary was built with.
//
//go:embed *.go
var sourceFS embed.FS

// sourcePath is the import path of this package.
const sourcePath = "github.com/gojit/gojit/source"

// embedDir is the pseudo-directory under which sourceFS files are named.
const embedDir = "$gojit/source"

// A parsedFile is one Go file of a directory. Its package-level names come
// from a scan (scanDecls); the file is parsed, without comments, the first
// time file is called — only files that declare something a function needs
// are.
type parsedFile struct {
	path  string // as recorded in the FileSet
	src   []byte // contents
	pkg   string // package clause name
	test  bool   // a _test.go file
	decls fileDecls

	once sync.Once
	tree *ast.File // possibly partial when err != nil
	err  error     // syntax errors, if any
}

// file returns the parsed file (nil if not even the package clause parses).
func (f *parsedFile) file() *ast.File {
	f.once.Do(func() {
		f.tree, f.err = parser.ParseFile(fileSet, f.path, f.src, parser.SkipObjectResolution)
		if el, ok := f.err.(scanner.ErrorList); ok && len(el) == 0 {
			f.err = nil
		}
	})
	return f.tree
}

// syntaxErr returns the file's syntax errors (parsing it if needed).
func (f *parsedFile) syntaxErr() error {
	f.file()
	return f.err
}

// A parsedDir is the Go files of one directory that the go command would
// build for this GOOS/GOARCH and build tags, in name order.
type parsedDir struct {
	dir   string
	sig   string
	files []*parsedFile
}

// pkgFiles returns the files of the package variant: the package's own
// non-test files (kind 0), plus its in-package _test.go files (kind 1), or
// its external test package (kind 2).
func (d *parsedDir) pkgFiles(kind int) []*parsedFile {
	var out []*parsedFile
	for _, f := range d.files {
		xtest := f.test && strings.HasSuffix(f.pkg, "_test")
		switch {
		case kind == 2 && xtest, kind == 1 && f.test && !xtest, kind <= 1 && !f.test:
			out = append(out, f)
		}
	}
	return out
}

// fileSet is shared by every parse, so positions stay valid for as long as
// any unit refers to them. It only grows when a changed file is re-parsed.
var fileSet = token.NewFileSet()

// dirCache is the bounded, concurrency-safe cache of parsed directories;
// textCache holds the texts given to Compile (keyed by their hash), apart,
// so that many texts do not evict the directories.
var (
	dirCache  = newParseCache(64)
	textCache = newParseCache(64)
)

type parseCache struct {
	mu   sync.Mutex
	max  int
	tick uint64
	m    map[string]*parseEntry
}

type parseEntry struct {
	done chan struct{} // closed when pd/err are set
	sig  string
	pd   *parsedDir
	err  error
	used uint64
}

func newParseCache(max int) *parseCache {
	return &parseCache{max: max, m: map[string]*parseEntry{}}
}

// get returns dir parsed, reusing the cached parse when sig matches.
// Concurrent calls for the same directory parse it once.
func (pc *parseCache) get(dir, sig string, parse func() (*parsedDir, error)) (*parsedDir, error) {
	pc.mu.Lock()
	pc.tick++
	e := pc.m[dir]
	if e == nil || e.sig != sig {
		e = &parseEntry{done: make(chan struct{}), sig: sig, used: pc.tick}
		pc.m[dir] = e
		pc.evictLocked()
		pc.mu.Unlock()
		e.pd, e.err = parse()
		close(e.done)
		return e.pd, e.err
	}
	e.used = pc.tick
	pc.mu.Unlock()
	<-e.done
	return e.pd, e.err
}

func (pc *parseCache) evictLocked() {
	for len(pc.m) > pc.max {
		var old string
		var oldUsed uint64
		first := true
		for k, e := range pc.m {
			if first || e.used < oldUsed {
				old, oldUsed, first = k, e.used, false
			}
		}
		delete(pc.m, old)
	}
}

// len reports how many directories are cached (for tests).
func (pc *parseCache) len() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.m)
}

// buildContext selects files as the go command did when it built this
// binary: build.Default plus the -tags and CGO_ENABLED recorded in the
// binary's build information (a kernel in a file behind a build tag is
// found when the binary was built with that tag).
var buildContext = sync.OnceValue(func() *build.Context {
	ctxt := build.Default
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "-tags":
				ctxt.BuildTags = append(ctxt.BuildTags, strings.Split(s.Value, ",")...)
			case "CGO_ENABLED":
				ctxt.CgoEnabled = s.Value == "1"
			}
		}
	}
	return &ctxt
})

// goroot is the root of the Go tree whose std sources the loader reads.
var goroot = build.Default.GOROOT

// parseDir returns the parsed Go files of dir (a real directory, or embedDir).
func parseDir(dir string) (*parsedDir, error) {
	switch dir {
	case embedDir:
		return dirCache.get(dir, "embed", parseEmbedded)
	case mathStubDir:
		return dirCache.get(dir, "stub", func() (*parsedDir, error) {
			return &parsedDir{dir: dir, sig: "stub", files: []*parsedFile{parseOne(mathStubDir+"/math.go", []byte(mathStub))}}, nil
		})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	var sig strings.Builder
	inGoroot := goroot != "" && strings.HasPrefix(dir, filepath.Join(goroot, "src")+string(filepath.Separator))
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		names = append(names, n)
		if inGoroot {
			continue // the Go tree does not change under a running program
		}
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sig, "%s %d %d\n", n, fi.Size(), fi.ModTime().UnixNano())
	}
	return dirCache.get(dir, sig.String(), func() (*parsedDir, error) {
		// Files are read and parsed on all CPUs (parsing is most of a cold
		// load); the result keeps name order.
		files := make([]*parsedFile, len(names))
		errs := make([]error, len(names))
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < min(runtime.GOMAXPROCS(0), len(names)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < len(names); i = int(next.Add(1) - 1) {
					n := names[i]
					if ok, err := buildContext().MatchFile(dir, n); err != nil || !ok {
						continue
					}
					path := filepath.Join(dir, n)
					src, err := os.ReadFile(path)
					if err != nil {
						errs[i] = err
						continue
					}
					files[i] = parseOne(path, src)
				}
			}()
		}
		wg.Wait()
		pd := &parsedDir{dir: dir, sig: sig.String()}
		for i, f := range files {
			if errs[i] != nil {
				return nil, errs[i]
			}
			if f != nil {
				pd.files = append(pd.files, f)
			}
		}
		return pd, nil
	})
}

func parseEmbedded() (*parsedDir, error) {
	ents, err := sourceFS.ReadDir(".")
	if err != nil {
		return nil, err
	}
	pd := &parsedDir{dir: embedDir, sig: "embed"}
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := sourceFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if !embeddedMatch(n, src) {
			continue
		}
		pd.files = append(pd.files, parseOne(embedDir+"/"+n, src))
	}
	sort.Slice(pd.files, func(i, j int) bool { return pd.files[i].path < pd.files[j].path })
	return pd, nil
}

// embeddedMatch applies the go command's file selection (GOOS/GOARCH
// suffixes, //go:build lines, cgo) to an embedded file, which MatchFile
// cannot open by itself.
func embeddedMatch(name string, src []byte) bool {
	ctxt := *buildContext()
	ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	ok, err := ctxt.MatchFile(".", name)
	return err == nil && ok
}

// parseOne indexes a file by scanning it; a file the scan cannot follow
// is parsed at once and indexed from its syntax tree.
func parseOne(path string, src []byte) *parsedFile {
	pf := &parsedFile{path: path, src: src, test: strings.HasSuffix(path, "_test.go")}
	d, ok := scanDecls(src)
	if !ok {
		if f := pf.file(); f != nil && f.Name != nil {
			d = declsOf(f)
		}
	}
	pf.decls, pf.pkg = d, d.pkg
	return pf
}

// modInfo is a module root and path found above a directory.
type modInfo struct{ root, path string }

var modCache sync.Map // dir -> modInfo

// findModule returns the module containing dir (zero if none).
func findModule(dir string) modInfo {
	if v, ok := modCache.Load(dir); ok {
		return v.(modInfo)
	}
	var mi modInfo
	if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				mi = modInfo{dir, strings.Trim(strings.TrimSpace(rest), `"`)}
				break
			}
		}
	} else if parent := filepath.Dir(dir); parent != dir {
		mi = findModule(parent)
	}
	modCache.Store(dir, mi)
	return mi
}

// dirImportPath returns the import path of the package in dir, from the
// enclosing module (or the std tree), or dir itself when neither is found.
func dirImportPath(dir string) string {
	if src := filepath.Join(goroot, "src"); goroot != "" && strings.HasPrefix(dir, src+string(filepath.Separator)) {
		return filepath.ToSlash(strings.TrimPrefix(dir, src+string(filepath.Separator)))
	}
	mi := findModule(dir)
	if mi.root == "" {
		return filepath.ToSlash(dir)
	}
	rel, err := filepath.Rel(mi.root, dir)
	if err != nil || rel == "." {
		return mi.path
	}
	return mi.path + "/" + filepath.ToSlash(rel)
}

var goListCache sync.Map // root + "\x00" + path -> string dir

// resolveImport returns the directory of the package path imported from
// fromDir: the std tree, the enclosing module, its vendor directory, or, as
// a last resort, what `go list -find` says (other modules). onlyStd refuses
// everything but the std tree and this package (code compiled from text).
func resolveImport(fromDir, path string, onlyStd bool) (string, error) {
	if path == sourcePath {
		return embedDir, nil
	}
	if isStd(path) {
		d := filepath.Join(goroot, "src", filepath.FromSlash(path))
		if _, err := os.Stat(d); err != nil {
			if path == "math" {
				return mathStubDir, nil
			}
			if !dirExists(filepath.Join(goroot, "src", "math")) {
				return "", fmt.Errorf("cannot find standard package %q in %s (is the Go tree installed here?)", path, filepath.Join(goroot, "src"))
			}
			return "", fmt.Errorf("no package %q: a path whose first element has no dot names a standard package, and %s has none", path, filepath.Join(goroot, "src"))
		}
		return d, nil
	}
	if goroot != "" && strings.HasPrefix(fromDir, filepath.Join(goroot, "src")) {
		d := filepath.Join(goroot, "src", "vendor", filepath.FromSlash(path))
		if _, err := os.Stat(d); err == nil {
			return d, nil
		}
	}
	if onlyStd {
		return "", fmt.Errorf("import %q: code compiled from text can import only standard packages and %s", path, sourcePath)
	}
	mi := findModule(fromDir)
	if mi.root != "" {
		if path == mi.path || strings.HasPrefix(path, mi.path+"/") {
			return filepath.Join(mi.root, filepath.FromSlash(strings.TrimPrefix(path, mi.path))), nil
		}
		if d := filepath.Join(mi.root, "vendor", filepath.FromSlash(path)); dirExists(d) {
			return d, nil
		}
	}
	key := mi.root + "\x00" + path
	if v, ok := goListCache.Load(key); ok {
		return v.(string), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-find", "-f", "{{.Dir}}", path)
	cmd.Dir = fromDir
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("cannot find package %q: %s", path, msg)
	}
	d := strings.TrimSpace(string(out))
	goListCache.Store(key, d)
	return d, nil
}

func dirExists(d string) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.IsDir()
}
