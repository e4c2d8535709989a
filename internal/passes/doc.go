// Package passes holds the transformations between the traced graph and
// code generation. Fuse decides which values live in memory; every other
// value is computed inside the loop of the one group that consumes it, so a
// chain of elementwise ops and the reduction it feeds become one loop nest
// whose intermediates never touch memory.
package passes
