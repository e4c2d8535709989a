//go:build unix

package dataset

import (
	"os"
	"syscall"
)

// mmapFile maps the first size bytes of f read-only.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func munmapFile(b []byte) error { return syscall.Munmap(b) }
