// Package jpeg is gojit's one binding to a JPEG codec: libjpeg-turbo
// (Debian libturbojpeg0-dev and libjpeg62-turbo-dev, which `make deps`
// installs) through cgo, and
// a pure-Go twin over image/jpeg, chosen by the build: the twin is used
// without cgo or with the build tag noturbojpeg (for a machine without
// the library). Both files implement the same API with the same
// semantics; Backend says which one a build has.
//
// The semantics, for both builds:
//
//   - Pixels are interleaved 8-bit samples, rows top to bottom, with
//     c = 1 (gray) or 3 (RGB) channels; a w by h image is exactly w*h*c
//     bytes.
//   - Encode writes baseline JPEG: RGB subsampled 4:2:0, gray stored as
//     one component, at quality 1..100.
//   - Decode fills a caller-supplied buffer (no allocation of pixels in
//     the libjpeg-turbo build) and requires the JPEG to be exactly the
//     size the caller expects, so a stream that disagrees with the
//     dataset's metadata is an error, not a buffer overrun. A gray JPEG
//     decoded as RGB has its gray value in all three channels, an RGB
//     one decoded as gray is converted to luma. A truncated or damaged
//     stream is an error (libjpeg-turbo's warnings count as errors).
//   - Every function is safe for concurrent use.
//
// The decoded pixels of the two builds differ slightly (by a few levels
// where colour changes, from chroma upsampling); either reads what the
// other wrote.
//
// DecodeCrop is the decode a training pipeline's random resized crop
// needs, with the resize left to the caller (the pipeline's compiled
// kernel): it writes the pixels of a rectangle straight into the caller's
// memory at the largest DCT reduction n/8 (n = 1, 2 or 4; see CropScale) that keeps the rectangle at
// least the output size, and returns a Crop saying where the rectangle
// landed in the buffer (fractional, after scaling). The libjpeg-turbo
// build uses the libjpeg API for it (jpeg_skip_scanlines,
// jpeg_crop_scanline, scale_num/scale_denom, which TurboJPEG 2.1 does not
// expose; Debian libjpeg62-turbo-dev) with decompressors kept in a pool,
// and allocates nothing in Go; its crops equal the same pixels of a
// whole-image TurboJPEG decode at the same scale exactly. The twin
// decodes the whole image and averages areas for the scale. Four-component
// (CMYK, YCCK) JPEGs decode to RGB in both builds, read as image/jpeg
// reads them (Adobe's inverted values when an Adobe marker is present).
// DecodeRegion is DecodeCrop followed by a bilinear resize in Go. Inspect
// reports a JPEG's size and component layout.
//
// What a crop saves: libjpeg must still Huffman-decode every row above
// the rectangle (a skipped row costs about half a decoded one on
// 256-pixel quality-90 images, BenchmarkSkippedRow) and every column of
// the rows it covers (only the inverse DCT, upsampling and colour
// conversion of the columns outside are saved); the rows below are free.
// On torchvision's RandomResizedCrop(224) boxes of 224..320-pixel images
// (BenchmarkDecodeCrop, thread CPU time; the boxes cover 48% of the image
// on average, 52% once widened to iMCU columns) a crop costs about 0.74 of
// a TurboJPEG Decode of the whole image, a 224/256 center crop about
// 0.87, and DecodeCrop of the whole image 0.95 (one header parse instead
// of two). JPEGs written by EncodeWith with restart markers (16 intervals
// a row) let DecodeCrop skip the Huffman decoding outside the crop too:
// random crops then cost 0.68 of the baseline, but the markers make every
// other decode about 6% slower (whole image 1.01, center crop 0.93) and
// the file about 4% larger, so the dataset's writer should use them only
// when random crops dominate.
//
// The decoder keeps libjpeg's defaults, JDCT_ISLOW and fancy upsampling
// (what PIL decodes with), bit-exact with TurboJPEG's Decode: JDCT_IFAST
// saves 1-2% for about one level of error on average (6 at most), and
// JDCT_FLOAT is slower (TestTuningAccuracy). Plain (merged) upsampling is
// 4-8% faster but not used: with jpeg_crop_scanline and
// jpeg_skip_scanlines it made random crops fail now and then, with tables
// of ours that then lived in libjpeg's image pool overwritten (the
// failures stopped when they moved out of it), so libjpeg-turbo 2.1.5 is
// suspected of writing out of bounds in that mode.
//
// Package dataset encodes and decodes image fields with it, and the
// pipeline's decoders will share it.
package jpeg
