//go:build !unix

package diskcache

import (
	"fmt"
	"io/fs"
	"os"
)

// CheckSecure returns an error wrapping ErrInsecure if fi (a cache
// directory or entry) may be written by group or others. On this system
// file ownership is not checked.
func CheckSecure(fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: mode %v is writable by group or others", ErrInsecure, perm)
	}
	return nil
}

// openEntry opens the entry file p for reading.
func openEntry(p string) (*os.File, error) { return os.Open(p) }
