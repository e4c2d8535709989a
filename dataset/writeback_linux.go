//go:build linux

package dataset

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing a just-written range
// to disk without waiting for it, so that the fsync in Close finds little
// left to do instead of writing the whole file serially at the end.
// Errors are ignored: Close's fsync reports any that matter.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
