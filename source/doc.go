// Package source compiles Go source to native code: ordinary Go functions
// over numeric scalars and slices (CompileFunc, Compile), and formulas over
// named columns (CompileFormula).
//
// A function is read from its own source, type-checked, built into
// golang.org/x/tools/go/ssa form and lowered straight to LLVM IR, sharing
// gojit's LLVM back end, runtime and compile caches; it does not go through
// the tensor IR. A formula is a Go expression over columns; it is lowered to
// gojit's tensor IR and so is fused, vectorized and split across threads like
// any traced function.
//
// Code the compiler cannot handle is rejected with one diagnostic per
// construct, each naming file:line:col with the source line and a caret, all
// of them at once (see Error). docs/source.md lists the supported constructs
// and what each becomes.
package source
