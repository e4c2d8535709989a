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
// alloca; a sum over a long last axis in a nest of its own reads four rows
// side by side, so each core keeps four load streams in flight
// (reduce_rows.go). A reduction of every axis of a large operand, whose
// one output element would leave the runtime nothing to split, is folded
// in fixed blocks by a nest of its own into a scratch buffer of partials,
// which the reduction's group folds in block order (reduce_blocks.go):
// the same bits for any number of threads. A matmul is register-tiled (matmul.go): each outer iteration
// computes a chunk of rows; for every block of k it packs the chunk's rows
// of A, then for every panel of columns a block of B, into aligned stack
// buffers (in a module the runtime may split, B is instead packed once per
// call by a nest of its own into a scratch buffer, matmul_pack.go), and
// runs a microkernel that keeps a 12 x 2-vector tile of the
// output in registers over that block, adding each product with a fused
// multiply-add; a narrow tail of columns may instead be dot products
// along k (mmCtx.dotTail). Elementwise consumers that are the matmul's only users
// (relu(x@w + b); passes.Plan.MatMul) are its epilogue: the group's root
// is the last of them, the product is accumulated in the root's buffer,
// and each panel of a chunk is overwritten with the epilogue's values as
// soon as its last block of k is done, while it is still in cache. A
// float sum of all of such an epilogue's elements (GT2's
// mean(relu(x@w)), passes.matMulSum) is computed by the matmul's group
// too, for products of at most 64 KiB that the runtime would not split:
// the product lives on the stack, B is packed panel by panel, and one
// flat loop with several vector accumulators sums the epilogue
// (mmCtx.sumEpilogue) instead of a reduction group of its own reading a
// stored product row by row.
//
// Matmul: tiled LLVM code or OpenBLAS. We chose the generated microkernel.
// It needs no new dependency, no symbol resolution outside the module and
// no second thread pool competing with ours (the runtime splits the chunks
// across threads like any other loop), and it fuses the epilogue, which a
// call to sgemm cannot. It uses FMA (llvm.fmuladd, one instruction on
// every x86-64 CPU with FMA3), so float matmuls are no longer
// bit-identical to the interpreter but within the documented tolerance of
// float matmuls (internal/interp/doc.go: n*eps*Σ|a_ik*b_kj| plus n
// subnormal ulps, the rule of float sums); OpenBLAS would need the same,
// since sgemm also uses FMA and its own summation order. Integer matmuls
// stay exact. Without FMA the kernel could reach at most half of the FMA
// peak: the bit-exact kernel took 28.6 ms for BenchmarkMatMulBiasRelu
// (1024x1024 float32 with bias and relu, 2 threads) against 16.0 ms for
// NumPy/OpenBLAS on an idle machine (0.56x). With FMA, packed A, 12x2
// tiles and the fused epilogue it took 15.8-15.9 ms against NumPy's
// 14.2-14.7 ms measured right after it (0.89-0.93x; one thread: 23.8
// against 20.6 ms), and in the peer harness (gojit bench -peers, both
// sides interleaved) 14.5 ms against 11.8 ms (0.81x), on the shared
// development machine under load. OpenBLAS gains more from the second
// thread. The M % 12 rows below the last whole tile run as one shorter
// tile of the microkernel. On one thread the kernel now matches OpenBLAS
// (1024^2 without epilogue: 21.6-23 ms against NumPy's 24.8-25.8 ms, a
// few minutes apart); on two the best calls took 10.8-11.3 ms, but the
// median 12.8-15 ms, as the shared machine's second vCPU comes and goes.
//
// Loops that LLVM would unroll fully and then hand to the SLP vectorizer
// (the packing loops and the row loop's short constant j loop) carry
// llvm.loop.unroll.disable: a uint8 13x600x40 matmul took 22 s to
// compile before, 0.1 s after.
//
// Host-specific code (Target): on AVX-512 hosts float32 exp uses VSCALEF
// (vecmath_avx512.go) and division by a value that is the same along the
// innermost loop uses a reciprocal with Markstein's correction
// (divide.go); both stay bit-identical to the portable code. float64 exp
// is vectorized the same way (the portable code calls libm; both are
// within 2 ulps of Go's math, TestExpFloat64, and the host code is 5.5x
// faster over 4096x1024). They reach
// the loop vectorizer as calls with vector-function-ABI variants and are
// inlined after it (internal/llvm). TestTargetsAgree and
// TestDivideByInvariant in internal/runtime check them, and
// BenchmarkTargets measures them against the portable code in one run
// (softmax 4096x1024 1.17-1.27x, float32 exp 1.39x).
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
// i64 %group, i64 %start, i64 %end, i64 %size), which runs one group over
// part of its range so the runtime can split large loops across threads
// (%size is for dynamic modules, below; others ignore it). The group
// functions are noinline: inlining them into the entry lets LLVM 19's SLP
// vectorizer miscompile fully unrolled small matmuls (see the regression
// test TestSLPMiscompileBatchedMatMul in the root package). They also
// carry "prefer-vector-width"="512": LLVM's tuning for AVX-512 CPUs keeps
// loops to 256-bit vectors by default, and the compute-bound kernels here
// (float32 exp, softmax) ran about 1.3x faster with 512-bit vectors on the
// development machine (BenchmarkSoftmax x_stream 0.35 -> 0.48), streaming
// kernels unchanged. In a flat module of one float type without a range
// entry, whose loops leave no remainder, the loop IDs also name that
// width (16 float32 or 8 float64 lanes; vectorWidth): given a width, the
// loop vectorizer costs one plan instead of one per power of two, a
// quarter of LLVM's optimization time on the 6-op function over 1,024
// elements, for the same machine code (TestForcedWidthSameCode). With a
// remainder the request would change the code (LLVM leaves the epilogue
// scalar when the width is given), so such loops keep the choice.
//
// Dynamic modules (GenerateDynamic) serve every size of a dynamic
// dimension, the batch axis: the runtime traces the function at two
// sizes, compares the traces node for node and passes the code generator
// which axes of which values follow the size and which constants are
// multiples of it (Dynamic). Each group function then takes the size as
// a last argument, i64 %size, and everything derived from such an axis,
// loop bounds, strides, coordinates, concat offsets and those constants,
// is computed from %size (index.dyn, fn.times; once, in the entry block)
// instead of written as a constant. The outer loop's range is the
// runtime's to choose, so a module generated at either size is the same
// text, which the runtime checks. A matmul whose rows, columns or sum
// length follow the size is tiled as the fixed-size one, with the tile
// structure computed at run time (matmul_dyn.go). A flat group whose
// bytes grow with the size carries both its streaming and its plain loop
// (stream.go), and %size picks one. Static modules are unchanged by all
// this: the same text as before.
//
// A flat elementwise group that moves 2 MiB or more writes its output with
// non-temporal stores through a 1 KiB aligned stack tile (stream.go): the
// stores skip reading the destination lines into the cache first, which
// saves a third of the memory traffic of a two-input loop. Measured on the
// development machine (2 threads, the 5-op chain over float32, new and old
// code compiled in one process, interleaved, best of 15 to 51 rounds): n =
// 2e5 1.15-1.2x faster, 3e5 1.27x, 1e6 1.1-1.25x, 2e6 1.16x, 4e6 1.36x,
// 1e7 1.11-1.19x. Below the threshold the data stays in L2 and streaming
// stores are about 2x slower (n = 1e5, which moves 1.2 MB). Limiting those
// loops to 256-bit vectors made no difference beyond the noise, so they
// keep 512. The rows of a nest stream their output too (softmax 4096x1024:
// 1.04-1.1x), except an output that a later group of the nest reads back.
//
// Where row softmax spends its time (4096x1024 float32, 2 threads, 1.8 ms
// at a quiet moment of the shared machine, against about 0.75 ms for the
// streaming kernel over the same bytes): replacing exp by the identity
// takes it to 0.96 ms, replacing the division by a multiply to 1.48 ms;
// one thread takes the same time per row over 256 rows (in cache) as over
// 4096 (from memory). So it is compute-bound, mostly by the float32 exp
// (about 27 vector instructions per 16 elements, nearly all on the one
// port that executes 512-bit floating point here), then by the exact
// division. With VSCALEF (15 instructions) and the reciprocal division it
// takes 1.6-1.7 ms (BenchmarkSoftmax x_stream 0.51-0.53, from 0.34-0.39),
// and the float32 exp alone over the same 4096x1024 elements takes 1.14 ms
// on 2 threads against 0.76 ms for the streaming add (one thread: 2.36
// against 1.55 ms). An exp that costs more than 0.8x the floor by itself
// leaves softmax (which adds a max, a subtraction, a sum and a division
// per element) no way to reach 0.8x the floor while exp stays within an
// ulp. On this VM a chain of dependent 512-bit FMAs retires one per 1.7
// ns and 24 independent chains 2 per ns, so the 512-bit floating-point
// work per element, not memory, sets the time. What helped: fused multiply-adds inside exp (1.23x),
// interleaving the exp loop twice (1.07x, see closeLoop). What did not:
// software prefetch of the next row (0.90-0.94x), folding the sum into the
// exp loop (1.00-1.02x), replacing a 2**n multiply in exp by an
// exponent-field add (no gain beyond the noise).
//
// Gathers (Take, TakeAlongAxis) fused into an elementwise group, as in
// the data pipeline's bilinear resize (four byte gathers per output at
// indices computed from Iota and per-sample parameters), vectorize: the
// bounds check of every index only ors its compare into a flag, and a
// bad index makes the group run again with the branching checks that
// record the error (gather.go); int32 indices are checked in 32 bits;
// a byte is read as a 32-bit word (vpgatherdd) or, on AVX-512, picked
// from a 64-byte window with vpermd when the 16 lanes fit in one
// (window.go). The resize of 224x224 outputs from 256x256 uint8 images
// (BenchmarkResizeBilinear) went from about 10 to about 2.5 ns of CPU
// time per output on one thread (4 images in cache, measured by thread
// CPU time on the loaded development machine). What remains is
// instruction throughput: one gather with its check costs some 25 vector
// instructions per 16 outputs; the kernel with one gather took 1.0
// ns/output, with two 1.3, with four and the interpolation 2.5, with none
// (weights and normalization only) 0.2.
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
