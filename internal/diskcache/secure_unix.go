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
