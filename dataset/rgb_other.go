//go:build !amd64

package dataset

// haveSSSE3 is false here (a variable for the test that sets it).
var haveSSSE3 = false

// rgbaToRGBFast converts nothing here; rgbaToRGB's Go loop does it all.
func rgbaToRGBFast([]byte, []byte) int { return 0 }
