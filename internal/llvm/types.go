package llvm

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
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
	// Flat replaces the "default<O2>" and "default<O3>" pipelines by a
	// short one of a dozen passes (shim.c, flat_pipeline) that does all
	// the full pipelines do for a module whose every function is one
	// flat loop of elementwise arithmetic (codegen.Module.Flat), in about
	// half the time. Other modules may come out slower: the short
	// pipeline has no inliner, GVN, SLP vectorizer or loop interchange.
	// It does nothing at levels 0 and 1.
	Flat bool
	// QuickBackend runs the backend (instruction selection to the
	// object) at its O0 level, FastISel and the fast register allocator
	// without machine scheduling, after the same optimization pipeline:
	// about 3.5x less emission time (the 6-op function over 16 elements:
	// 4.8 to 1.4 ms of CPU) for code that runs 1.2-1.5x slower over
	// 1,000 elements. It is meant for kernels whose run is mostly the
	// call itself (codegen.Module.Tiny). The results are the same bits
	// for IR without fast-math flags: the backend at any level only
	// selects instructions for the IR's operations, and neither level
	// contracts or reassociates floating-point operations the IR does
	// not allow (FMA contraction only where the IR asks for fmuladd).
	// Where the IR allows contraction ("fast" or "contract" flags), the
	// full backend fuses a multiply and an add that the quick one keeps
	// apart.
	QuickBackend bool
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
	// CPU is the compiling thread's CPU time in each stage.
	CPU StageTimes
}

// StageTimes is the CPU time a compile spent in each stage, read from
// the compiling thread's clock, so time other processes held the CPU does
// not count.
type StageTimes struct {
	// Parse is parsing and verifying the text and preparing the target
	// machine (taken from a pool after the first compile per level).
	Parse time.Duration
	// Optimize is the optimization pipeline.
	Optimize time.Duration
	// Emit is the backend: instruction selection to the object file.
	Emit time.Duration
}

// MaxDirect is the most buffer pointers Kernel.CallDirect passes.
const MaxDirect = 16

// Loader selects how Load links an object into the process.
type Loader int

const (
	// LoaderAuto links with the package's own ELF loader (objload) and
	// hands objects it does not support to ORC. It is Load's default.
	LoaderAuto Loader = iota
	// LoaderNative links only with objload; unsupported objects fail.
	LoaderNative
	// LoaderORC links with the process-wide ORC LLJIT (loading LLVM).
	LoaderORC
)

// String returns the loader's name as GOJIT_LOADER spells it.
func (l Loader) String() string {
	switch l {
	case LoaderAuto:
		return "auto"
	case LoaderNative:
		return "native"
	case LoaderORC:
		return "orc"
	}
	return fmt.Sprintf("Loader(%d)", int(l))
}

// LoaderEnv names the environment variable that overrides Load's loader
// for a whole process: "auto" (the default), "native" or "orc". It is a
// diagnostic switch, read once, like GODEBUG: tests run the same kernels
// through either loader with it, and a user can rule the loader out when
// chasing a bug.
const LoaderEnv = "GOJIT_LOADER"

var defaultLoader = sync.OnceValues(func() (Loader, error) {
	switch v := os.Getenv(LoaderEnv); v {
	case "", "auto":
		return LoaderAuto, nil
	case "native":
		return LoaderNative, nil
	case "orc":
		return LoaderORC, nil
	default:
		return LoaderAuto, fmt.Errorf("llvm: %s=%q: want auto, native or orc", LoaderEnv, v)
	}
})
