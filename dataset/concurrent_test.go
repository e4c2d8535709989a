package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestTruncatedAfterOpen truncates a file that is open (mapped, then
// through pread) and reads every sample: the samples whose pages are gone
// give an error naming the file and the sample, none crashes the process
// (a mapped read past the end of the file faults with SIGBUS), and the
// ones still in the file read correctly.
func TestTruncatedAfterOpen(t *testing.T) {
	for _, mode := range []string{"mmap", "mmap-noverify", "pread"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.ds")
			const n = 60
			writeFile(t, path, testSchema(), n, testSample, WithPageSize(MinPageSize))
			opts := map[string][]OpenOption{"mmap-noverify": {WithVerify(false)}, "pread": {WithPread(MinPageSize)}}[mode]
			r, err := Open(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// Cut the file in the middle of its data pages.
			half := int64(r.h.dataOff) + int64(r.h.pageCount/2)*int64(r.h.pageSize)
			if err := os.Truncate(path, half); err != nil {
				t.Fatal(err)
			}
			failed := 0
			for i := range n {
				first, np := r.SamplePages(i)
				s, err := r.Sample(i)
				end := int64(r.h.dataOff) + int64(first+np)*int64(r.h.pageSize)
				if np == 0 || end <= half {
					if err != nil {
						t.Errorf("sample %d lies before the cut and gave %v", i, err)
					} else {
						checkSample(t, s, i)
					}
					continue
				}
				if err == nil {
					if mode == "mmap-noverify" && int64(r.h.dataOff)+int64(first)*int64(r.h.pageSize) < half {
						continue // starts before the cut; may not touch a missing page
					}
					t.Errorf("sample %d lies past the cut (file now %d bytes) and read without error", i, half)
					continue
				}
				failed++
				want := fmt.Sprintf("dataset %s: sample %d: ", path, i)
				if !strings.HasPrefix(err.Error(), want) {
					t.Errorf("sample %d: error %q does not start with %q", i, err, want)
				}
				if mode != "pread" && !errors.Is(err, ErrTruncated) {
					t.Errorf("sample %d: error %v is not ErrTruncated", i, err)
				}
			}
			if failed == 0 {
				t.Error("no sample failed after truncating the file")
			}
		})
	}
}
