//go:build !amd64

package host

// readCPU returns an empty identity: only amd64 reads CPUID. Callers that
// need to tell hosts apart then fall back to asking LLVM.
func readCPU() CPU { return CPU{} }

// cpuidCaches reports false: only amd64 reads CPUID.
func cpuidCaches() (Caches, bool) { return Caches{}, false }
