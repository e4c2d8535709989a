// Package llvm turns LLVM IR text into native code for the host and calls it.
//
// It is the only cgo package in gojit. Everything else emits IR as plain
// text, so the rest of the tree builds and tests without a C toolchain, and
// the whole of the project's exposure to LLVM's C API, its ownership rules
// and its failure modes is confined here. Builds with CGO_ENABLED=0 or the
// nollvm tag get a pure-Go twin with the same API in which Available
// reports false and every operation returns ErrUnavailable; no build tag
// is needed to get the real thing.
//
// # LLVM only when compiling
//
// A program that imports gojit must not pay for LLVM unless it compiles:
// linking libLLVM made the dynamic loader apply about 341,000 relocations
// (19-21 ms between exec and main on our 2-vCPU machines), and the first
// kernel taken from the disk cache created an ORC LLJIT (about 0.9 ms) and
// initialized LLVM's target only to name the host CPU in its signature.
// Three things keep LLVM out of such a program:
//
//   - Loading. No LLVM library is linked (only libc, libm and libdl).
//     The headers (llvm-19-dev) are used at build time, and the first
//     operation that needs LLVM (Compile, OptimizedIR, Assembly, HostCPU,
//     LibraryVersion, a Load that falls back to ORC, Init) dlopens libLLVM
//     (dl.c): Debian's /usr/lib/llvm-19/lib/libLLVM.so.19.1 and
//     libLLVM-19.so first, then the same names through the dynamic
//     loader's search path. Every LLVM-C function shim.c calls is resolved
//     once into a table of pointers whose types come from the headers
//     (llvm_table.h; shim.c reads each LLVMFoo(...) as a call through the
//     table), and the library's major.minor version must equal the
//     headers'. A missing library or symbol is an error naming the paths
//     tried or the symbol, matching ErrUnavailable, never a crash; a
//     function shim.c calls but the table lacks fails the build, since
//     nothing links it. The library is opened RTLD_LOCAL, so its symbols
//     never satisfy a kernel's external references.
//   - Naming the host. Kernel signatures name the CPU by its CPUID
//     identity (internal/host: vendor, family, model, stepping and the
//     usable feature bits, under LLVM's feature names), which determines
//     LLVM's host CPU name and features and is read without LLVM; a test
//     checks that every feature bit read agrees with LLVM's host feature
//     string. Version reports the headers' LLVM version for the same
//     reason. Compiling still targets LLVM's own host name and features.
//   - Linking. Load links objects with the package's own loader,
//     internal/llvm/objload, and uses ORC only for objects it does not
//     support (LoaderAuto; LoaderEnv forces either, for tests and
//     diagnosis). objload maps the sections, applies the few x86-64
//     relocations LLVM emits for our position-independent, small-code-model
//     kernels, resolves external symbols (memset, memcpy, libm) with
//     dlsym over the process, and hands out the global symbols' addresses;
//     it links a cached kernel in tens of microseconds instead of the
//     ORC JIT's creation plus linking.
//
// What a fresh process's first compile costs (the 6-op function over
// 1,024 elements, median of fresh processes on a loaded 2-vCPU machine):
// dlopen of Debian's libLLVM.so.19.1 14-19 ms (311,000 relative and
// 22,000 symbolic relocations, and its dependencies libz3, libxml2,
// libedit, libffi); initializing the target and naming the host 0.2-0.3
// ms; the first compile 11.7-14.9 ms of wall time against 7.2 ms for a
// later one (its code and data pages fault in; the first TargetMachine);
// linking 0.1 ms. Gojit's own work before the compile (tracing, passes,
// the module's text) is about 1-2 ms. Loading the library in the background
// from gojit.Compile when a compile was certain (the disk cache off or
// its directory absent), to overlap that work, was tried and measured:
// no gain (fresh processes, paired medians 1.03-1.05x of not doing it,
// with or without also building the TargetMachine there), so it is not
// done. The load itself keeps a fresh process's first Compile and Call
// above 30 ms.
//
// A trimmed libLLVM would load much faster. Linked from llvm-19-dev's
// static component libraries (x86, passes, orcjit, irreader, asmparser)
// into a shared object that exports only the C functions dl.c resolves
// (a version script; -Wl,--gc-sections), it is 50 MB instead of 130, has
// 97,571 relative relocations, about 360 dynamic symbols and no libz3,
// libxml2, libedit or libffi, and dlopens in 3.8-4.8 ms against 17.8-18.8
// ms for Debian's (alternating runs; 3.7-4.0 ms with packed relative
// relocations, -z pack-relative-relocs). Its first compile takes as long
// as with Debian's library. It is not built here: it needs the static
// libraries at build time and a 6-second link outside the go command,
// and a second copy of LLVM to install; with it, a fresh process's first
// compile would be about 4 + 0.2 + 11 ms plus gojit's 1-2 ms, near but
// still above 14 ms.
//
// Available does not load the library: it reports true in builds with
// LLVM when the library has been loaded or one of the usual paths holds
// it (a file check), and only loads it to let the dynamic loader search
// when no usual path does. Loaded reports whether the library is in the
// process, which tests use to check that cached and interpreted programs
// never load it.
//
// objload's safety argument (its package comment has it in full): an
// object is code the process will run, so the loader cannot make a
// hostile object safe and does not try; what it guarantees is that a
// corrupt or unexpected one is an error rather than memory corruption.
// Every offset, size, alignment and index read from the file is checked
// against the file, the section or the table it refers to before use;
// sizes are bounded; only the relocation types the backend emits are
// applied, each only if its field lies inside its section and its value
// fits the field; calls to external functions go through stubs inside the
// image, so no 32-bit displacement must reach a distant library; pages are
// mapped read-write, filled and relocated, then made read-execute or
// read-only, never writable and executable at once; Free unmaps them. A
// fuzz target feeds it corrupted objects, and the same kernels run bit for
// bit identically through objload and ORC (TestLoadersAgree; and the
// runtime's tests pass with GOJIT_LOADER=native and =orc). Objects in the
// disk cache are additionally checksummed and owner-only
// (internal/diskcache), so corruption reaches the loader only through a
// bug or a hostile user with the cache owner's rights.
//
// # Pipeline
//
// Compile parses the text, verifies the module, retargets it to the host
// (triple, data layout, CPU name and features from LLVMGetHostCPUName and
// LLVMGetHostCPUFeatures), runs the new pass manager's "default<On>"
// pipeline (or, for a module of flat elementwise loops, Options.Flat's
// short one) and emits an ELF object (position-independent, small code
// model). Load links that object (objload, or ORC) and resolves the
// kernel's symbol; Kernel.Call jumps to it through a one-line C trampoline.
// Compiling and loading are separate steps so objects can be cached and
// reloaded without recompiling. Compiled.CPU reports the compiling
// thread's CPU time in each stage (parse, optimize, emit).
//
// Where a compile's time goes (the 6-op float32 function over 1,024
// elements, min of 40 compiles, CPU ms): parse 0.7, optimize 3.8 (2.0
// with the short pipeline), emit 5.0; an empty module costs 0.07, 0.5
// and 1.3, which is the C API building its pass pipelines anew for every
// module, and each further function about 0.2 ms of emission. A later
// profile of the same compile (perf, call graphs, in-process loop):
// emission 57% of the compile's CPU, of which instruction selection 17
// points, building and scheduling the codegen pass pipeline 8-15 and the
// other machine passes the rest, for 81 instructions of output; the
// optimization pipeline 25% (the loop vectorizer 9 points, of which half
// was costing a plan per vector width until codegen named the width;
// ipsccp's function specializer 2, now off); parsing 6%. The emitted
// code being this small, emission is mostly a fixed cost per module that
// the C API gives no way to share between modules, and per function:
// inlining the group function into the entry once vectorized (codegen
// marks it alwaysinline when it has that one caller) took emission from
// 7.6 to 6.6 ms of CPU in the same profile.
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
// # Why ORC LLJIT, and when
//
// Compiling needs LLVM in any case; linking a finished object needs only
// objload, which is why ORC is now the fallback rather than the rule. The
// reasons it was chosen over MCJIT still hold for that fallback:
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
// All kernels ORC links share the JIT's main JITDylib, hence one symbol
// namespace (objload gives each kernel an image of its own).
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
// creates and disposes its own (TargetMachines are pooled, one user at a
// time); Compile calls are independent and may run concurrently. The
// LLJIT is shared, and ORC's add, lookup and tracker removal are
// thread-safe; objload shares nothing between images; so Load and Free may
// be called from any goroutine. Loading the library and initializing the
// target happen once per process.
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
