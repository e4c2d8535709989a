package lazy

import (
	"sync"
	"unsafe"

	"github.com/gojit/gojit/internal/runtime"
)

// Large host copies.
//
// A copy of host data is read by the kernel of the next flush, usually
// right away. Go's copy (runtime.memmove on amd64) writes copies of 1 MiB
// or more with non-temporal stores, which bypass the caches: the 10-op
// chain's 4 MB input went to memory, and the kernel read it back from
// there. A copy the caches can hold is better written with ordinary
// stores, so bigCopy copies it in pieces below memmove's threshold
// (copyPiece). What the caches can hold is taken to be what the kernels
// themselves write with ordinary stores (runtime.StreamThreshold, derived
// from the host's cache sizes: 16 MiB on a 2-vCPU Zen 5 VM with a 32 MiB
// L3, 8 MiB on a 2-vCPU Intel VM with a 4 MiB share of its L3); a larger
// copy would evict what it wrote before the kernel reads it, and keeps
// memmove's streaming stores.
//
// Measured on the Zen 5 VM (BenchmarkChainBlocks, its lazy-memmove/lazy
// over fourteen runs on a loaded host): one memmove took 0.92-1.19 times as
// long as the pieces, median 1.04; a small gain, most of the copy's cost
// being the memory it writes, last written a collection cycle earlier.
// Spreading the pieces over the kernels' worker pool (runtime.SharedPool)
// was slower: 1.04-1.36 times the wall time, median 1.07 over seven runs,
// of the pieces on the calling goroutine alone (the caller waits for the
// worker to claim its half, and the two vCPUs share the memory's
// bandwidth), so the copy stays on the calling goroutine.

// copyPiece is the largest piece bigCopy copies at once: below
// runtime.memmove's non-temporal threshold (1 MiB on amd64).
const copyPiece = 512 << 10

// streamCopies is StreamThreshold, read once.
var streamCopies = sync.OnceValue(runtime.StreamThreshold)

// oneMemmove makes bigCopy one copy, for the benchmarks that compare.
var oneMemmove bool

// bigCopy copies src to dst (of the same length) as described above.
func bigCopy[T any](dst, src []T) {
	var zero T
	esize := int(unsafe.Sizeof(zero))
	if bytes := len(src) * esize; bytes <= copyPiece || oneMemmove || int64(bytes) >= streamCopies() {
		copy(dst, src)
		return
	}
	piece := copyPiece / esize
	for i := 0; i < len(src); i += piece {
		j := min(i+piece, len(src))
		copy(dst[i:j], src[i:j])
	}
}
