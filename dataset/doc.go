// Package dataset stores samples for training in one file and reads them
// back fast: gojit's counterpart of FFCV's .beton format, with a parallel
// writer and a validating reader. The loader that batches samples for
// training is package pipeline.
//
// # Schema and samples
//
// A Schema lists named fields: Int and Float (held in each sample's
// fixed-size metadata row), Bytes, JSON, NDArray (a fixed shape),
// NDArrayVar (a variable shape under a declared maximum: boxes, audio) and
// Image (raw pixels or JPEG; 1, 3 or 4 channels, or each source's own;
// optional downscaling to a maximum resolution). A Sample maps field names
// to values; its documentation lists the Go type of each kind on input and
// output.
//
// # Writing
//
// Create returns a Writer; Write consumes an iter.Seq2[int, Sample] with
// several workers that convert and encode samples and assemble and
// checksum pages in parallel, while samples are placed in pages in their
// order, so the file is byte-identical whatever the number of workers.
// Pages are written one at a time (writes to one file do not scale
// across threads), by whichever worker finishes a page while no other is
// writing; a page of a few large samples is written with one pwritev from
// the samples' own buffers, without being copied into a page buffer first.
// Writeback starts as the file grows, so Close's fsync has little left to
// do. Close
// writes the tables, including each variable-size field's maxima, and
// renames the file from a temporary name: an interrupted write leaves
// nothing under the final name.
//
// # Reading
//
// Open validates the header and every table and memory-maps the file (or
// reads it with pread through a bounded page cache, WithPread). Sample
// decodes one sample; AppendRaw gives a field's stored bytes without
// decoding, for the loader, and SamplePages the pages they lie on, for
// page-aware shuffling, and Maxima each field's largest shape and size,
// for sizing buffers without reading the samples. Every page's CRC32C is
// checked on its first read. A mapped file truncated while open gives an
// ErrTruncated error rather than a crash (SIGBUS). Errors are *Error values naming the file, the sample and the field, and
// wrap sentinels (ErrNotDataset, ErrVersion, ErrTruncated, ErrChecksum,
// ErrCorrupt, ErrSample) for errors.Is.
//
// # File format
//
// Little-endian and versioned: a 160-byte header with a checksum, field
// descriptors, page-aligned data pages (a sample never spans a page
// boundary unless it is larger than a page, in which case it has its own
// run of pages), then the metadata table (one fixed-size row per sample),
// the allocation table (where each sample's data lies) and the page table
// (bytes used and CRC32C of each page). docs/dataset-format.md describes
// every byte.
//
// # JPEG
//
// JPEG is encoded and decoded by internal/jpeg: libjpeg-turbo (Debian
// libturbojpeg0-dev, which `make deps` installs) through cgo, and Go's
// image/jpeg in builds without cgo or with the build tag noturbojpeg (for
// a machine without the library). Both store baseline JPEG (RGB
// subsampled 4:2:0, grayscale as one component), which either build
// reads; the decoded pixels of the two builds differ slightly (by a few
// levels where colour changes, from chroma upsampling).
package dataset
