//go:build !unix

package lazy

import "unsafe"

// mapHost returns nil: host copies stay on the Go heap here (hostmem.go).
func mapHost(size uintptr) unsafe.Pointer { return nil }

// unmapHost does nothing: mapHost maps nothing here.
func unmapHost(p unsafe.Pointer, size uintptr) bool { return false }
