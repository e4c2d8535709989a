//go:build !cgo || noturbojpeg

package jpeg

// The tolerance of DecodeCrop against a whole-image decode at the same
// scale (TestDecodeCropVsScaled): here both are the same box filter over
// one image/jpeg decode.
const cropTolMean, cropTolMax = 0.0, 0

// cropVariants: this build has one way of decoding crops.
var cropVariants = []cropVariant{{"image/jpeg", tuning{}, false}, {"image/jpeg-restart", tuning{}, true}}
