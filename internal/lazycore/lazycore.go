// Package lazycore connects package lazy to the root package's recording
// core without widening the root package's public API.
//
// Op construction (dtype promotion, weak scalars, broadcasting, shape and
// axis checks, source positions, poisoning on error) lives in one place,
// the root package's unexported tracer. Package lazy records its ops by
// calling gojit.Tensor's own methods on tensors of a long-lived tracer;
// what it needs beyond the public API (a standalone tracer, host data as an
// input, copying a node between traces, draining recorded errors,
// resolving a node's source position) the root package registers here in
// its init function. Values are passed as any: the root package's
// *gojit.Tensor and unexported *tracer, which this package cannot name
// without an import cycle.
package lazycore

import (
	"log/slog"

	"github.com/gojit/gojit/internal/ir"
)

// Hooks are the functions the root package registers (see H).
type Hooks struct {
	// NewTracer starts a trace for lazy recording, with room for about
	// capacity nodes (and their operand lists), and returns it with its
	// graph, which grows as ops are recorded into it.
	NewTracer func(capacity int) (tracer any, g *ir.Graph)
	// Param adds an input of the given dtype and shape (which it copies)
	// to tracer, positioned at the caller's caller, and returns its
	// *gojit.Tensor.
	Param func(tracer any, dt ir.DType, shape ir.Shape) any
	// ArrayShape returns a *gojit.Array's own shape, not a copy: the
	// caller must not modify nor keep it (Array.Shape copies).
	ArrayShape func(a any) ir.Shape
	// Copy re-adds node v of trace src to trace dst with the given
	// operands (values of dst), keeping its source position, and returns
	// the new value.
	Copy func(dst, src any, v ir.Value, args []ir.Value) ir.Value
	// Wrap returns the *gojit.Tensor for value v of tracer.
	Wrap func(tracer any, v ir.Value) any
	// Binary is the fast path of an elementwise binary op (KindBinary or
	// KindCompare, as gojit.Tensor's Add ... GreaterEqual) on values a and
	// b of tracer when nothing needs promoting nor checking: same dtype
	// (not a half one), shapes equal or broadcasting, an op the dtype
	// allows.
	// It records the node, positioned at its caller's caller as the
	// method would be, and returns it; it returns -1 and records nothing
	// when the case is not that simple (the caller then calls the method).
	Binary func(tracer any, op ir.Op, a, b ir.Value) ir.Value
	// Scalar is Binary with a weak scalar val as the right operand (as
	// x.Mul(gojit.Scalar(2)) and Relu), for a Float32 or Float64 value a
	// whose dtype val keeps: it records the op and the constant operand
	// that the method would (not the method's 0-d constant, which
	// nothing uses), or returns -1 and records nothing.
	Scalar func(tracer any, op ir.Op, a ir.Value, val float64) ir.Value
	// Reduce is the fast path of Sum (mean false) and Mean (mean true)
	// over axes (all when none) of a Float32 or Float64 value a: it
	// records the nodes the method would and returns the result, or
	// returns -1 and records nothing when the case is not that simple
	// (an invalid axis included: the method then reports it).
	Reduce func(tracer any, mean bool, a ir.Value, axes []int) ir.Value
	// MatMul is the fast path of MatMul for two Float32 or Float64
	// values of one dtype and equal rank >= 2 whose batch dimensions are
	// equal and whose contracting dimensions match, as Binary.
	MatMul func(tracer any, a, b ir.Value) ir.Value
	// ParamValue is Param returning the input's value instead of a
	// *gojit.Tensor, or -1 when Param would record an error. The shape
	// is shared with the node (it must never change: an Array's own).
	ParamValue func(tracer any, dt ir.DType, shape ir.Shape) ir.Value
	// Unary is Binary for an elementwise unary op (KindUnary, as
	// gojit.Tensor's Neg ... Erf) on value a of tracer when nothing needs
	// converting nor checking: a valid dtype, not a half one, that the op
	// allows.
	Unary func(tracer any, op ir.Op, a ir.Value) ir.Value
	// Inspect returns a *gojit.Tensor's tracer (nil for a weak scalar)
	// and value (negative when the tensor is poisoned by an error), and
	// whether it is a weak scalar with value val.
	Inspect func(t any) (tracer any, v ir.Value, weak bool, val float64)
	// TakeErrs returns the errors recorded in tracer and forgets them.
	TakeErrs func(tracer any) []error
	// Own brings t (a constant-only tensor made by Full, Iota or ops on
	// them) into tracer, as an op would, and returns the tensor there.
	Own func(tracer any, t any) any
	// Site returns the user's file:line where value v of tracer was
	// recorded and the public call made there.
	Site func(tracer any, v ir.Value) (pos, call string)
	// Setup applies the compile cache's default configuration (disk
	// cache, environment) once, as the first Func build does.
	Setup func()
	// Logger returns the standard-error logger GOJIT_LOG enables for
	// kind ("lazy"; "debug" enables every kind), or nil.
	Logger func(kind string) *slog.Logger
	// DisableJIT reports whether GOJIT_DISABLE_JIT asks for the
	// interpreter.
	DisableJIT func() bool
	// NewOutput returns a *gojit.Array of dtype dt and shape for a
	// kernel to write in full (its contents may be stale): a large one
	// comes from the root package's output pool, which recycles a buffer
	// once nothing points into it (outputs.go).
	NewOutput func(dt ir.DType, shape []int) any
	// Buffer returns a slice of n elements of dt ([]float32 ...) from the
	// same pool, contents stale, for a copy of host data; nil when a
	// buffer that small is not pooled.
	Buffer func(dt ir.DType, n int) any
	// PoolHits counts the buffers the output pool has handed out again
	// (for tests).
	PoolHits func() int64
}

// H holds the hooks; the root package sets it in init, before any package
// importing it (package lazy does) can run.
var H Hooks
