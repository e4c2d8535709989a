//go:build !linux

package gojit_test

// threadCPU is 0 where the calling thread's CPU time cannot be read.
func threadCPU() int64 { return 0 }
