package gojit_test

import "syscall"

// threadCPU is the CPU time the calling OS thread has used, in ns, or 0:
// unlike wall time it does not count the time other processes hold the
// CPU.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
