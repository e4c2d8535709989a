package source

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadCheck: any Go file text gives a unit or an error from the loader
// and the checker, never a panic; errors from the checker are *Error with
// positions in the text.
func FuzzLoadCheck(f *testing.F) {
	for _, glob := range []string{"testdata/errors/*.go", "testdata/ok/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(src))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		u, err := loadSource(src, "F", newConfig([]Option{WithFilename("fuzz.go")}))
		if err != nil {
			return
		}
		err = check(u)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("check returned %T: %v", err, err)
		}
		if e != nil {
			for _, d := range e.Diags {
				if d.Pos.Filename != "fuzz.go" || d.Pos.Line < 1 {
					t.Fatalf("diagnostic without a position in the text: %s", d)
				}
			}
		}
	})
}
