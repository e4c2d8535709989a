//go:build !linux

package lazy

// threadCPU is 0 where the calling thread's CPU time cannot be read.
func threadCPU() int64 { return 0 }

// procCPU is 0 where the process's CPU time is not read.
func procCPU() int64 { return 0 }
