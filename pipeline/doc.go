// Package pipeline loads batches from a dataset file (package dataset):
// an FFCV-style loader whose per-field ops decode and transform each
// sample into batch memory allocated once.
//
// # Loading
//
// NewLoader opens a file and prepares everything an epoch needs: each
// field's ops are declared (see Op), their memory is allocated in
// Config.BatchesAhead+2 batch slots, and the sharding is computed. Epoch
// then yields the batches of one epoch:
//
//	l, err := pipeline.NewLoader("train.gojit", pipeline.Config{
//		BatchSize: 256, Order: pipeline.QuasiRandom, Seed: 1,
//		Fields: map[string][]pipeline.Op{"image": nil, "label": nil},
//	})
//	for batch, err := range l.Epoch(ctx, epoch) {
//		images := batch.Field("image") // [256, h, w, c] at the maximum size
//		sizes := batch.Shapes("image") // [256, 3]: each image's own size
//	}
//
// Workers split each batch by sample and run ahead by up to BatchesAhead+1
// batches; a batch stays valid until the loop asks for the next one, when
// its slot is reused. In the steady state no batch allocates. Cancelling
// the context (or leaving the loop) stops the workers before the loop
// returns; Close releases the file and the memory. Epochs runs several
// epochs back to back, without a pause at their boundaries.
//
// # Orders, ranks and padding
//
// Sequential keeps the samples' order; Random draws a new permutation every
// epoch; QuasiRandom shuffles the file's data pages and then the samples
// within windows of OpenPages consecutive pages, so the reads of a window
// stay within those pages (with a bounded page cache, dataset.WithPread,
// memory does not grow with the file). Every order is sharded the same
// way: the epoch's global order of the n samples (Indices, or the whole
// file) is padded to WorldSize*ceil(n/WorldSize) entries by repeating its
// first entries, and rank r takes the r-th contiguous part. The ranks'
// parts are disjoint and of equal size, and together hold every sample
// exactly once plus fewer than WorldSize padding entries, which
// Batch.Padding identifies (skip them when evaluating). DropLast then drops
// each rank's last batch if it is short.
//
// # Determinism
//
// Every random choice comes from Philox-4x32-10 (internal/philox): the
// shuffles are keyed by (Seed, epoch), an op's draws (Sample.Rand) by
// (Seed, field, op position) with the counter (sample index, epoch). A
// batch's content is therefore the same whatever Workers and BatchesAhead,
// and memory past a variable-size sample's own shape is zeroed.
//
// # Ops and stages
//
// An Op declares, from its input State (dtype, shape, whether variable or
// compilable), its output State and the memory it needs per sample (FFCV's
// declare_state_and_memory), and supplies a plain Go Run over one sample,
// a Kernel (gojit tensor ops over the whole batch), or both, or a Split (a
// plain Go part and a compiled part). A field's ops are cut into stages:
// plain Go stages run per sample on the workers; each compiled stage is
// one gojit function per batch into which the stage compiler fuses the
// Kernels of consecutive compiled ops, with per-sample values (crop boxes,
// random draws) as its arguments. Loader.Stages lists them, Loader.Code
// shows a stage's plan, graphs, LLVM IR and assembly, Loader.Timings where
// the time goes, and Config.NoCompile runs the plain Go ops instead (the
// reference). An op that implements Referrer reads other fields' values
// (FFCV's RefNode).
//
// The image ops of an ImageNet pipeline: RandomResizedCropJPEG and
// CenterCropJPEG (decode only the crop's region, resize compiled),
// RandomHorizontalFlip, Normalize, ToCHW; augmentations (Cutout,
// RandomTranslate, ColorJitter, RandomGrayscale, ImageMixup) and label ops
// (LabelSmoothing, LabelMixup); the decoders (IntDecoder, FloatDecoder,
// BytesDecoder, JSONDecoder, NDArrayDecoder, ImageDecoder), put first in a
// field's list by default; and custom ops: TensorOp (a gojit function over
// one sample, batched and fused into the compiled stage) and FuncOp (plain
// Go). docs/pipeline.md has a complete
// example.
package pipeline
