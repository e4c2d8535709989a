// Package jpeg is gojit's one binding to a JPEG codec: libjpeg-turbo
// (Debian libturbojpeg0-dev, which `make deps` installs) through cgo, and
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
// Package dataset encodes and decodes image fields with it, and the
// pipeline's decoders will share it. The API is shaped to grow the
// region decode the compiled pipelines need (libjpeg's
// jpeg_crop_scanline, jpeg_skip_scanlines and scale_num/scale_denom): a
// function of the same form as Decode taking a source rectangle and a
// scale factor, with the twin cropping and resizing after a full decode.
package jpeg
