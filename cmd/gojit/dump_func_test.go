package main

import (
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

func TestDumpFuncUsage(t *testing.T) {
	for _, args := range [][]string{
		{"dump", "-func", "Saxpy"},
		{"dump", "-func", "github.com/gojit/gojit/source/internal/kernels."},
		{"dump", "-func", "github.com/gojit/gojit/source/internal/kernels.Saxpy", "-stage", "ir"},
	} {
		code, _, errs := gojitRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, "gojit dump:") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
}

// TestDumpFunc prints a function's LLVM IR, loaded by package path and name.
func TestDumpFunc(t *testing.T) {
	code, out, errs := gojitRun(t, "dump", "-func", "github.com/gojit/gojit/source/internal/kernels.Saxpy", "-stage", "llvm")
	if !llvm.Available() {
		// Without LLVM the command fails with a clear error, not a crash.
		if code != exitFail || !strings.Contains(errs, "llvm: not available") {
			t.Fatalf("without LLVM: exit %d, stderr %q", code, errs)
		}
		return
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "dump -func", out, "define void @gojit_src_Saxpy_")
}

func TestSplitFuncName(t *testing.T) {
	for _, tc := range []struct{ in, pkg, name string }{
		{"github.com/you/pkg.Saxpy", "github.com/you/pkg", "Saxpy"},
		{"example.com/m.F", "example.com/m", "F"},
		{".Saxpy", ".", "Saxpy"},
		{"./.Saxpy", ".", "Saxpy"},
		{"./sub.Saxpy", "./sub", "Saxpy"},
		{"../pkg.Saxpy", "../pkg", "Saxpy"},
		{"Saxpy", "", ""},
		{".", "", ""},
		{"./.", "", ""},
		{"pkg.", "", ""},
	} {
		pkg, name, ok := splitFuncName(tc.in)
		if ok != (tc.name != "") || ok && (pkg != tc.pkg || name != tc.name) {
			t.Errorf("splitFuncName(%q) = %q, %q, %v; want %q, %q", tc.in, pkg, name, ok, tc.pkg, tc.name)
		}
	}
}
