// Command gojit shows what the gojit tracing JIT does with a Go function
// over arrays, and how fast the result runs.
//
// Usage:
//
//	gojit <command> [flags]
//
// The commands are:
//
//	demo     Trace, fuse and compile a small two-output function over
//	         float32 inputs; print the traced IR (each op with the file:line
//	         that recorded it), the fused IR with its fusion plan, the
//	         generated LLVM IR and the compile time; then time the first call
//	         (trace + compile), the second call (a cache hit), and the
//	         steady state against gojit's interpreter and a plain Go loop,
//	         and check that compiled and interpreted results agree.
//	         Flags: -n elements (default 1000000), -full (whole LLVM IR),
//	         -json (timing figures as one JSON object instead of the report).
//	dump     Print one compilation stage of a built-in example:
//	         -example chain|softmax|matmul|layernorm, -stage
//	         traced|fused|llvm|opt|asm|all, -n size, -list to list examples.
//	         A single stage prints bare text (gojit dump -stage llvm > k.ll).
//	bench    Benchmark the 5-op chain at several sizes against a fused Go
//	         loop and op-by-op Go, plus the cost of a cached call and of a
//	         cold compile: -sizes 1000,100000,..., -rounds n (interleaved,
//	         best of n), -benchtime 300ms|Nx, -json. With -startup it
//	         measures process start instead, over -runs fresh processes
//	         (default 15): exec to main of a program importing gojit,
//	         Compile + first Call of a kernel in the disk cache, and a
//	         whole 12-op program against a plain Go one, and the first
//	         compile with an empty cache with the trimmed and the system
//	         libLLVM alternating (run it inside the repository: it builds
//	         both programs with the go command).
//	dataset  Write a dataset file from images or .npy arrays (write),
//	         describe or check one (info, verify); draw a synthetic JPEG
//	         set (synth-jpeg); measure a named loader pipeline in images/s
//	         against an op-by-op Go baseline (bench), run its Python peers
//	         (peers) and tabulate both (peers-table), which `make
//	         bench-peers-pipeline` drives.
//	setup    Link a trimmed libLLVM (only what gojit calls, from
//	         llvm-19-dev's static libraries; a few seconds, once) into the
//	         user's cache directory, where gojit prefers it to the
//	         system's: it loads in about 4 ms instead of 15-30. Then load
//	         it to check. Flags: -force (link again), -json, -v (print the
//	         link command).
//	version  Print gojit's code-generation version, the LLVM version, the
//	         Go version and the host CPU.
//	help     Print this list, or a command's flags: gojit help <command>.
//
// In builds without LLVM (CGO_ENABLED=0 or the nollvm tag) everything runs
// in gojit's interpreter; the commands still work and say so.
//
// Exit status: 0 on success, 1 when a command fails (or, for demo, when
// compiled and interpreted results disagree), 2 on a usage error.
package main
