//go:build !linux

package gojit_test

// threadCPU is 0 where the calling thread's CPU time cannot be read.
func threadCPU() int64 { return 0 }

// procCPU is 0 where the process's CPU time cannot be read.
func procCPU() int64 { return 0 }

// residentBytes is 0 where the resident memory cannot be read.
func residentBytes() int64 { return 0 }
