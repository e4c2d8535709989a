//go:build cgo && !nollvm

package codegen_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
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

// TestForcedWidthSameCode checks on an AVX-512 host that asking the
// vectorizer for the width (vectorWidth) changes nothing in the machine
// code of float32 and float64 flat functions without a range entry
// where it is asked for (no remainder), only the
// time the vectorizer spends choosing: the same module with the request
// renamed into a loop property LLVM ignores compiles to the same
// assembly.
func TestForcedWidthSameCode(t *testing.T) {
	_, features := llvm.HostCPU()
	if !strings.Contains(features, "+avx512f") || !strings.Contains(features, "+avx512vl") {
		t.Skip("host without AVX-512")
	}
	for _, dt := range []string{"f32", "f64"} {
		for _, n := range []int{3, 16, 64, 1000, 1024, 4096} {
			text := fmt.Sprintf(`graph {
  %%0 = param 0 : %[1]s[%[2]d]
  %%1 = param 1 : %[1]s[%[2]d]
  %%2 = add %%0, %%1 : %[1]s[%[2]d]
  %%3 = mul %%2, %%0 : %[1]s[%[2]d]
  %%4 = exp %%3 : %[1]s[%[2]d]
  %%5 = max %%4, %%1 : %[1]s[%[2]d]
  %%6 = sqrt %%5 : %[1]s[%[2]d]
  return %%6
}`, dt, n)
			g, err := ir.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("k_%s_%d", dt, n)
			whole := func(int, codegen.Group) bool { return false } // no range entry, as for small kernels
			mod, err := codegen.GenerateSplit(passes.Fuse(g), name, codegen.Target{AVX512: true}, whole)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(mod.Text, "llvm.loop.vectorize.width") {
				if n%64 == 0 {
					t.Errorf("%s: no width requested:\n%s", name, mod.Text)
				}
				continue
			}
			opt := llvm.Options{OptLevel: 3, Flat: mod.Flat}
			forced, err := llvm.Assembly(name+".ll", mod.Text, opt)
			if err != nil {
				t.Fatal(err)
			}
			free, err := llvm.Assembly(name+".ll", strings.Replace(mod.Text, "llvm.loop.vectorize.width", "gojit.ignored", 1), opt)
			if err != nil {
				t.Fatal(err)
			}
			if forced != free {
				t.Errorf("%s: the requested width changed the code\nwith it:\n%s\nwithout:\n%s", name, forced, free)
			}
		}
	}
}

// TestFlatInlined checks that a flat module without a range entry
// compiles to one function, its group inlined into the entry after
// vectorization, and that a module with a range entry keeps the group a
// function the two entries share.
func TestFlatInlined(t *testing.T) {
	g, err := ir.Parse(goldenCases["chain"])
	if err != nil {
		t.Fatal(err)
	}
	whole := func(int, codegen.Group) bool { return false }
	for _, c := range []struct {
		name  string
		split func(int, codegen.Group) bool
		want  int
	}{{"whole", whole, 1}, {"range", nil, 3}} {
		mod, err := codegen.GenerateSplit(passes.Fuse(g), "k_inl_"+c.name, codegen.Target{}, c.split)
		if err != nil {
			t.Fatal(err)
		}
		if !mod.Flat {
			t.Fatalf("%s: the chain module is not flat", c.name)
		}
		asm, err := llvm.Assembly(c.name+".ll", mod.Text, llvm.Options{OptLevel: 3, Flat: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(asm, ",@function"); n != c.want {
			t.Errorf("%s: %d functions, want %d:\n%s", c.name, n, c.want, asm)
		}
	}
}
