package runtime

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkPoolHandoff measures what splitting a short loop across two
// threads costs on this host: Pool.Run with two chunks, each spinning for
// d, against one thread running both chunks. overhead-ns is the median
// call's wall time minus d (ideal: 0; one thread: d); a median above 2d
// means the split lost.
func BenchmarkPoolHandoff(b *testing.B) {
	p := NewPool(1)
	spin := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	for _, d := range []time.Duration{0, 2 * time.Microsecond, 5 * time.Microsecond, 10 * time.Microsecond} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("d=%v/threads=%d", d, threads), func(b *testing.B) {
				walls := make([]time.Duration, 0, 1<<16)
				for b.Loop() {
					t0 := time.Now()
					if threads == 1 {
						spin(d)
						spin(d)
					} else {
						p.Run(2, func(int) { spin(d) })
					}
					if len(walls) < cap(walls) {
						walls = append(walls, time.Since(t0))
					}
				}
				slices.Sort(walls)
				b.ReportMetric(float64((walls[len(walls)/2] - d).Nanoseconds()), "overhead-ns")
				b.ReportMetric(float64(walls[len(walls)*9/10].Nanoseconds()), "p90-ns")
			})
		}
	}
}
