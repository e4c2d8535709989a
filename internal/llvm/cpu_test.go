//go:build cgo && !nollvm

package llvm

import (
	"slices"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/host"
)

// The kernel signature names the host by host.HostCPU (CPUID, no LLVM)
// while the code is generated for LLVM's host name and features: every
// feature bit host reads must agree with LLVM's, including those the code
// generator relies on.
func TestHostFeaturesAgreeWithLLVM(t *testing.T) {
	cpu := host.HostCPU()
	if !cpu.Known() {
		t.Skip("host reads CPUID on amd64 only")
	}
	name, features := HostCPU()
	llvmFeatures := strings.Split(features, ",")
	for _, f := range host.FeatureNames() {
		on, off := slices.Contains(llvmFeatures, "+"+f), slices.Contains(llvmFeatures, "-"+f)
		if !on && !off {
			t.Errorf("LLVM's host features do not mention %q", f)
			continue
		}
		if cpu.Has(f) != on {
			t.Errorf("%s: CPUID %t, LLVM %t", f, cpu.Has(f), on)
		}
	}
	for _, f := range []string{"avx512f", "avx512vl", "avx2", "fma"} {
		if !slices.Contains(host.FeatureNames(), f) {
			t.Errorf("host does not read %s, which the code generator relies on", f)
		}
	}
	t.Logf("LLVM: %s; CPUID: %s", name, cpu)
}
