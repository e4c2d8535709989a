// Package codegen lowers a fused plan (internal/passes) to LLVM IR text.
// It is pure Go: the text goes to internal/llvm to be compiled, or to
// golden files under testdata/ in tests, so the code generator is tested on
// machines without LLVM.
//
// Each group of the plan (or nest of groups, below) becomes one internal
// function
//
//	void @ENTRY.gK(ptr noalias readonly %in..., ptr noalias %out, i64 %start, i64 %end)
//
// holding one loop nest whose outer loop runs over [%start, %end). Inside
// it every fused value is computed at the current position by value, which
// maps the position through layout ops (broadcast, transpose, slice,
// reshape, concat are index arithmetic, never copies) and loads only
// materialized values. Positions (index) carry coordinates and a linear
// offset, each computed on demand, so a chain of same-shape elementwise ops
// over a flat loop addresses every operand with the loop counter alone,
// the form LLVM's loop vectorizer handles best. A reduction root adds inner
// loops over the reduced axes with its accumulator in an entry-block
// alloca. A matmul root is register-tiled (matmul.go): each outer
// iteration computes a chunk of rows; for every panel of columns it packs
// a block of B into a stack buffer and runs a microkernel that keeps a
// tile of the output in vector registers over that block of k, adding
// each product with a fused multiply-add.
//
// Matmul: tiled LLVM code or OpenBLAS. We chose the generated microkernel.
// It needs no new dependency, no symbol resolution outside the module and
// no second thread pool, and the runtime splits it across threads like any
// other loop. It uses FMA (llvm.fmuladd, fused on every x86-64 CPU with
// FMA3), so float matmuls are no longer bit-identical to the interpreter
// but within the documented tolerance of float matmuls
// (internal/interp/doc.go: n*eps*Σ|a_ik*b_kj|, the rule of float sums);
// integer matmuls stay exact. Without FMA the kernel could reach at most
// half of the FMA peak that OpenBLAS reaches: the bit-exact kernel took
// 28.6 ms for BenchmarkMatMulBiasRelu (1024x1024 float32 with bias and
// relu, 2 threads) against 16.0 ms for NumPy/OpenBLAS on an idle machine.
// OpenBLAS would need the same tolerance (sgemm uses FMA and its own
// summation order) and a second thread pool that competes with ours.
//
// A nest of several groups (passes.Plan.Nests: a reduction and the
// elementwise groups that use it, as in softmax or layer norm) becomes one
// function whose outer loop runs over rows; inside it each group runs its
// own loops over that row, in order, so a row is read from memory once and
// its intermediates stay in L1. Values only the nest uses (row-local) live
// in one-row scratch allocas rather than in memory the runtime allocates;
// the nest's other results are output parameters, which later groups of
// the nest also read from (never a second, noalias, input pointer).
//
// The module has two exported entry points: ENTRY(ptr %args), which runs
// every group in order over its whole range, and ENTRY.range(ptr %args,
// i64 %group, i64 %start, i64 %end), which runs one group over part of its
// range so the runtime can split large loops across threads. The group
// functions are noinline: inlining them into the entry lets LLVM 19's SLP
// vectorizer miscompile fully unrolled small matmuls (see the regression
// test TestSLPMiscompileBatchedMatMul in the root package). They also
// carry "prefer-vector-width"="512": LLVM's tuning for AVX-512 CPUs keeps
// loops to 256-bit vectors by default, and the compute-bound kernels here
// (float32 exp, softmax) ran about 1.3x faster with 512-bit vectors on the
// development machine (BenchmarkSoftmax x_stream 0.35 -> 0.48), streaming
// kernels unchanged.
//
// Semantics follow internal/interp/doc.go: no fast-math flags, no FMA
// contraction outside matmul and the float32 exp's own polynomial
// (vecmath.go, within its one-ulp bound), integer division guarded so it
// never traps, saturating float-to-integer casts, NaN-propagating maximum/minimum, and reductions
// that accumulate in the interpreter's order, with one exception: a float
// sum over the operand's last axis carries the reassoc flag on its add, so
// the loop vectorizer keeps several vector partial sums (the tolerance
// internal/interp/doc.go documents). A reduction that keeps the operand's
// last axis (a column sum) instead walks the operand in row-major order and
// accumulates into the output buffer: its innermost loop runs along
// contiguous kept elements, so it vectorizes in the exact order.
package codegen
