// Package runtime turns a graph into something that runs: it fuses the
// graph, generates LLVM IR, compiles and loads it (or falls back to the
// interpreter), and calls it.
//
// An Executable's module takes one pointer per buffer slot: the graph's
// parameters, then the result of every fused group. Run fills those
// pointers from the caller's inputs and outputs and from temporaries held in
// a pooled per-call frame, pins them for the cgo call (runtime.Pinner), and
// makes exactly one call into native code. Outputs no group writes (an input
// returned as is, a value returned twice) are copied afterwards.
//
// Compiled executables are kept for the life of the process, keyed by a
// SHA-256 signature of the canonical graph text, the options, the host CPU
// and the LLVM and gojit versions; concurrent builds of one signature
// compile once.
package runtime
