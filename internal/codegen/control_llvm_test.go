//go:build cgo && !nollvm

package codegen_test

import (
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/llvm"
)

// TestLoopDriverVerifies hands the drivers to LLVM, which parses and
// verifies it, and checks that the optimized loop still calls both
// regions through their pointers (the runtime's TestWhilePaths runs it).
func TestLoopDriverVerifies(t *testing.T) {
	text := codegen.Drivers("call", "drv", "seq")
	opt, err := llvm.OptimizedIR("drv.ll", text, llvm.Options{OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(opt, "call void %"); n < 2 {
		t.Errorf("optimized driver makes %d indirect calls, want the cond's and the body's:\n%s", n, opt)
	}
	for _, fn := range []string{"define void @call(ptr", "define void @drv(ptr", "define void @seq(ptr"} {
		if !strings.Contains(opt, fn) {
			t.Errorf("no %q:\n%s", fn, opt)
		}
	}
}
