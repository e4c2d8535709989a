//go:build !linux

package jpeg

import "time"

var start = time.Now()

// threadCPU falls back to wall time where the thread's CPU clock is not
// wired up.
func threadCPU() time.Duration { return time.Since(start) }
