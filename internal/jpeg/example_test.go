package jpeg_test

import (
	"fmt"
	"image"

	"github.com/gojit/gojit/internal/jpeg"
)

// ExampleDecodeCrop decodes a 200x150 crop of a 320x240 JPEG for a 64x48
// output: the DCT scale 3/8 keeps the crop at least 64x48, and Crop
// places it in the decoded buffer for the resize that follows.
func ExampleDecodeCrop() {
	const w, h = 320, 240
	pix := make([]byte, w*h*3)
	for i := range pix {
		pix[i] = byte(i % 251)
	}
	data, err := jpeg.Encode(nil, pix, w, h, 3, 90)
	if err != nil {
		panic(err)
	}
	src := image.Rect(40, 32, 240, 182)
	dst := make([]byte, jpeg.MaxCropLen(src, 64, 48, 3))
	cr, err := jpeg.DecodeCrop(dst, data, src, 64, 48, 3)
	if err != nil {
		panic(err)
	}
	fmt.Printf("scale %d/8, crop %gx%g, buffer rows %d\n", cr.Scale, cr.X1-cr.X0, cr.Y1-cr.Y0, cr.H)
	// Output: scale 4/8, crop 100x75, buffer rows 75
}
