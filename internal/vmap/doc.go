// Package vmap batches a per-sample graph: it rewrites a function traced
// on one sample into the same function over a batch of samples, with a
// leading batch axis, so that a pipeline.TensorOp is fused into the
// compiled stage around it instead of running sample by sample.
//
// The per-sample graph has the sample x as parameter 0 and, for a random
// op, the sample's Int32[2] Philox key as parameter 1. New splits it:
//
//   - the values that depend on the key but not on x (random draws and
//     what is computed from them alone) form the keyed graph, run once
//     per sample before the stage (pipeline.Kernel.Draw); its results,
//     the frontier, travel to the stage as per-sample float32 inputs,
//     exactly (a cast for f32, f16, bf16, bool and u8 values, 16-bit
//     pieces for i32 and i64 ones; f64 ones cannot cross);
//   - the rest, the values that depend on x and the constants they use,
//     is rewritten by Plan.Batch for a batch of n samples: a value that
//     depends on x or on the frontier gets a leading axis of size n, a
//     constant keeps its shape and is broadcast where it meets a batched
//     value, and each op's axes shift by one.
//
// Gathers at per-sample positions become take_along_axis over the batch,
// and so do dynamic slices at per-sample starts (one per axis, at the
// clamped start plus an iota); a scatter at per-sample positions scatters
// into the batch with the batch axis folded into the scattered one.
// A cond over per-sample values runs both branches, batched, and chooses
// per sample with where (refused when a branch gathers, scatters or
// loops: an index check could fail, or a loop not end, in the branch a
// sample does not take); a loop
// whose condition does not depend on the sample (a ForLoop of fixed
// length) runs once over the batch with its per-sample state batched.
// An op without a batching rule (a loop whose condition depends on the
// sample, a random draw whose key depends on x, a Float64 keyed value)
// makes New fail with an
// error naming it and its source position: the caller keeps the
// per-sample path.
//
// The root package registers the hooks (H) that trace a function into a
// graph and splice a graph into the trace being recorded, as it does for
// package lazy in internal/lazycore.
package vmap
