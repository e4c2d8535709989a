package source

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanDecls compares scanDecls with the parser on every Go file of a
// good part of the std tree and of this repository.
func TestScanDecls(t *testing.T) {
	var dirs []string
	for _, d := range []string{"math", "strings", "sort", "go/types", "go/ast", "runtime", "reflect", "net/http", "syscall", "internal/abi", "unicode", "encoding/json", "fmt", "os", "time"} {
		dirs = append(dirs, filepath.Join(goroot, "src", d))
	}
	filepath.WalkDir("..", func(path string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && !strings.Contains(path, "testdata") && !strings.HasPrefix(e.Name(), ".") {
			dirs = append(dirs, path)
		}
		return nil
	})
	files, mismatches := 0, 0
	for _, dir := range dirs {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
			if err != nil {
				continue // scanDecls may say anything about a broken file
			}
			files++
			got, ok := scanDecls(src)
			want := declsOf(f)
			if !ok || got.pkg != want.pkg || !slices.Equal(got.names, want.names) || !slices.Equal(got.funcs, want.funcs) || !slices.Equal(got.recvs, want.recvs) {
				mismatches++
				if mismatches <= 5 {
					t.Errorf("%s: ok=%v\nscan  %v\nparse %v", p, ok, got, want)
				}
			}
		}
	}
	if files < 500 {
		t.Errorf("only %d files compared", files)
	}
	t.Logf("%d files, %d mismatches", files, mismatches)
}
