package lazy

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling OS thread has used, in ns, or 0:
// unlike wall time it does not count the time other processes hold the
// CPU (the development machine is shared), nor the collector's background
// work on other threads. It reads CLOCK_THREAD_CPUTIME_ID, which is exact;
// getrusage(RUSAGE_THREAD) is only brought up to date at scheduler ticks
// and reads 0 for most intervals of tens of microseconds.
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
