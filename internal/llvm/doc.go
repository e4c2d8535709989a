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
//     (dl.c): a trimmed libLLVM in the cache directory when `gojit setup`
//     has linked one (below), then Debian's
//     /usr/lib/llvm-19/lib/libLLVM.so.19.1 and libLLVM-19.so, then the
//     same names through the dynamic loader's search path. Every LLVM-C function shim.c calls is resolved
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
// # A trimmed libLLVM
//
// Debian's libLLVM.so.19.1 is 130 MB with 311,000 relative and 22,000
// symbolic relocations and pulls in libz3, libxml2, libedit and libffi;
// dlopen of it took 14-19 ms on a quiet host, 15-30 ms on a loaded one,
// before any compiling. `gojit setup` (and `make llvm-setup`, which make
// demo and make test run) links a trimmed one instead (trimmed.go): the
// static component libraries of llvm-19-dev (x86, passes, orcjit,
// irreader, asmparser) linked into one shared object whose version script
// exports only the functions of llvm_table.h and the native target's
// initializers, with -Wl,--gc-sections, packed relative relocations
// (-z pack-relative-relocs), its own hidden copy of the C++ runtime
// (-static-libstdc++ -static-libgcc: no libstdc++.so or libgcc_s to load
// and none of the 3,724 symbolic relocations that bound LLVM to them) and
// -z nodelete. It is 48 MB, has 103,000 relative relocations (RELR), 223
// symbolic ones and depends only on libz, libzstd, libm and libc; the
// link takes 3.5-9 s. It lives at os.UserCacheDir()/gojit/llvm under a
// name holding the headers' LLVM version and a hash of the exports and
// the recipe, so an upgrade or a changed table never loads a stale one;
// it appears by an atomic rename, and older builds are removed.
//
// Loading prefers it: dl.c tries it first when it is a regular file owned
// by the user and writable by no one else in a directory writable by no
// one else (whoever could write it could run code in every gojit
// process), and takes the first candidate that loads, resolves every
// function and has the headers' major.minor version, so an unusable one
// falls back to Debian's library (TestTrimmedFallback). GOJIT_LLVM_LIBRARY
// (EnvLibrary) forces the system library ("system") or names another
// file, for tests and diagnosis. Both libraries produce byte-identical
// objects, assembly and optimized IR (TestTrimmedAgrees: four kernels at
// every level and both pipelines, each library in a fresh process), as
// they must: the static libraries are the same build of the same
// sources.
//
// What a fresh process's first compile costs (cmd/gojit bench -startup,
// the 12-op function over 1,000 elements, 21 fresh processes each,
// alternating, on a loaded 2-vCPU machine, load average 7-8):
// Compile + first Call 38 ms median, 15.2 ms at best with the trimmed
// library, against 63 and 28.9 ms with Debian's; loading 4.6 ms median
// (3.4 ms best) against 30.8 (14.9); the process's CPU time at the first
// result 22.7 ms against 34.5 (perf stat task-clock of the whole process:
// 20.6 against 40.5 ms); minor page faults 1,877 against 3,663. A CPU
// profile of a cold process with the trimmed library (perf, DWARF call
// graphs): the compile 52% (emission 30 points, the optimization
// pipeline 21.5, parsing 1), loading 18% (relocation 11.7, LLVM's static
// initializers 5.5), Go's runtime and gojit's own work about 10%; page
// faults account for 20% across all of it (each costs several
// microseconds on this virtual machine). A page-fault profile puts a
// third of them in LLVM's code writing its own data (the X86
// TargetLowering and legalizer tables, pass and option registries), a
// quarter in malloc growing the heap, a quarter in ld.so writing
// relocated pages and a fifth in Go's runtime; few are faults on LLVM's
// code, which the kernel maps 64 KB around each fault.
//
// Measured and not done: prefaulting the library after dlopen
// (madvise MADV_POPULATE_READ, Linux 6.18 here, over the executable
// segments or all of them, on the loading thread or a background one, or
// MADV_WILLNEED): no gain with either library (Debian's: 53 and 63 ms
// against 47 ms without, trimmed: 25.0, 25.9 and 21.6 against 26.4 ms,
// medians of 15 alternating runs, within the noise) and the fault count
// unchanged, since the faults are not on code. RTLD_LAZY: no measurable
// change (188 PLT entries are left to bind). Compiling a small vector
// module on a second thread at the first compile, to fault in and
// initialize the backend while the first module is optimized: worse on
// this loaded 2-vCPU host (61 against 39 ms, 10 ms more CPU). Loading the
// library in the background from gojit.Compile: no gain (paired medians
// 1.03-1.05x), as gojit's own work before the compile is only 1-2 ms.
//
// What keeps the first compile above 14 ms is LLVM's first use in a
// process: about 11 ms of CPU for the compile against 7-8 ms for a later
// one in the same process (the X86 subtarget, TargetLowering and
// legalizer tables built per TargetMachine and for the first time, and
// the page faults of LLVM's heap), plus 3.4-4.6 ms of loading and 1-2 ms
// of gojit and Go. Only a process that already has LLVM mapped and
// initialized (a compile server) or one that never compiles (the disk
// cache) avoids them.
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
// Options.QuickBackend runs the backend at its O0 level (FastISel, the
// fast register allocator, no machine scheduling) after the same
// optimization pipeline, for modules whose run is mostly the call itself
// (codegen.Module.Tiny: at most 64 elements visited). On the 6-op
// function over 16 elements emission falls from 4.8 to 1.4 ms of CPU and
// a compile with its first call from 10.2 to 7.2 ms (0.71x). The bits
// cannot change: the optimized IR is the same (the TargetMachine's level
// does not reach the IR passes; TestQuickBackendSameIR), and no backend
// level contracts or reassociates floating-point operations the IR does
// not allow, since the IR carries no fast-math flags and asks for FMAs
// only through fmuladd (TestQuickBackendSameBits compiles 160 fuzz
// programs at both levels and compares every result). With fast-math
// (gojit.WithFastMath) the IR's "fast" flags allow contraction, which
// the full backend's combiner does and FastISel does not: x*y+z over 16
// float32 then differs in the last bit in some elements between the
// levels. The code is slower
// per element (1.2-1.5x over 1,000 elements), which is why the bound is
// small. TargetMachines are pooled per backend level (O0, O1, O2/O3).
//
// Tiering (a quick compile first, a full one in the background once a
// kernel is hot) would reach larger kernels, including the 1,024-element
// function of BenchmarkColdCompile/n=1024 and the first compile of a fresh
// process; it is not built: on two vCPUs the background compile competes
// with the caller, and swapping a live kernel's code needs the runtime's
// executables to be replaceable while calls are in flight.
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
