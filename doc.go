// Package gojit is a JIT compiler for array programs: it traces a Go
// function over tensors, fuses its operations into a few loops, compiles
// them to vectorized native code with LLVM, caches the result by a
// signature and runs it with next to no per-call overhead.
//
// # Tracing
//
// Compile takes an ordinary Go function whose *Tensor parameters stand for
// arrays:
//
//	f, err := gojit.Compile(func(a, b *gojit.Tensor) *gojit.Tensor {
//		return a.Add(b).Mul(a).Relu()
//	})
//	out, err := f.Call(gojit.FromFloat32(x), gojit.FromFloat32(y))
//
// The first Call with a new signature (the dtypes and shapes of the arrays,
// and the values of the static arguments) runs the function once with
// symbolic tensors, recording each operation; the recorded graph is
// optimized, fused and compiled, and later calls with the same signature
// only run the compiled code. Parameters of other types (int, float64,
// string, []int ...) are static: their values are baked into the trace,
// like JAX's static_argnums, so a different value means a new trace. Go
// control flow inside the function therefore runs at trace time: an if on a
// static argument is fine, while data-dependent branching must be written
// with Where, or with the control-flow functions below.
//
// # Control flow
//
// Cond, While and ForLoop record a branch or a loop whose decision depends
// on traced values, as JAX's lax.cond, lax.while_loop and lax.fori_loop:
//
//	out := gojit.While([]*gojit.Tensor{x, gojit.Full(gojit.Int32, 0)},
//		func(s []*gojit.Tensor) *gojit.Tensor { return s[0].Sum().Greater(limit) },
//		func(s []*gojit.Tensor) []*gojit.Tensor {
//			return []*gojit.Tensor{s[0].Mul(gojit.Scalar(0.5)), s[1].Add(gojit.Scalar(1))}
//		})
//
// Each function is traced once, into a region of the graph that the
// compiled code runs as often as the data says (zero times when the loop's
// condition is false at once, or for a ForLoop with lo >= hi). A branch or
// body may use any tensor of the enclosing function (it is captured); the
// state a loop carries and the results of the two branches of a Cond must
// keep their number, dtypes and shapes, else the call's line is reported.
// Work in a loop that depends only on captured tensors is done once,
// before the loop; inside a region ops fuse as anywhere else. Loops, and
// the branches inside them, run in generated code (about 13 ns per
// iteration of a scalar loop body), except that a loop whose body is large
// enough to split across threads is driven from Go, one compiled call per
// region and iteration, so that its nests still run on every thread; a
// Cond outside any loop picks its branch from Go (a call costs about
// 0.4 µs). A function with control flow cannot use WithDynamicDim (Call says so);
// interpreted, it can. See docs/controlflow.md.
//
// # Semantics
//
// Operations broadcast like NumPy: shapes are aligned on the right and a
// dimension of size 1 stretches. When two tensors of different dtypes meet,
// both are converted to the later one in the order Bool, Uint8, Int32,
// Int64, Float16, BFloat16, Float32, Float64 (Float16 with BFloat16 gives
// Float32, as in JAX). Float16 and BFloat16 are storage dtypes: ops on
// them compute in Float32 inside the kernel and round their results back. Transcendental ops (Exp, Log, Sin, Cos, Tanh,
// Sigmoid, Pow, Sqrt, Rsqrt) convert integer inputs to Float32. Integer
// arithmetic wraps; integer division by zero gives 0 instead of trapping;
// float-to-integer casts saturate. Floating-point results follow IEEE 754
// without fast-math reassociation: elementwise ops and reductions give the
// same bits as gojit's reference interpreter, except transcendental
// functions, which may differ in the last place because the compiled code
// calls the C math library and the interpreter Go's, and float sums and
// matmuls, which may be reassociated within a documented bound (see
// internal/interp).
//
// Weak scalars. Scalar makes a weakly typed constant, as JAX's Python
// scalars: it takes the dtype of the tensor it meets when that dtype holds
// its value exactly (any value for a float tensor; an integer in range for
// an integer tensor; 0 or 1 for Bool). A value the tensor's integer dtype
// cannot hold — a fraction, NaN, ±Inf, an integer out of range — never
// wraps or truncates: a comparison gives the exact answer
// (x_i32 < +Inf is true, x_u8 > -1 is true, x_i32 < 2.5 is x_i32 <= 2,
// x == NaN is false), and any other op is computed in Float32
// (x_i32 + 3e9, Where(c, x_i32, -Inf)). Full and ScalarArray refuse such
// values instead: Full(Int32, 2.5) is an error.
//
// The ops cover what NumPy and JAX users reach for: elementwise
// arithmetic (Mod with Python's sign rule, Clip, Square, Sign), tests and
// logic (IsNaN, IsInf, IsFinite, LogicalAnd/Or/Xor/Not, Any, All),
// transcendental functions (Exp, Log, Log1p, Expm1, Erf, Gelu ...),
// reductions and statistics (Sum ... Var, Std, LogSumExp, Softmax,
// LogSoftmax, CumSum, CumProd), sorting (Sort, ArgSort, TopK), layout
// (Reshape, Transpose, Slice with negative steps, Flip, Concat, Stack,
// Split, Pad, Tile) and products (MatMul, Einsum, which lowers to the
// matmul kernel). docs/ops.md tables every op with its NumPy and JAX
// equivalent and its dtype rule; docs/controlflow.md covers Cond, While
// and ForLoop.
//
// Reductions follow NumPy where it matters: Sum and Prod of Bool and Uint8
// accumulate in Int64; Mean of an integer tensor sums exactly in Int64 and
// divides in Float64, giving Float64 for Int64 and Float32 otherwise; Max,
// Min, ArgMax and ArgMin over an empty axis are errors; the Sum of an
// empty axis is 0, its Prod 1 and its Mean NaN.
//
// Static arguments must have the parameter's type, except that a Go number
// is converted to a numeric parameter's type when the conversion is exact:
// f.Call(x, 2) works for a float64 parameter, f.Call(x, 2.5) for an int
// one is an error.
//
// # Errors
//
// Tensor methods never return errors. A mistake such as adding shapes [3]
// and [4] is recorded with the file:line of the user code and the method
// it called there, and Call returns it:
//
//	main.go:12: Add: shapes [3] and [4] do not broadcast
//
// Shapes are written [3,4] in every message. A panic inside the traced
// function is returned as an error with its value and the line that
// panicked (the whole stack is logged at debug level, see GOJIT_LOG).
// Invalid options make Compile fail; malformed arrays (a shape that does
// not match the slice, a negative dimension, a shape over 2^48 bytes) are
// reported by Array.Err and refused by Call with ErrArgs; no method of
// Array panics. A call whose results (or, interpreted, intermediates)
// would not fit in the machine's memory fails with an error naming the op
// that makes the largest one, rather than ending the process.
//
// # Indexing and random numbers
//
// Take, TakeAlongAxis and ScatterAdd read and write at positions computed
// from data, as NumPy's take, take_along_axis and add.at; DynamicSlice cuts
// a window of static size at run-time offsets, as JAX's dynamic_slice
// (clamping the offsets, so it never fails). An index out of range never
// touches memory outside a buffer: Call fails with an error wrapping
// ErrIndexOutOfRange that names the op, the line that traced it, the index
// and its position, compiled or interpreted alike (docs/indexing.md).
//
// Random numbers are counter-based (Philox-4x32-10, as in JAX and PyTorch):
// RandomKey makes a key on the host, SplitKey derives keys in traced code,
// and Uniform, Normal, Bernoulli and RandomInt draw values that depend only
// on the key and each value's position, never on threads, and are equal
// bit for bit compiled and interpreted (docs/random.md).
//
// # Inspecting
//
// Func.Lower returns every stage for one signature: the traced graph with
// source positions, the fused graph and its plan, the LLVM IR before and
// after optimization, and the assembly. `gojit dump` prints them for
// built-in examples.
//
// # Without LLVM
//
// Builds without cgo (CGO_ENABLED=0) or with the nollvm tag run every
// function in a pure-Go interpreter with the same semantics. WithInterpreter
// does the same in any build.
package gojit
