// Package lazy gives eager-looking tensors that record their operations
// and run them compiled, in batches, at sync points (the GT2 model).
//
//	x := lazy.FromFloat32(a, 100, 100)
//	y := lazy.FromFloat32(b, 100, 100)
//	loss, err := x.Add(y).Mul(x).MatMul(y).Relu().Mean().Item()
//
// Each op returns at once: it is recorded by gojit's own tracer, so every
// op of gojit.Tensor exists here with the same name and semantics (dtype
// promotion, weak scalars, broadcasting, checks and error messages are
// gojit's; the wrappers are generated from gojit.Tensor's methods). Item
// is a sync point: the pending graph is cut there, compiled (or found in
// the cache) and run.
//
// # Sync points
//
// A flush happens at:
//
//   - a read: Array, Float32 (and the other dtypes) or Item of a pending
//     tensor. Only what that tensor needs is computed: recorded ops that
//     it does not depend on are not run, and the intermediates it needs are
//     fused and never stored, unless another recorded op also uses them
//     (then they are stored, so that nothing is computed twice).
//   - Free of a tensor that pending ops use: they are computed first, so
//     the tensor's memory can go at once. Free of a tensor made from host
//     data gives its copy's buffer (outside the heap) back at once, for
//     the next copy of that size to be written in cache, when nothing
//     else can read it: no other tensor shares the copy, it was never
//     brought into a later pending graph, and every op that uses it has
//     been computed and stored. An op fused away by a read and not
//     stored (GT2's intermediates) keeps the copy, since a Tensor of it
//     may still be read: the buffer then goes after a collection, unless
//     the Context was made WithFreeDropsDerived, where Free drops such
//     pending tensors instead (reading one returns ErrDerivedFromFreed).
//     Stats.InputsFreed counts the copies given back at once.
//   - Sync: every live tensor recorded since the last flush is computed
//     and stored.
//   - the pending graph reaching the batch size (DefaultBatchSize graph
//     nodes, WithBatchSize, GOJIT_LAZY_BATCH_SIZE): see Cut placement.
//
// Creating a tensor from host data is not a sync point: FromFloat32 and
// its siblings copy the data (FromArray does not) and the value becomes an
// input of the next batch that uses it. Copies of 32 KiB to 16 MiB live in
// memory lazy maps outside the Go heap (up to 32 MiB for those up to 1
// MiB, 64 MiB for larger ones, kept for reuse):
// the collector then neither counts nor scavenges them. Array of such a
// tensor moves its value to the Go heap first. A tensor made again from
// the same slice with the same shape, its bytes unchanged since the
// Context's last copy of it, shares that copy (the bytes are compared
// instead of copied; Stats.InputsShared counts them). A computed value stays resident
// while a Tensor holds it and is an input of later batches, never
// recomputed. A value read after its flush that no op used at that time
// (an intermediate stored by nobody) is recomputed from the resident
// values it depends on; read what you need at the end of a step, or call
// Sync, to avoid that.
//
// # Dead tensors
//
// A Tensor the user no longer references is dead: no flush computes or
// stores it, and a value that only dead tensors need is not stored
// either. A pending graph holds its Tensors strongly at first and, at the
// first op after a garbage collection, weakly (a weak pointer costs three
// times the rest of an op, and most Tensors are flushed before any
// collection), so the collection after that clears the dropped ones: a
// dropped Tensor is known dead after two collections, and counted as live
// until then. A batch-size cut stores only what crosses the cut and the
// live Tensors that no op of its batch uses: intermediates are fused
// away whether or not they are alive, so that a cut's outputs, and with
// them its signature, do not depend on when the collector ran.
//
// # Cut placement
//
// When the pending graph reaches the batch size, lazy does not cut at the
// last op: it cuts after the node with the smallest structural hash (its
// op, dtype, shape, attributes and constant, and its operands' dtypes and
// shapes; the latest of equal ones). In a loop that repeats a pattern,
// that node sits at the same point of the pattern every time, so every cut
// lands there. The nodes after the cut start the next pending graph, in
// the order they were recorded. So the first batch starts where the loop
// starts, the second carries what the first cut left, and from the third
// on every batch starts at the same point of the pattern with the same
// carry, holds the same ops and is a cache hit, whatever the pattern's
// length and the batch size, provided the batch size is at least twice
// the pattern's length (with less, batches usually settle too, possibly
// into a short cycle). The values stored at a cut are those the ops after
// the cut use and those live Tensors hold that no op of the batch uses.
// A cut never falls between a control-flow op and its results. A loop with a read per iteration is
// simpler still: the read cuts at the same point every iteration, and from
// the second iteration on every batch is a cache hit.
//
// # Control flow
//
// Cond, While and ForLoop are gojit's, recorded lazily: their functions
// run once, when the op is recorded, and record what they do into the
// regions of one node of the pending graph; the compiled code runs them as
// the predicate and the loop decide. Inside those functions tensors can be
// combined, with each other and with any tensor of the Context, but not
// read, freed or synced (an error), and nothing is flushed until the op is
// recorded. A batch's key covers its regions in full.
//
// # Signatures and the cache
//
// A batch's key is its exact graph: every node's op, dtype, shape,
// operands (wiring), attributes and constants, the inputs' dtypes and
// shapes, and the outputs. Two batches with the same op names wired
// differently get different kernels. The kernel comes from gojit's engine
// (runtime.BuildAcquired, keyed by the optimized graph's signature,
// shared with Compile and the disk cache). Batches that differ only in
// the leading dimension of an input (a last partial batch, a variable
// length) form a family: the first size is compiled for its shapes; at
// the second, lazy builds one kernel with a dynamic leading dimension
// (gojit's WithDynamicDim machinery) and every later size that follows
// the same pattern runs it, so any number of sizes compiles at most two
// kernels. A family the dynamic kernel cannot serve compiles each size.
//
// If compiling a batch fails, it runs in gojit's interpreter with a
// warning logged once per signature, and its results stay correct.
//
// # Errors
//
// An op with invalid operands returns a Tensor carrying an error that
// names the op and the user's file:line; Err reports it at once, every
// read of a tensor that depends on it returns it, and Sync returns the
// errors that no read returned. Other tensors are unaffected.
//
// # Contexts and goroutines
//
// Tensors belong to a Context, which holds their pending graph. The
// package-level constructors (FromFloat32, Full ...) and Sync use the
// default Context, fine for scripts. A Context locks itself for each op,
// so goroutines may share one and take turns; for parallel work give each
// goroutine its own (NewContext). Combining tensors of two Contexts is an
// error. While a Cond, While or ForLoop function runs, its Context
// records into the function's region: do not use that Context from
// another goroutine meanwhile.
//
// # Explanations
//
// Stats returns the counters: ops recorded, compiled and interpreted,
// flushes by reason, cache hits and misses, ops per flush, compile time,
// and what made the last miss differ from the nearest cached graph.
// GOJIT_LOG=lazy (or WithLogger) logs every flush with its reason and the
// user's line that caused it. docs/lazy.md has more.
package lazy
