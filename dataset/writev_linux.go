//go:build linux

package dataset

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// canGather reports whether pwritev is available: a page whose data is a
// few large sample buffers is then written from those buffers directly,
// without first being copied into a page buffer.
const canGather = true

// iovMax is the most pieces one pwritev takes (IOV_MAX on Linux).
const iovMax = 1024

// pwritevAll writes the concatenation of iovs at off, in calls of at most
// iovMax pieces, looping over short writes and EINTR.
func pwritevAll(f *os.File, iovs [][]byte, off int64) error {
	fd := int(f.Fd())
	for len(iovs) > 0 {
		n, err := unix.Pwritev(fd, iovs[:min(len(iovs), iovMax)], off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "pwritev", Path: f.Name(), Err: err}
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		off += int64(n)
		for n > 0 {
			if n >= len(iovs[0]) {
				n -= len(iovs[0])
				iovs = iovs[1:]
			} else {
				iovs[0] = iovs[0][n:]
				n = 0
			}
		}
		for len(iovs) > 0 && len(iovs[0]) == 0 {
			iovs = iovs[1:]
		}
	}
	return nil
}
