package source

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/errors")

// checkSource loads function F of the file at path through the loader for
// source text and runs the checker; it returns the diagnostics.
func checkSource(t *testing.T, path string) ([]Diagnostic, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u, err := loadSource(string(src), "F", newConfig([]Option{WithFilename(path)}))
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
		if !strings.HasSuffix(caret, "^") || len(caret) != d.Pos.Column {
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
		ds, err := checkSource(t, path)
		if err != nil || len(ds) > 0 {
			t.Errorf("%s: %v%s", path, err, (&Error{Diags: ds}).Error())
		}
	}
}
