package llvm

import (
	"errors"
	"fmt"
)

// The declarations here are shared by the LLVM build (llvm.go) and the
// no-LLVM twin (llvm_stub.go) so the two cannot drift apart.

// ErrUnavailable is returned by every operation in builds without LLVM
// (CGO_ENABLED=0 or the nollvm tag). Builds with LLVM never return it.
var ErrUnavailable = errors.New("llvm: not available in this build (needs cgo and no nollvm tag)")

// Options control compilation.
type Options struct {
	// OptLevel selects the optimization pipeline "default<O0>" through
	// "default<O3>" and the matching backend level. The zero value means
	// O0 (fastest compile, slowest code), not a default of O3: callers
	// that want optimized kernels pass 3 explicitly. Levels 2 and 3 also
	// enable loop and SLP vectorization, as clang does.
	OptLevel int
}

func (o Options) validate() error {
	if o.OptLevel < 0 || o.OptLevel > 3 {
		return fmt.Errorf("OptLevel %d out of range 0..3", o.OptLevel)
	}
	return nil
}

// Compiled is the result of compiling one module.
type Compiled struct {
	// Object is an ELF relocatable object for the host, ready for Load.
	Object []byte
}

// MaxDirect is the most buffer pointers Kernel.CallDirect passes.
const MaxDirect = 16
