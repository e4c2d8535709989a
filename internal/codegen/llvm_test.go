//go:build cgo && !nollvm

package codegen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// TestGoldenVerifies hands every golden module to LLVM, which parses and
// verifies it before optimizing: the golden text is valid IR, not just
// stable text.
func TestGoldenVerifies(t *testing.T) {
	for name := range goldenCases {
		mod := generate(t, name)
		if _, err := llvm.Compile(name+".ll", mod.Text, llvm.Options{OptLevel: 3}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestVectorized checks that the elementwise chain compiles to SIMD code
// for the host: AVX-512 or AVX2 registers when the CPU has them.
func TestVectorized(t *testing.T) {
	cpu, features := llvm.HostCPU()
	mod := generate(t, "chain")
	asm, err := llvm.Assembly("vec.ll", mod.Text, llvm.Options{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("host CPU %s", cpu)
	var want *regexp.Regexp
	switch {
	case strings.Contains(features, "+avx512f") || strings.Contains(features, "+avx2"):
		want = regexp.MustCompile(`v(add|mul|sub|max)ps\s+%[yz]mm`)
	case strings.Contains(features, "+sse2"):
		want = regexp.MustCompile(`(add|mul|sub|max)ps\s+%xmm`)
	default:
		t.Skipf("host %s has no x86 SIMD features to check", cpu)
	}
	if !want.MatchString(asm) {
		t.Errorf("no packed vector arithmetic (%s) in the chain kernel:\n%s", want, asm)
	}
}
