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

// procCPU is the CPU time of the whole process, in ns, or 0: besides the
// calling thread's, the thread pool's share of a kernel, the collector
// and the cleanups (getrusage(RUSAGE_SELF), brought up to date at
// scheduler ticks: meaningful over many iterations only).
func procCPU() int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
