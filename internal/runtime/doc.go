// Package runtime turns a graph into something that runs: it optimizes and
// fuses the graph, generates LLVM IR, compiles and loads it (or loads a
// cached object, or falls back to the interpreter), and calls it.
//
// # Calls
//
// An Executable's module takes one pointer per buffer slot: the graph's
// parameters, then the result of every fused group that lives in memory.
// Run fills those pointers from the caller's inputs and outputs and from
// temporaries, and calls native code:
//
//   - a small call passes the buffers as integer arguments of one C call
//     (llvm.Kernel.CallDirect explains why that is sound), with no pinning
//     and, when there are no temporaries, no frame;
//   - a loop nest that visits at least ParallelWork elements is split into
//     one chunk per thread through the module's range entry point, run on a
//     pool of goroutines that spin briefly before parking (pool.go); the
//     argument array is then pinned for the duration;
//   - outputs no group writes (an input returned as is, a value returned
//     twice) are copied afterwards.
//
// # Memory
//
// Temporaries come from a pooled per-call frame and share one arena whose
// layout is fixed at build time from the temporaries' live ranges
// (memplan.go), so steady-state calls allocate nothing. The module's
// scratch buffers (codegen.Scratch: a matmul's packed B) live in the same
// arena, live during their nest only.
//
// # Cache
//
// Executables are cached by a SHA-256 signature of the optimized graph's
// canonical text, the options, the host CPU and its features (by CPUID, so
// a lookup loads no LLVM), and the LLVM and gojit versions (cache.go). The cache is an LRU bounded by entries and
// object bytes. With a disk directory configured, a miss first looks for a
// validated object there (internal/diskcache) and compiles only if none is
// usable. Concurrent builds of one signature compile once.
//
// # Eviction
//
// A call holds the executable it runs (Acquire, Release), and an evicted
// kernel's code is freed only when its last hold is released; chunks split
// across the worker pool finish before the call that owns them returns, so
// its hold covers them. BuildAcquired hands an executable over already
// held, the hold taken under the cache's lock while the executable is still
// cached (and, for callers waiting on another's build, by the builder
// before it publishes the result). Eviction marks an executable retired
// under the same lock. So a caller that acquires its stored executable, or
// builds an acquired one when that fails, and runs it with RunAcquired
// never sees an eviction, however often it loses the race with other
// builds, Purge or Configure: this is how gojit's Func keeps ErrEvicted
// from its users. Run, which acquires by itself, reports ErrEvicted for an
// executable evicted before the run began.
//
// # Dynamic dimensions
//
// BuildDynamic makes one executable serve every size of a dynamic dimension
// from two traces of the same function (dynamic.go). It compares the
// traces node for node to find which axes follow the size, and the code
// generator reads their extents from the size, which every range call
// passes (codegen.GenerateDynamic). The two traces' loop nests must then
// compile to identical code, with every extent, buffer and result
// dimension an affine function of the size (c + a*B). A matmul over a
// batch of rows is split over rows, no finer than its Group.Grain. When
// the code still depends on the size, explain.go finds the user's call
// responsible from the two traces and says why, in the user's terms.
package runtime
