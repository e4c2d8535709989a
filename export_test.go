package gojit

// OutputPoolStats returns the output pool's counters for benchmarks:
// buffers handed out from the pool (hits) and new (misses), collections
// Call started, and their measured cost in ns.
func OutputPoolStats() (hits, misses, forced, gcNanos int64) {
	outputPool.Lock()
	defer outputPool.Unlock()
	return outputPool.hits, outputPool.misses, outputPool.forced, outputPool.gcNanos
}

// SetForcedCollections turns the collections Call starts on or off, to
// compare both in one process; it returns the previous setting.
func SetForcedCollections(on bool) bool {
	outputPool.Lock()
	defer outputPool.Unlock()
	old := !outputPool.noForce
	outputPool.noForce = !on
	return old
}

// WithBackend forces every module's backend level, runtime.BackendQuick
// or runtime.BackendFull (0: each module's own choice), to compare both
// on one graph.
func WithBackend(level int) Option { return func(c *config) { c.backend = level } }
