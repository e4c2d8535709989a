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
// with Where.
//
// # Semantics
//
// Operations broadcast like NumPy: shapes are aligned on the right and a
// dimension of size 1 stretches. When two tensors of different dtypes meet,
// both are converted to the later one in the order Bool, Uint8, Int32,
// Int64, Float32, Float64. Scalar makes a weakly typed constant that takes
// the other operand's dtype (Float32 if it has a fraction and the tensor is
// an integer). Transcendental ops (Exp, Log, Sin, Cos, Tanh, Sigmoid, Pow,
// Sqrt, Rsqrt) convert integer inputs to Float32. Integer arithmetic wraps;
// integer division by zero gives 0 instead of trapping; float-to-integer
// casts saturate. Floating-point results follow IEEE 754 without fast-math
// reassociation: elementwise ops and reductions give the same bits as
// gojit's reference interpreter, except transcendental functions, which may
// differ in the last place because the compiled code calls the C math
// library and the interpreter Go's.
//
// # Errors
//
// Tensor methods never return errors. A mistake such as adding shapes [3]
// and [4] is recorded with the operation's name and the file:line of the
// user code that called it, and Call returns it:
//
//	main.go:12: add: shapes [3] and [4] do not broadcast
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
