//go:build unix

package diskcache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// CheckSecure returns an error wrapping ErrInsecure unless fi (a cache
// directory or entry) belongs to the current user and neither group nor
// others may write it.
func CheckSecure(fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: mode %v is writable by group or others", ErrInsecure, perm)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: cannot read the owner", ErrInsecure)
	}
	if uid := getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: owned by uid %d, not by the current user (uid %d)", ErrInsecure, st.Uid, uid)
	}
	return nil
}

// getuid is os.Getuid, replaceable by tests to play another user.
var getuid = os.Getuid

// openEntry opens the entry file p for reading like os.Open, but as a
// plain blocking descriptor: os.Open offers every file to the runtime's
// network poller, which a process's first open pays for by creating it
// (epoll, an eventfd and four more system calls, about 50 µs on a
// cached kernel's first call). Entries are small regular files, read
// once.
func openEntry(p string) (*os.File, error) {
	for {
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return os.NewFile(uintptr(fd), p), nil
	}
}
