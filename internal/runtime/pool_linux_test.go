package runtime

import (
	goruntime "runtime"
	"syscall"
	"testing"
	"time"
)

// TestPoolCallerRunsChunkZero checks that the calling goroutine runs chunk 0
// of every loop (the workers claim from chunk 1), so that each core runs
// the same part of a loop from one call to the next and keeps its data in
// its cache. The caller is locked to its thread and chunk 0 must run on it,
// even when the caller is slow to start (a hook sleeps between publishing
// the loop and the caller's own work, while the workers spin).
func TestPoolCallerRunsChunkZero(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	testHookPublished = func() { time.Sleep(50 * time.Microsecond) }
	defer func() { testHookPublished = nil }()
	p := NewPool(2)
	me := syscall.Gettid()
	for iter := range 200 {
		chunks := 2 + iter%3
		tids := make([]int, chunks)
		p.Run(chunks, func(c int) { tids[c] = syscall.Gettid() })
		if tids[0] != me {
			t.Fatalf("iteration %d: chunk 0 ran on thread %d, not the caller's %d", iter, tids[0], me)
		}
	}
}
