package dataset

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentReaders reads every sample from several goroutines at
// once, mapped and through a one-page pread cache (run with -race).
func TestConcurrentReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.ds")
	const n = 60
	writeFile(t, path, testSchema(), n, testSample, WithPageSize(MinPageSize))
	for _, opts := range [][]OpenOption{nil, {WithPread(MinPageSize)}} {
		r, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for k := range n {
					i := (k*7 + g*13) % n
					s, err := r.Sample(i)
					if err != nil {
						t.Error(err)
						return
					}
					checkSample(t, s, i)
				}
			})
		}
		wg.Wait()
		if r.cache != nil && len(r.cache.pages) > 1 {
			t.Errorf("the pread cache holds %d pages, its limit is 1", len(r.cache.pages))
		}
		r.Close()
		if _, err := r.Sample(0); err == nil {
			t.Error("Sample after Close gave no error")
		}
	}
}
