//go:build cgo && !noturbojpeg

package jpeg

// The tolerance of DecodeCrop against a whole-image decode at the same
// scale (TestDecodeCropVsScaled).
const cropTolMean, cropTolMax = 0.0, 0
