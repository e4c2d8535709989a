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
// DecodeRegion is the decode a training pipeline's random resized crop
// needs: a rectangle of the image resized to a given size. The
// libjpeg-turbo build uses the libjpeg API for it (jpeg_crop_scanline,
// jpeg_skip_scanlines and scale_num/scale_denom, which TurboJPEG 2.1 does
// not expose; Debian libjpeg62-turbo-dev), the twin crops and resizes a
// full decode; both resample with the same Go code.
//
// Package dataset encodes and decodes image fields with it, and the
// pipeline's decoders will share it.
package jpeg
