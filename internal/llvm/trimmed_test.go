//go:build cgo && !nollvm

package llvm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// trimmedForTest returns a trimmed library to test: the one in the cache
// directory when it is usable, else one linked into a temporary directory
// (a few seconds; skipped with -short or without the static libraries).
func trimmedForTest(t *testing.T) string {
	t.Helper()
	if p, err := TrimmedLibrary(); err == nil && usableTrimmed(p) == nil {
		return p
	}
	if testing.Short() {
		t.Skip("no trimmed libLLVM in the cache directory (gojit setup), and -short forbids linking one")
	}
	major, _, _ := strings.Cut(Version(), ".")
	if _, err := findLLVMConfig(major); err != nil {
		t.Skip(err)
	}
	p := filepath.Join(t.TempDir(), "libLLVM-gojit-test.so")
	if err := buildTrimmedAt(p, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// compileReport is what the child of TestTrimmedAgrees prints: the library
// it loaded, then a hash of every artifact compiled from the test kernels.
func compileReport(t *testing.T) string {
	_, path, err := LibraryVersion()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "library %s\n", path)
	kernels := []struct{ name, ir string }{
		{"add", addIR("gojit_t_add")},
		{"math", fmt.Sprintf(mathKernel, "gojit_t_math")},
		{"memset", fmt.Sprintf(memsetKernel, "gojit_t_memset")},
		{"switch", fmt.Sprintf(switchKernel, "gojit_t_switch")},
	}
	for _, k := range kernels {
		for _, opt := range []Options{{OptLevel: 0}, {OptLevel: 1}, {OptLevel: 2}, {OptLevel: 3}, {OptLevel: 3, Flat: true}} {
			c, err := Compile(k.name, k.ir, opt)
			if err != nil {
				t.Fatal(err)
			}
			asm, err := Assembly(k.name, k.ir, opt)
			if err != nil {
				t.Fatal(err)
			}
			oir, err := OptimizedIR(k.name, k.ir, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []struct {
				what string
				data []byte
			}{{"object", c.Object}, {"asm", []byte(asm)}, {"ir", []byte(oir)}} {
				h := sha256.Sum256(a.data)
				fmt.Fprintf(&b, "%s O%d flat=%t %s %s\n", k.name, opt.OptLevel, opt.Flat, a.what, hex.EncodeToString(h[:8]))
			}
		}
	}
	return b.String()
}

// runChild runs test in a fresh process with GOJIT_LLVM_LIBRARY=lib and
// returns what it printed between the markers.
func runChild(t *testing.T, test, lib string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOJIT_TEST_TRIMMED_CHILD=1", EnvLibrary+"="+lib)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s with %s=%s: %v\n%s", test, EnvLibrary, lib, err, out)
	}
	s := string(out)
	i, j := strings.Index(s, "<<<\n"), strings.Index(s, ">>>")
	if i < 0 || j < i {
		t.Fatalf("%s: no report in\n%s", test, s)
	}
	return s[i+4 : j]
}

// The trimmed library and the distribution's give the same objects,
// assembly and optimized IR, byte for byte, at every level and both
// pipelines. Each library is loaded in a fresh process.
func TestTrimmedAgrees(t *testing.T) {
	if os.Getenv("GOJIT_TEST_TRIMMED_CHILD") == "1" {
		fmt.Printf("<<<\n%s>>>\n", compileReport(t))
		return
	}
	trimmed := trimmedForTest(t)
	got := runChild(t, "TestTrimmedAgrees", trimmed)
	want := runChild(t, "TestTrimmedAgrees", "system")
	gl, wl := strings.SplitN(got, "\n", 2), strings.SplitN(want, "\n", 2)
	if gl[0] != "library "+trimmed {
		t.Fatalf("trimmed child loaded %q, want %s", gl[0], trimmed)
	}
	if strings.Contains(wl[0], "libLLVM-gojit") {
		t.Fatalf("system child loaded %q", wl[0])
	}
	if gl[1] != wl[1] {
		t.Errorf("trimmed (%s) and system (%s) libraries differ:\n%s\nvs\n%s", gl[0], wl[0], gl[1], wl[1])
	}
	t.Logf("%d artifacts identical; %s vs %s", strings.Count(gl[1], "\n"), gl[0], wl[0])
}

// A preferred library that cannot be used (not a library; one without
// LLVM's functions) falls back to the distribution's.
func TestTrimmedFallback(t *testing.T) {
	if os.Getenv("GOJIT_TEST_TRIMMED_CHILD") == "1" {
		_, path, err := LibraryVersion()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("<<<\n%s>>>\n", path)
		return
	}
	junk := filepath.Join(t.TempDir(), "junk.so")
	if err := os.WriteFile(junk, []byte("not an ELF file"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{junk, "libz.so.1", "/nonexistent/libLLVM-gojit.so"} {
		path := runChild(t, "TestTrimmedFallback", lib)
		if path == lib || path == "" {
			t.Errorf("%s=%s: loaded %q, want the fallback", EnvLibrary, lib, path)
		}
	}
}

// usableTrimmed refuses files others could have written.
func TestTrimmedOwnership(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "lib.so")
	if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := usableTrimmed(p); err != nil {
		t.Errorf("owner-only file refused: %v", err)
	}
	if err := os.Chmod(p, 0o775); err != nil {
		t.Fatal(err)
	}
	if err := usableTrimmed(p); err == nil {
		t.Error("group-writable file accepted")
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := usableTrimmed(p); err == nil {
		t.Error("file in a world-writable directory accepted")
	}
	if err := usableTrimmed(dir); err == nil {
		t.Error("directory accepted as a library")
	}
}

// The exports are the table's functions and the native target's
// initializers, and the path changes with them.
func TestTrimmedExports(t *testing.T) {
	names, err := trimmedExports()
	if _, ok := targetNames[runtime.GOARCH]; !ok {
		t.Skipf("no trimmed library for GOARCH %s", runtime.GOARCH)
	}
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, n := range []string{"LLVMGetVersion", "LLVMRunPasses", "LLVMTargetMachineEmitToMemoryBuffer", "LLVMOrcCreateLLJIT"} {
		if !have[n] {
			t.Errorf("exports lack %s", n)
		}
	}
	p, err := TrimmedLibrary()
	if err != nil {
		t.Skip(err) // no cache directory (neither $XDG_CACHE_HOME nor $HOME)
	}
	if !strings.Contains(filepath.Base(p), Version()) {
		t.Errorf("path %s does not name LLVM %s", p, Version())
	}
}
