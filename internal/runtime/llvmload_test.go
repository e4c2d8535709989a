package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// A process that only runs kernels from the disk cache, or only
// interprets, must not load LLVM (ARCHITECTURE.md, "LLVM only when
// compiling"). Loading is per process, so each case runs in a fresh one:
// the first compiles and fills the cache, the next ones find it.
func TestDiskCacheHitLoadsNoLLVM(t *testing.T) {
	if mode := os.Getenv("GOJIT_TEST_LLVMLOAD"); mode != "" {
		llvmLoadChild(t, mode)
		return
	}
	if !llvm.Available() {
		t.Skip("no LLVM in this build")
	}
	dir := t.TempDir()
	for _, c := range []struct{ mode, want string }{
		{"compile", "loaded=true fromdisk=false"},
		{"cached", "loaded=false fromdisk=true"},
		{"interpret", "loaded=false fromdisk=false"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskCacheHitLoadsNoLLVM$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOJIT_TEST_LLVMLOAD="+c.mode, "GOJIT_TEST_LLVMLOAD_DIR="+dir, llvm.LoaderEnv+"=auto")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.mode, err, out)
		}
		if !strings.Contains(string(out), "llvmload: "+c.want) {
			t.Fatalf("%s: want %q in\n%s", c.mode, c.want, out)
		}
	}
}

func llvmLoadChild(t *testing.T, mode string) {
	if err := withConfig(t, Config{DiskDir: os.Getenv("GOJIT_TEST_LLVMLOAD_DIR")}); err != nil {
		t.Fatal(err)
	}
	if llvm.Loaded() {
		t.Fatal("LLVM loaded before anything was built")
	}
	g := scaledGraph(t, 7, 1000)
	e, err := Build(g, Options{OptLevel: 3, Name: "llvmload", Interpret: mode == "interpret"})
	if err != nil {
		t.Fatal(err)
	}
	if (mode == "interpret") != (e.Module == nil) {
		t.Fatalf("%s: module %v", mode, e.Module != nil)
	}
	if err := checkRun(t, e); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("llvmload: loaded=%t fromdisk=%t\n", llvm.Loaded(), e.FromDisk)
}
