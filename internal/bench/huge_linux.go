package bench

import (
	"syscall"
	"unsafe"
)

// hugeMinBytes is the size from which NumPy (since 1.22, on Linux) asks
// the kernel to back an array with 2 MiB pages (madvise MADV_HUGEPAGE):
// 4 MiB.
const hugeMinBytes = 4 << 20

// madvHugepage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugepage = 14

// hugeFloat32 returns n zeros. From hugeMinBytes on they are in an
// anonymous mapping advised MADV_HUGEPAGE, as NumPy allocates its large
// arrays: with transparent huge pages in "madvise" mode, the usual
// setting, only such memory gets 2 MiB pages, and a 64 MB operand read
// through 4 KiB pages costs a stream of TLB misses and page-crossing
// stalls of the hardware prefetcher that the peers, reading NumPy's
// arrays, do not pay. The mapping is never unmapped: the workloads live
// as long as the benchmark process. Smaller operands, and any mapping
// that fails, come from make.
func hugeFloat32(n int) []float32 {
	if n*4 < hugeMinBytes {
		return make([]float32, n)
	}
	mem, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]float32, n)
	}
	_ = syscall.Madvise(mem, madvHugepage) // advice only: a kernel without THP keeps 4 KiB pages
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}
