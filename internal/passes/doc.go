// Package passes holds the transformations between the traced graph and
// code generation.
//
// Optimize runs the graph-to-graph passes of one ordered table (Passes):
// fold (constants known at compile time, computed by the interpreter so
// they are bit-identical to running), simplify (algebraic identities that
// hold exactly in IEEE arithmetic), cse (common subexpressions), hoist
// (loop-invariant work out of while loops) and dce (dead code). The regions
// of control-flow ops are optimized first, by the same table, as graphs of
// their own (control.go); fusion treats a control-flow op as a boundary. Each pass names the passes it must follow, and the table's
// order is checked at start-up. Every pass keeps the graph's parameters and
// outputs, and its result is checked against the interpreter on random
// graphs in the tests; Options.Verify runs ir.Verify after each pass and
// Options.Observe sees each intermediate graph (gojit dump -pass, -passes,
// -report). Fold, simplify and cse keep value numbers stable, leaving the
// nodes they replace dead for dce, so dumps before and after them line up.
//
// Fuse then decides which values live in memory; every other value is
// computed inside the loop of the one group that consumes it, so a chain of
// elementwise ops and the reduction it feeds become one loop nest whose
// intermediates never touch memory.
package passes
