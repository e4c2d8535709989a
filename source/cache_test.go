package source

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// TestDiskCacheNewProcess compiles saxpy in two fresh processes sharing a
// cache directory: the first runs LLVM, the second loads the object from
// disk without loading LLVM at all.
func TestDiskCacheNewProcess(t *testing.T) {
	if os.Getenv("SOURCE_CACHE_CHILD") == "1" {
		f, err := CompileFunc(saxpy)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		y := []float32{1, 2}
		_, err = f.Call(float32(2), []float32{1, 1}, y)
		fmt.Printf("how=%s llvm-loaded=%t y=%v err=%v\n", f.nat.how, llvm.Loaded(), y, err)
		return
	}
	needLLVM(t)
	dir := t.TempDir()
	run := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskCacheNewProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SOURCE_CACHE_CHILD=1", "GOJIT_CACHE_DIR="+dir, "GOJIT_CACHE=on")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	first, second := run(), run()
	if !strings.Contains(first, "how=compiled") || !strings.Contains(first, "y=[3 4] err=<nil>") {
		t.Fatalf("first process:\n%s", first)
	}
	if !strings.Contains(second, "how=disk cache llvm-loaded=false y=[3 4] err=<nil>") {
		t.Fatalf("second process did not load from disk without LLVM:\n%s", second)
	}
}

// TestMemoryCache: a second CompileFunc of the same function in the same
// process reuses the loaded kernel.
func TestMemoryCache(t *testing.T) {
	needLLVM(t)
	f1, err := CompileFunc(sumInts)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := CompileFunc(sumInts)
	if err != nil {
		t.Fatal(err)
	}
	if f2.nat.how != "memory cache" || f1.nat.kernel != f2.nat.kernel {
		t.Fatalf("second compile: %s", f2.nat.how)
	}
}

// TestEnvLogSource: GOJIT_LOG=source logs every stage of a compiled
// function.
func TestEnvLogSource(t *testing.T) {
	if os.Getenv("SOURCE_LOG_CHILD") == "1" {
		if _, err := CompileFunc(saxpy, WithoutCache()); err != nil {
			fmt.Println("error:", err)
		}
		return
	}
	needLLVM(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvLogSource$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SOURCE_LOG_CHILD=1", "GOJIT_LOG=source")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, want := range []string{"source: compiled", "func=saxpy", "stage=source", "stage=ssa", "stage=llvm", "stage=llvm-opt", "stage=asm", "y[i] += a * x[i]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in the log:\n%.2000s", want, out)
		}
	}
}
