// Package ir defines gojit's graph intermediate representation: the one form
// every front end (tracing, lazy tensors, pipelines, Go source) produces and
// every later stage (passes, code generation, the interpreter) consumes.
//
// A Graph is a list of Nodes in topological order; a node's index is its
// Value, a dense integer ID, so per-value side data lives in slices indexed
// by Value rather than in maps. Each node has an Op, whose metadata (printed
// name, kind, dtype restrictions) lives in one table, and a result DType and
// Shape that Graph.Add infers and checks from the operands. Elementwise ops
// take operands of identical dtype and shape: broadcasting and dtype
// promotion are made explicit (broadcast and cast nodes) by the front ends,
// which keeps every later stage simple.
//
// The IR has a text form, written by Print and read by Parse, so tests state
// graphs as strings:
//
//	graph {
//	  %0 = param 0 : f32[4]
//	  %1 = const 0 : f32[4]
//	  %2 = max %0, %1 : f32[4]
//	  return %2
//	}
//
// Control flow is structured (control.go): cond and while own regions,
// closed sub-graphs whose parameters the op binds to its operands, printed
// nested inside the op's braces; get reads one of the op's results. The
// verifier checks each region and its signature against the op.
//
// Verify checks the invariants every pass must preserve; tests run it after
// every pass. Hash is the SHA-256 of the text without source positions: the
// structural identity used by compile-cache signatures.
package ir
