//go:build !cgo || nollvm

package llvm

import (
	"fmt"
	"time"
	"unsafe"
)

// This file is the pure-Go twin of llvm.go, used when cgo is off or the
// nollvm tag is set. The API and its documented semantics are the same
// except that nothing compiles or loads: Available reports false and every
// operation returns ErrUnavailable, so callers can fall back (for example to
// an interpreter) without build tags of their own.

// Available reports whether this build has LLVM compiled in; always false
// here.
func Available() bool { return false }

// Version returns "" because no LLVM library is linked.
func Version() string { return "" }

// HostCPU returns empty strings because no LLVM library is linked.
func HostCPU() (name, features string) { return "", "" }

// Compile returns ErrUnavailable in this build (after rejecting invalid
// options, as the LLVM build does).
func Compile(name, ir string, opt Options) (*Compiled, error) {
	return nil, unavailable(name, opt)
}

// OptimizedIR returns ErrUnavailable in this build.
func OptimizedIR(name, ir string, opt Options) (string, error) {
	return "", unavailable(name, opt)
}

// Assembly returns ErrUnavailable in this build.
func Assembly(name, ir string, opt Options) (string, error) {
	return "", unavailable(name, opt)
}

func unavailable(name string, opt Options) error {
	if err := opt.validate(); err != nil {
		return fmt.Errorf("llvm: compile %q: %w", name, err)
	}
	return ErrUnavailable
}

// Kernel is loaded native code. No Kernel can be obtained in this build.
type Kernel struct{}

// Load always returns ErrUnavailable in this build (or the error of an
// invalid GOJIT_LOADER, as in the LLVM build).
func Load(obj []byte, symbol string) (*Kernel, error) {
	if _, err := defaultLoader(); err != nil {
		return nil, err
	}
	return nil, ErrUnavailable
}

// LoadWith always returns ErrUnavailable in this build: without cgo no
// loaded code could be called.
func LoadWith(obj []byte, symbol string, how Loader) (*Kernel, error) {
	return nil, ErrUnavailable
}

// Loaded reports false: no LLVM library is ever loaded in this build.
func Loaded() bool { return false }

// LoadTime reports 0: no library is loaded in this build.
func LoadTime() time.Duration { return 0 }

// LibraryVersion returns ErrUnavailable in this build.
func LibraryVersion() (version, path string, err error) { return "", "", ErrUnavailable }

// Addr returns 0: there is no code in this build.
func (k *Kernel) Addr() uintptr { return 0 }

// Call panics: no Kernel can exist in this build, so reaching it is a
// programming error.
func (k *Kernel) Call(args unsafe.Pointer) { panic(ErrUnavailable) }

// Free returns ErrUnavailable in this build.
func (k *Kernel) Free() error { return ErrUnavailable }

// CallDirect panics: there is no kernel to call in this build.
func (k *Kernel) CallDirect(ptrs *[MaxDirect]unsafe.Pointer, n int) { panic(ErrUnavailable) }

// Lookup returns ErrUnavailable.
func (k *Kernel) Lookup(symbol string) (uintptr, error) { return 0, ErrUnavailable }

// CallRange panics: there is no kernel to call in this build.
func CallRange(addr uintptr, args unsafe.Pointer, group, start, end, size int64) {
	panic(ErrUnavailable)
}

// Init reports ErrUnavailable.
func Init() error { return ErrUnavailable }

// CallRangeDirect panics: there is no kernel to call in this build.
func CallRangeDirect(addr uintptr, ptrs *[MaxDirect]unsafe.Pointer, group, start, end, size int64) {
	panic(ErrUnavailable)
}
