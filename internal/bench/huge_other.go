//go:build !linux

package bench

// hugeFloat32 returns n zeros from make: 2 MiB pages on request are a
// Linux facility (huge_linux.go).
func hugeFloat32(n int) []float32 { return make([]float32, n) }
