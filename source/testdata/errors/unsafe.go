package kernels

import "unsafe"

// unsafe.Sizeof is a constant and fine; the pointer conversions are not.
func F(x []float64) uint64 {
	n := unsafe.Sizeof(x[0]) * 2
	p := unsafe.Pointer(unsafe.SliceData(x))
	b := *(*uint64)(p)
	return b + uint64(n)
}
