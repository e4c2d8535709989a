// Package llvm turns LLVM IR text into native code for the host and calls it.
//
// It is the only cgo package in gojit. Everything else emits IR as plain
// text, so the rest of the tree builds and tests without a C toolchain, and
// the whole of the project's exposure to LLVM's C API, its ownership rules
// and its failure modes is confined here. It links the shared
// libLLVM-19 (Debian's llvm-19-dev). Builds with CGO_ENABLED=0 or the nollvm
// tag get a pure-Go twin with the same API in which Available reports false
// and every operation returns ErrUnavailable; no build tag is needed to get
// the real thing.
//
// # Pipeline
//
// Compile parses the text, verifies the module, retargets it to the host
// (triple, data layout, CPU name and features from LLVMGetHostCPUName and
// LLVMGetHostCPUFeatures), runs the new pass manager's "default<On>"
// pipeline and emits an ELF object (position-independent, small code
// model). Load adds that object to a process-wide ORC LLJIT and resolves the
// kernel's symbol; Kernel.Call jumps to it through a one-line C trampoline.
// Compiling and loading are separate steps so objects can be cached and
// reloaded without recompiling.
//
// The verifier runs before any optimization because LLVM does not
// report malformed IR gracefully: passes and the backend assume valid
// input and end in assertion failures or report_fatal_error, which abort
// the whole process. Parse and verification failures instead come back as
// Go errors carrying LLVM's message, and each compilation installs a
// diagnostic handler so backend error diagnostics become errors rather
// than LLVM's default of printing them and calling exit(1). Genuinely fatal
// backend failures (report_fatal_error on verified IR) still abort; they
// indicate a bug in the IR generator or LLVM.
//
// # Why ORC LLJIT
//
// MCJIT, driven through the C API, compiles with a TargetMachine it builds
// itself from options that cannot name the host CPU or its features, and it
// frees code only by destroying a whole ExecutionEngine, so unloading
// kernels one by one would mean an engine, TargetMachine and memory manager
// per kernel. LLJIT instead takes finished objects, so the code is exactly
// what our host TargetMachine produced; adding an object to the one
// existing JIT costs only linking, so per-kernel overhead is small; each
// kernel sits under its own ResourceTracker, so Kernel.Free returns its
// memory; and the same object bytes can be loaded again later.
// The JIT is created lazily on the first Load with a
// DynamicLibrarySearchGenerator for the running process, so kernels can
// call libm (expf, tanhf, powf, ...) and any other C symbol the process
// exports. It is never destroyed.
//
// All kernels share the JIT's main JITDylib, hence one symbol namespace.
// Loading an object whose symbol is already defined by a live kernel fails
// at add time with a duplicate-definition error; once that kernel is freed
// the name can be used again. Linking is lazy, so problems inside the object
// such as unresolved external symbols surface only at lookup, which Load
// performs immediately; the JIT reports the root cause (e.g. "Symbols not
// found: [ foo ]") to a session-wide error reporter rather than to the
// lookup, so Load captures it per thread and appends it to the error. When
// several Loads run at once the report can come from another Load's
// thread; the error then still names the kernel but not the root cause,
// which goes to stderr. A failed Load leaves nothing behind in the JIT.
//
// Only kernel entry points should have external linkage, and no kernel
// should reference another's symbols. ORC binds every reference to the
// definition already in the JITDylib: a weak or linkonce helper resolves to
// the first loaded copy, and freeing that kernel leaves the others jumping
// into unmapped memory (observed as SIGSEGV). Helpers and globals belong in
// internal or private linkage.
//
// # Threads
//
// LLVMContext and TargetMachine are not thread-safe, so every Compile
// creates and disposes its own; Compile calls are independent and may run
// concurrently. The LLJIT is shared, and ORC's add, lookup and tracker
// removal are thread-safe, so Load and Free may be called from any
// goroutine. Target initialization happens once per process.
//
// # Calling kernels
//
// Kernels have the C signature void f(void **args). Call passes args to C
// as an integer, which keeps a call at the cost of a bare cgo call (no
// allocation, no lock, no per-call cgocheck of the argument array). In
// exchange the caller must keep the cgo pointer rules by hand: the pointer
// array and all memory it points to must be C memory or pinned Go memory
// (runtime.Pinner) for the duration of the call.
package llvm
