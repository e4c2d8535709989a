package runtime

// SharedPool returns the process-wide worker pool that compiled graphs
// split their loops across, for other front ends (package source's
// parallel loops) to run their chunks on the same goroutines.
func SharedPool() *Pool { return pool() }
