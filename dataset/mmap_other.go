//go:build !unix

package dataset

import (
	"io"
	"os"
)

// mmapFile reads the file into memory where mmap is not available; the
// Reader behaves the same, without sharing the OS page cache.
func mmapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

func munmapFile([]byte) error { return nil }
