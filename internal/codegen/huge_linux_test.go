//go:build cgo && !nollvm

package codegen

import (
	"syscall"
	"testing"
	"unsafe"
)

// hugeFloats returns n zeros in an anonymous mapping advised to use 2 MiB
// pages (MADV_HUGEPAGE, which package syscall does not name), as gojit
// bench's inputs are, or from make where the mapping fails.
func hugeFloats(tb testing.TB, n int) []float32 {
	mem, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]float32, n)
	}
	tb.Cleanup(func() { _ = syscall.Munmap(mem) })
	const madvHugepage = 14
	_ = syscall.Madvise(mem, madvHugepage) // advice only
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}
