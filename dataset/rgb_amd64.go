package dataset

import "golang.org/x/sys/cpu"

var haveSSSE3 = cpu.X86.HasSSSE3

// rgbaToRGB4 converts n runs of 4 pixels (16 bytes of src to 12 of dst)
// with PSHUFB; each run stores 16 bytes, the last 4 of which the next run
// overwrites, so dst must have 4 bytes to spare after the last run.
//
//go:noescape
func rgbaToRGB4(dst, src *byte, n int)

// rgbaToRGBFast converts what it can of src into dst with SSSE3 and
// returns the number of pixels it converted.
func rgbaToRGBFast(dst, src []byte) int {
	if !haveSSSE3 || len(dst) < 16 {
		return 0
	}
	n := min(len(src)/16, (len(dst)-16)/12+1)
	if n <= 0 {
		return 0
	}
	rgbaToRGB4(&dst[0], &src[0], n)
	return 4 * n
}
