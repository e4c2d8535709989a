//go:build cgo && !nollvm

package llvm

/*
#cgo CFLAGS: -I/usr/lib/llvm-19/include -D_GNU_SOURCE -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS
#cgo LDFLAGS: -ldl -lm

#include <dlfcn.h>
#include <stdlib.h>
#include "shim.h"
#include "llvm_table.h"

// The trampoline lives in the preamble so cgo's generated wrapper calls it
// directly. Its arguments are integers, not pointers: for a pointer argument
// cgo checks on every call that the pointed-to object holds no unpinned Go
// pointers, which measured ~70ns on top of a ~40ns bare cgo call.
static void gojit_call(uintptr_t fn, uintptr_t args) {
	((void (*)(void **))fn)((void **)args);
}

// The direct calls take each buffer as its own argument and build the
// void** array on the C stack, so the caller needs no runtime.Pinner (a
// span lock per pointer). The buffers travel as integers for the reason
// given above gojit_call; CallDirect explains why that is sound.
typedef uintptr_t P;
static void gojit_call4(uintptr_t fn, P a0, P a1, P a2, P a3) {
	void *args[4] = {(void *)a0, (void *)a1, (void *)a2, (void *)a3};
	((void (*)(void **))fn)(args);
}

static void gojit_call8(uintptr_t fn, P a0, P a1, P a2, P a3, P a4, P a5, P a6, P a7) {
	void *args[8] = {(void *)a0, (void *)a1, (void *)a2, (void *)a3,
			 (void *)a4, (void *)a5, (void *)a6, (void *)a7};
	((void (*)(void **))fn)(args);
}

static void gojit_call16(uintptr_t fn, P a0, P a1, P a2, P a3, P a4, P a5, P a6, P a7,
			 P a8, P a9, P a10, P a11, P a12, P a13, P a14, P a15) {
	void *args[16] = {(void *)a0, (void *)a1, (void *)a2, (void *)a3,
			  (void *)a4, (void *)a5, (void *)a6, (void *)a7,
			  (void *)a8, (void *)a9, (void *)a10, (void *)a11,
			  (void *)a12, (void *)a13, (void *)a14, (void *)a15};
	((void (*)(void **))fn)(args);
}

// gojit_call_range16 is gojit_call_range with the argument array built on
// the C stack from up to 16 buffers passed as integers, like gojit_call16.
static void gojit_call_range16(uintptr_t fn, int64_t group, int64_t start, int64_t end, int64_t size,
			       P a0, P a1, P a2, P a3, P a4, P a5, P a6, P a7,
			       P a8, P a9, P a10, P a11, P a12, P a13, P a14, P a15) {
	void *args[16] = {(void *)a0, (void *)a1, (void *)a2, (void *)a3,
			  (void *)a4, (void *)a5, (void *)a6, (void *)a7,
			  (void *)a8, (void *)a9, (void *)a10, (void *)a11,
			  (void *)a12, (void *)a13, (void *)a14, (void *)a15};
	((void (*)(void **, int64_t, int64_t, int64_t, int64_t))fn)(args, group, start, end, size);
}

// gojit_call_range runs one group of a kernel over [start, end): void
// f(void **args, int64 group, int64 start, int64 end, int64 size), size
// being the dynamic dimension's (0 for kernels without one). args must be
// pinned.
static void gojit_call_range(uintptr_t fn, uintptr_t args, int64_t group, int64_t start, int64_t end, int64_t size) {
	((void (*)(void **, int64_t, int64_t, int64_t, int64_t))fn)((void **)args, group, start, end, size);
}

// gojit_dlsym resolves a kernel's external symbol among those the process
// exports (the executable, libc, libm; not libLLVM, which is RTLD_LOCAL),
// as ORC's process symbol generator does.
static uintptr_t gojit_dlsym(const char *name) {
	return (uintptr_t)dlsym(RTLD_DEFAULT, name);
}

static int gojit_version_major(void) { return LLVM_VERSION_MAJOR; }
static int gojit_version_minor(void) { return LLVM_VERSION_MINOR; }
static int gojit_version_patch(void) { return LLVM_VERSION_PATCH; }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/llvm/objload"
)

// lib is the state of the run-time load of libLLVM (dl.c).
var lib struct {
	once  sync.Once
	tried atomic.Bool // once has run
	err   error
	took  time.Duration // wall time of the load, for LoadTime
}

// libError is the failure to load libLLVM: errors.Is(err, ErrUnavailable)
// holds, so callers that fall back without LLVM do so here too.
type libError struct{ msg string }

func (e *libError) Error() string        { return e.msg }
func (e *libError) Is(target error) bool { return target == ErrUnavailable }

// open loads libLLVM and resolves its entry points on first use; every
// function that calls into LLVM calls it first.
func open() error {
	lib.once.Do(func() {
		if p := preferredLibrary(); p != "" {
			C.gojit_llvm_prefer(C.CString(p)) // kept for the process's lifetime
		}
		t := time.Now()
		if msg := C.gojit_llvm_open(); msg != nil {
			lib.err = &libError{C.GoString(msg)}
		}
		lib.took = time.Since(t)
		lib.tried.Store(true)
	})
	return lib.err
}

// preferredLibrary returns the library to try before the distribution's:
// the one EnvLibrary names, or else the trimmed library when a usable one
// is in the cache directory; "" for none (EnvLibrary=system, or tests
// that replaced the paths).
func preferredLibrary() string {
	if pathsReplaced {
		return ""
	}
	switch v := os.Getenv(EnvLibrary); v {
	case "system":
		return ""
	case "":
	default:
		return v
	}
	p, err := TrimmedLibrary()
	if err != nil || usableTrimmed(p) != nil {
		return ""
	}
	return p
}

// usableTrimmed reports whether path holds a library that may be loaded:
// a regular file owned by this user and writable by no one else, in a
// directory writable by no one else. Anything that could write the file
// could run code in every gojit process, hence the ownership rules
// (those of the disk cache).
func usableTrimmed(path string) error {
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if p == path && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is writable by group or others (%v)", p, fi.Mode().Perm())
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			return fmt.Errorf("%s is owned by uid %d, not %d", p, st.Uid, os.Getuid())
		}
	}
	return nil
}

// pathsReplaced records that tests replaced the library paths
// (useLibraryPaths), which then are the only ones tried.
var pathsReplaced bool

// libraryPaths are the absolute paths dl.c tries first, in its order.
var libraryPaths = []string{
	fmt.Sprintf("/usr/lib/llvm-%d/lib/libLLVM.so.%d.%d", C.gojit_version_major(), C.gojit_version_major(), C.gojit_version_minor()),
	fmt.Sprintf("/usr/lib/llvm-%d/lib/libLLVM-%d.so", C.gojit_version_major(), C.gojit_version_major()),
}

// useLibraryPaths replaces the files the library is looked for in, for
// both Available's check and the load; it must run before anything
// loads the library. Tests use it to exercise a missing library.
func useLibraryPaths(paths []string) {
	arr := (*[1 << 20]*C.char)(C.malloc(C.size_t(len(paths)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	for i, p := range paths {
		arr[i] = C.CString(p) // kept for the process's lifetime
	}
	C.gojit_llvm_set_candidates(&arr[0], C.int(len(paths)))
	libraryPaths = paths
	pathsReplaced = true
}

// Available reports whether LLVM can be used: this build has it (cgo, no
// nollvm tag) and libLLVM is loaded or can be found. It does not load the
// library when one of the usual paths holds it (a file check); only when
// none does is the library loaded to let the dynamic loader search for
// it, and a failure then makes Available false for the rest of the
// process. A library that is found but fails to load surfaces as an
// error (matching ErrUnavailable) from Compile or Load. The file check
// is made once per process: every build asks.
func Available() bool {
	if lib.tried.Load() {
		return lib.err == nil
	}
	if libraryFound() {
		return true
	}
	return open() == nil
}

// libraryFound reports whether one of the usual paths holds libLLVM.
var libraryFound = sync.OnceValue(func() bool {
	for _, p := range libraryPaths {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	// Checked last: a process that never compiles should not spend
	// the trimmed library's path and checks where the usual file will do.
	if p := preferredLibrary(); p != "" {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
})

// Loaded reports whether libLLVM has been loaded into this process, which
// happens on the first Compile, OptimizedIR, Assembly, HostCPU or
// LibraryVersion, and on the first Load or Init that uses ORC.
func Loaded() bool { return lib.tried.Load() && lib.err == nil }

// LoadTime reports how long loading libLLVM took in this process (dlopen,
// its static initializers and resolving the entry points), or 0 if it has
// not been loaded; the startup benchmark reports it.
func LoadTime() time.Duration {
	if !lib.tried.Load() {
		return 0
	}
	return lib.took
}

// Version returns the version of LLVM this package was built for, e.g.
// "19.1.7" (from its headers), without loading the library. The library
// loaded at run time must have the same major and minor version.
func Version() string {
	return fmt.Sprintf("%d.%d.%d", C.gojit_version_major(), C.gojit_version_minor(), C.gojit_version_patch())
}

// LibraryVersion loads libLLVM if needed and returns its version and the
// file it was loaded from.
func LibraryVersion() (version, path string, err error) {
	if err := open(); err != nil {
		return "", "", fmt.Errorf("llvm: %w", err)
	}
	var maj, min, patch C.unsigned
	C.gojit_version(&maj, &min, &patch)
	return fmt.Sprintf("%d.%d.%d", maj, min, patch), C.GoString(C.gojit_llvm_path()), nil
}

// HostCPU returns the host CPU name and LLVM feature string (as reported by
// LLVMGetHostCPUName and LLVMGetHostCPUFeatures) that every compilation
// targets. It loads libLLVM; when that fails it returns empty strings.
func HostCPU() (name, features string) {
	if open() != nil {
		return "", ""
	}
	return C.GoString(C.gojit_host_cpu_name()), C.GoString(C.gojit_host_cpu_features())
}

// Compile parses the LLVM IR text ir, verifies it, optimizes it with the
// "default<On>" pipeline for the host CPU and emits an ELF relocatable object
// ready for Load. name labels the module in error messages. Invalid IR yields
// an error carrying LLVM's message instead of aborting the process. Compile is
// safe for concurrent use.
func Compile(name, ir string, opt Options) (*Compiled, error) {
	obj, st, err := compile(name, ir, opt, C.GOJIT_EMIT_OBJECT)
	if err != nil {
		return nil, err
	}
	return &Compiled{Object: obj, CPU: st}, nil
}

// OptimizedIR runs the same parse, verify and optimize steps as Compile and
// returns the optimized module as LLVM IR text.
func OptimizedIR(name, ir string, opt Options) (string, error) {
	b, _, err := compile(name, ir, opt, C.GOJIT_EMIT_IR)
	return string(b), err
}

// Assembly runs the same steps as Compile and returns host assembly text
// instead of an object file.
func Assembly(name, ir string, opt Options) (string, error) {
	b, _, err := compile(name, ir, opt, C.GOJIT_EMIT_ASM)
	return string(b), err
}

func compile(name, ir string, opt Options, kind C.int) ([]byte, StageTimes, error) {
	if err := opt.validate(); err != nil {
		return nil, StageTimes{}, fmt.Errorf("llvm: compile %q: %w", name, err)
	}
	if err := open(); err != nil {
		return nil, StageTimes{}, fmt.Errorf("llvm: compile %q: %w", name, err)
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	flat, quick := 0, 0
	if opt.Flat {
		flat = 1
	}
	if opt.QuickBackend {
		quick = 1
	}
	// The IR is passed in place: string bytes hold no Go pointers, and
	// the C side copies them before returning.
	var res C.gojit_result
	rc := C.gojit_compile(cname, (*C.char)(unsafe.Pointer(unsafe.StringData(ir))),
		C.size_t(len(ir)), C.int(opt.OptLevel), C.int(flat), C.int(quick), kind, &res)
	defer C.free(unsafe.Pointer(res.data))
	if rc != 0 {
		msg := C.GoString(res.err)
		C.free(unsafe.Pointer(res.err))
		// Parser messages end with a caret line and a newline.
		return nil, StageTimes{}, fmt.Errorf("llvm: compile %q: %s", name, strings.TrimRight(msg, "\n"))
	}
	st := StageTimes{Parse: time.Duration(res.parse_ns), Optimize: time.Duration(res.opt_ns), Emit: time.Duration(res.emit_ns)}
	return C.GoBytes(unsafe.Pointer(res.data), C.int(res.len)), st, nil
}

// jit is the process-wide LLJIT. It is never disposed: kernels may be live
// until the process exits, and ORC frees per-kernel memory through trackers.
var jit struct {
	once sync.Once
	ref  C.LLVMOrcLLJITRef
	err  error
}

// Init creates the process-wide JIT if it does not exist yet. Load does it
// on first use; calling Init first moves that one-time cost (a few hundred
// microseconds) out of the first load, for example to measure loads alone.
func Init() error {
	if _, err := getJIT(); err != nil {
		return fmt.Errorf("llvm: %w", err)
	}
	return nil
}

func getJIT() (C.LLVMOrcLLJITRef, error) {
	jit.once.Do(func() {
		if err := open(); err != nil {
			jit.err = err
			return
		}
		var cerr *C.char
		jit.ref = C.gojit_jit_create(&cerr)
		if jit.ref == nil {
			jit.err = errors.New(C.GoString(cerr))
			C.free(unsafe.Pointer(cerr))
		}
	})
	return jit.ref, jit.err
}

// Kernel is native code loaded into the process, either by objload (an
// image of its own) or into the process-wide JIT under its own ORC
// ResourceTracker; either way it can be freed independently of other
// kernels.
type Kernel struct {
	addr   uintptr
	symbol string
	// mu guards rt and img so that a second Free, even a concurrent one,
	// sees nil. Call never takes it.
	mu  sync.Mutex
	rt  C.LLVMOrcResourceTrackerRef
	img *objload.Image
}

// Load links obj (from Compile) into the process with the default loader
// (LoaderAuto, or as GOJIT_LOADER says; see LoaderEnv) and resolves symbol
// in it. External references such as expf resolve against the symbols of
// the running process. Load is safe for concurrent use.
func Load(obj []byte, symbol string) (*Kernel, error) {
	how, err := defaultLoader()
	if err != nil {
		return nil, err
	}
	return LoadWith(obj, symbol, how)
}

// LoadWith is Load with the loader chosen by the caller.
//
// Objects linked by objload (LoaderNative, and LoaderAuto for every
// object it supports) each live in their own image, need no LLVM, and may
// define the same names as other live kernels. Objects linked by ORC
// share the JIT's one namespace: loading an object that defines a name
// another live ORC kernel already defines fails with a
// duplicate-definition error, and the name becomes available again once
// that kernel is freed.
func LoadWith(obj []byte, symbol string, how Loader) (*Kernel, error) {
	if len(obj) == 0 {
		return nil, fmt.Errorf("llvm: load %q: empty object", symbol)
	}
	switch how {
	case LoaderAuto, LoaderNative:
		img, err := objload.Load(obj, resolveProcess)
		if err == nil {
			addr, ok := img.Symbol(symbol)
			if !ok {
				img.Free()
				return nil, fmt.Errorf("llvm: load %q: the object does not define it", symbol)
			}
			return &Kernel{addr: addr, symbol: symbol, img: img}, nil
		}
		if how == LoaderNative || !errors.Is(err, objload.ErrUnsupported) {
			return nil, fmt.Errorf("llvm: load %q: %w", symbol, err)
		}
	case LoaderORC:
	default:
		return nil, fmt.Errorf("llvm: load %q: unknown %v", symbol, how)
	}
	return loadORC(obj, symbol)
}

// resolveProcess is objload's resolver: the symbols the process exports.
func resolveProcess(name string) uintptr {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return uintptr(C.gojit_dlsym(cname))
}

func loadORC(obj []byte, symbol string) (*Kernel, error) {
	j, err := getJIT()
	if err != nil {
		return nil, fmt.Errorf("llvm: load %q: %w", symbol, err)
	}
	csym := C.CString(symbol)
	defer C.free(unsafe.Pointer(csym))
	var (
		rt   C.LLVMOrcResourceTrackerRef
		addr C.uint64_t
		cerr *C.char
	)
	if C.gojit_load(j, (*C.char)(unsafe.Pointer(&obj[0])), C.size_t(len(obj)),
		csym, &rt, &addr, &cerr) != 0 {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("llvm: load %q: %s", symbol, msg)
	}
	return &Kernel{addr: uintptr(addr), symbol: symbol, rt: rt}, nil
}

// Addr returns the address of the kernel's entry point, or 0 after Free.
func (k *Kernel) Addr() uintptr { return k.addr }

// Call runs the kernel as the C function void f(void **args). args must
// point to memory that may be passed to C under the cgo pointer rules (for
// Go memory: the pointer array and everything it points to pinned, e.g.
// with runtime.Pinner). Call neither allocates nor locks; calling it after
// or concurrently with Free is a programming error.
func (k *Kernel) Call(args unsafe.Pointer) {
	if k.addr == 0 {
		panic("llvm: Call on freed kernel " + k.symbol)
	}
	C.gojit_call(C.uintptr_t(k.addr), C.uintptr_t(uintptr(args)))
	// args travelled as an integer; keep its referent reachable until
	// the kernel has returned even if the caller's pin was the last use.
	runtime.KeepAlive(args)
}

// CallDirect runs the kernel as void f(void **args) with args[i] = ptrs[i]
// for the first n entries (n <= MaxDirect). It neither allocates nor locks.
//
// The pointers must be to numeric array data: memory that holds no Go
// pointers. They cross into C as integers, which skips cgo's per-call check
// of each pointer argument (about 100 ns for three buffers, a third of a
// small call). That is sound because the check could only confirm what the
// caller guarantees, and because of the properties it would otherwise rely
// on:
//   - the cgo rules allow passing C a Go pointer to memory without Go
//     pointers, for the duration of the call, which is all the kernel
//     does: it keeps no pointer after it returns;
//   - Go's heap does not move objects, and a goroutine's stack is not moved
//     while it is in a cgo call (stacks shrink only at safe points, which a
//     goroutine in a call is not at);
//   - the pointed-to objects stay reachable until the call returns:
//     runtime.KeepAlive(ptrs) below keeps the pointer array live, and it
//     refers to them.
func (k *Kernel) CallDirect(ptrs *[MaxDirect]unsafe.Pointer, n int) {
	if k.addr == 0 {
		panic("llvm: Call on freed kernel " + k.symbol)
	}
	fn := C.uintptr_t(k.addr)
	var p [MaxDirect]C.uintptr_t
	for i := range n {
		p[i] = C.uintptr_t(uintptr(ptrs[i]))
	}
	switch {
	case n <= 4:
		C.gojit_call4(fn, p[0], p[1], p[2], p[3])
	case n <= 8:
		C.gojit_call8(fn, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
	case n <= MaxDirect:
		C.gojit_call16(fn, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
			p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15])
	default:
		panic(fmt.Sprintf("llvm: CallDirect with %d pointers (max %d)", n, MaxDirect))
	}
	runtime.KeepAlive(ptrs)
}

// Lookup resolves another symbol defined by the kernel's object (for
// example a second entry point). The address is valid until Free.
func (k *Kernel) Lookup(symbol string) (uintptr, error) {
	k.mu.Lock()
	img := k.img
	k.mu.Unlock()
	if img != nil {
		if a, ok := img.Symbol(symbol); ok {
			return a, nil
		}
		return 0, fmt.Errorf("llvm: lookup %q: not defined by kernel %s", symbol, k.symbol)
	}
	j, err := getJIT()
	if err != nil {
		return 0, err
	}
	csym := C.CString(symbol)
	defer C.free(unsafe.Pointer(csym))
	var (
		addr C.uint64_t
		cerr *C.char
	)
	if C.gojit_lookup(j, csym, &addr, &cerr) != 0 {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return 0, fmt.Errorf("llvm: lookup %q: %s", symbol, msg)
	}
	return uintptr(addr), nil
}

// CallRange calls the function at addr (from Lookup) as
// void f(void **args, int64 group, int64 start, int64 end, int64 size),
// where size is the dynamic dimension's size for kernels that have one.
// args must point to memory that may be passed to C under the cgo rules:
// the pointer array and everything it points to pinned. Safe to call from
// several goroutines at once on disjoint ranges.
func CallRange(addr uintptr, args unsafe.Pointer, group, start, end, size int64) {
	C.gojit_call_range(C.uintptr_t(addr), C.uintptr_t(uintptr(args)), C.int64_t(group), C.int64_t(start), C.int64_t(end), C.int64_t(size))
	runtime.KeepAlive(args)
}

// CallRangeDirect is CallRange with the argument array given as up to
// MaxDirect buffers, which cross into C as integers exactly as in
// CallDirect (whose comment gives the rules the buffers must follow), so
// nothing needs pinning.
func CallRangeDirect(addr uintptr, ptrs *[MaxDirect]unsafe.Pointer, group, start, end, size int64) {
	var p [MaxDirect]C.uintptr_t
	for i, q := range ptrs {
		p[i] = C.uintptr_t(uintptr(q))
	}
	C.gojit_call_range16(C.uintptr_t(addr), C.int64_t(group), C.int64_t(start), C.int64_t(end), C.int64_t(size),
		p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15])
	runtime.KeepAlive(ptrs)
}

// Free removes the kernel's code and data from the JIT and releases its
// tracker. Freeing an already freed kernel does nothing and returns nil.
func (k *Kernel) Free() error {
	k.mu.Lock()
	rt, img := k.rt, k.img
	k.rt, k.img = nil, nil
	k.addr = 0
	k.mu.Unlock()
	if img != nil {
		if err := img.Free(); err != nil {
			return fmt.Errorf("llvm: free %q: %w", k.symbol, err)
		}
		return nil
	}
	if rt == nil {
		return nil
	}
	var cerr *C.char
	if C.gojit_free(rt, &cerr) != 0 {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return fmt.Errorf("llvm: free %q: %s", k.symbol, msg)
	}
	return nil
}
