//go:build unix

package lazy

import (
	"syscall"
	"unsafe"
)

// mapHost maps size bytes of anonymous memory outside the Go heap, or
// returns nil.
func mapHost(size uintptr) unsafe.Pointer {
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil || len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// unmapHost unmaps size bytes at p, which mapHost mapped and nothing
// points into any more, and reports whether it could.
func unmapHost(p unsafe.Pointer, size uintptr) bool {
	return syscall.Munmap(unsafe.Slice((*byte)(p), size)) == nil
}
