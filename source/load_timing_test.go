package source

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/types"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

var loadCompare = flag.Bool("loadcompare", false, "TestLoadTimings: also time go/packages and whole-package go/types (slow)")

// TestLoadTimings measures, in a fresh process (this test binary run again),
// the cold load and check of a 20-line function (smoothK) — parsing its
// package and type-checking what it needs — then a second function of the
// same package (clampK), and, with -loadcompare, the two other ways to
// load a package: go/packages (go list and export data) and go/types over
// every file of the package with the source importer (seconds each). It logs the figures and
// their ratios; it asserts nothing about time (the machine is shared), only
// that every load succeeded.
func TestLoadTimings(t *testing.T) {
	if os.Getenv("GOJIT_LOAD_TIMINGS_CHILD") != "" {
		t.Skip("running as the child")
	}
	args := []string{"-test.run=^TestLoadTimingsChild$", "-test.count=1", "-test.v"}
	if *loadCompare {
		args = append(args, "-loadcompare")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GOJIT_LOAD_TIMINGS_CHILD=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	ms := map[string]float64{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "TIMING" {
			v, _ := strconv.ParseFloat(f[2], 64)
			ms[f[1]] = v
		}
	}
	want := []string{"cold", "second", "again"}
	if *loadCompare {
		want = append(want, "packages", "wholepkg")
	}
	for _, k := range want {
		if _, ok := ms[k]; !ok {
			t.Fatalf("child did not report %s:\n%s", k, out.String())
		}
	}
	t.Logf("fresh process: cold loadFunc+check of smoothK %.1f ms; second function (clampK) %.1f ms (%.2fx of cold); same function again %.1f ms",
		ms["cold"], ms["second"], ms["second"]/ms["cold"], ms["again"])
	if !*loadCompare {
		return
	}
	t.Logf("alternatives in the same process: go/packages load of the package %.1f ms (%.1fx our cold load); go/types over all its files with the source importer %.1f ms (%.1fx)",
		ms["packages"], ms["packages"]/ms["cold"], ms["wholepkg"], ms["wholepkg"]/ms["cold"])
}

func TestLoadTimingsChild(t *testing.T) {
	if os.Getenv("GOJIT_LOAD_TIMINGS_CHILD") == "" {
		t.Skip("run by TestLoadTimings in a fresh process")
	}
	c := newConfig(nil)
	timeIt := func(name string, f func() error) {
		start := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Printf("TIMING %s %.3f\n", name, float64(time.Since(start).Microseconds())/1000)
	}
	loadCheck := func(fn any, name string) func() error {
		return func() error {
			u, err := loadFunc(fn, c)
			if err != nil {
				return err
			}
			if u.fn.Name() != name {
				return fmt.Errorf("loaded %s, want %s", u.fn.Name(), name)
			}
			return check(u)
		}
	}
	timeIt("cold", loadCheck(smoothK, "smoothK"))
	timeIt("second", loadCheck(clampK, "clampK"))
	timeIt("again", loadCheck(smoothK, "smoothK"))
	if !*loadCompare {
		return
	}
	timeIt("packages", func() error {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports, Tests: true, Dir: "."}
		pkgs, err := packages.Load(cfg, ".")
		if err != nil {
			return err
		}
		if len(pkgs) == 0 || pkgs[0].Types == nil {
			return fmt.Errorf("go/packages loaded nothing")
		}
		return nil
	})
	timeIt("wholepkg", func() error {
		pd, err := parseDir(".")
		if err != nil {
			return err
		}
		var files []*ast.File
		for _, f := range append(pd.pkgFiles(0), pd.pkgFiles(1)...) {
			files = append(files, f.file())
		}
		conf := types.Config{Importer: importer.ForCompiler(fileSet, "source", nil), Error: func(error) {}}
		_, err = conf.Check(sourcePath, fileSet, files, nil)
		_ = err // errors (if any) do not matter for the timing
		return nil
	})
}

// BenchmarkLoadFunc: loadFunc+check of the 20-line smoothK with the
// directory cache warm (steady state, as a second compile of the package)
// and cold (parse cache emptied each time; process-level costs such as the
// first read of the std tree are not repeated).
func BenchmarkLoadFunc(b *testing.B) {
	c := newConfig(nil)
	run := func(b *testing.B, cold bool) {
		for i := 0; i < b.N; i++ {
			if cold {
				dirCache = newParseCache(64)
			}
			u, err := loadFunc(smoothK, c)
			if err != nil {
				b.Fatal(err)
			}
			if err := check(u); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("warm", func(b *testing.B) { b.ReportAllocs(); run(b, false) })
	b.Run("cold", func(b *testing.B) { b.ReportAllocs(); run(b, true) })
}
