package source

// Stale-source detection for CompileFunc: the function is read from the
// file the binary's line table names, which may have been edited since the
// binary was built. Go records no hash of a function's text in the binary,
// so two checks stand in for one: the entry line the binary records must
// fall inside the declaration found in the file (it is the func line, or
// the first statement's when optimized), and no file the unit was read from
// may be newer than the executable (go build and go test write the
// executable after reading the sources, and go build rewrites an
// up-to-date one, so its mtime is the build time). An edit that keeps
// every line in place and is older than the executable (a binary copied
// with its times preserved from an older build) is not detected.

import (
	"fmt"
	"os"
	"sort"
	"time"
)

// executableTime returns the modification time of the running executable,
// or the zero time when it cannot be found (then only the line check runs).
func executableTime() time.Time {
	exe, err := os.Executable()
	if err != nil {
		return time.Time{}
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// checkFresh reports ErrStaleSource when u, loaded for the runtime
// function full whose entry the binary places at line, does not match the
// binary: the declaration does not span line, or a file of u was modified
// after built (skipped when built is zero) and not in the future.
func checkFresh(u *unit, full string, line int, built time.Time) error {
	if u.decl != nil {
		start, end := u.fset.Position(u.decl.Pos()), u.fset.Position(u.decl.End())
		if line < start.Line || line > end.Line {
			return fmt.Errorf("source: %s: %w: the binary places the function at %s:%d, but the file declares it at lines %d-%d; rebuild the program",
				full, ErrStaleSource, start.Filename, line, start.Line, end.Line)
		}
	}
	if built.IsZero() {
		return nil
	}
	now := time.Now()
	names := make([]string, 0, len(u.src))
	for name := range u.src {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fi, err := os.Stat(name)
		if err != nil {
			continue // read through the cache, then removed: nothing to compare
		}
		// A time in the future (files unpacked from an archive made on a
		// machine whose clock is ahead) says nothing about the build: a
		// fresh build would not clear it.
		if fi.ModTime().After(built) && !fi.ModTime().After(now) {
			return fmt.Errorf("source: %s: %w: %s was modified at %s, after the executable was built (%s); rebuild the program, or the compiled code may differ from the Go function",
				full, ErrStaleSource, name, fi.ModTime().Format(time.RFC3339), built.Format(time.RFC3339))
		}
	}
	return nil
}
