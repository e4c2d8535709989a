//go:build !linux

package pipeline

import "time"

// cpuTime is not measured off Linux: BenchmarkLoaderRaw then reports no
// CPU-time figure.
func cpuTime() time.Duration { return 0 }
