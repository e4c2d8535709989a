package dataset

import "runtime"

// WriteOption configures Create.
type WriteOption func(*writeConfig)

type writeConfig struct {
	workers  int
	pageSize int
	progress int // -1 off, 0 on a terminal, 1 on a terminal (explicit)
	total    int
}

func defaultWriteConfig() writeConfig {
	return writeConfig{workers: runtime.GOMAXPROCS(0), pageSize: DefaultPageSize}
}

// WithWorkers sets the number of goroutines that encode samples and
// assemble, checksum and write pages, the goroutine calling Write
// included (default GOMAXPROCS; 1 runs everything on the caller). The
// file is the same byte for byte whatever the number.
func WithWorkers(n int) WriteOption { return func(c *writeConfig) { c.workers = n } }

// WithPageSize sets the page size in bytes: a power of two from
// MinPageSize to MaxPageSize (default DefaultPageSize). A sample is read
// from one page, or from its own run of pages if it is larger than one.
func WithPageSize(n int) WriteOption { return func(c *writeConfig) { c.pageSize = n } }

// WithProgress turns the progress bar on standard error on or off. It is
// on by default and shown only when standard error is a terminal.
func WithProgress(on bool) WriteOption {
	return func(c *writeConfig) {
		if on {
			c.progress = 1
		} else {
			c.progress = -1
		}
	}
}

// WithTotal tells the progress bar how many samples to expect, so that it
// shows a bar and an estimated time rather than a count.
func WithTotal(n int) WriteOption { return func(c *writeConfig) { c.total = n } }

// OpenOption configures Open.
type OpenOption func(*openConfig)

type openConfig struct {
	pread      bool
	cacheBytes int64
	verify     bool
}

// WithPread makes the Reader read pages with pread into a cache of at most
// cacheBytes (at least one page) instead of memory-mapping the file: for
// files larger than memory, or file systems where mmap is slow.
func WithPread(cacheBytes int64) OpenOption {
	return func(c *openConfig) { c.pread, c.cacheBytes = true, cacheBytes }
}

// WithVerify turns the checking of page checksums on the first read of
// each page on (the default) or off. The header and tables are checked by
// Open regardless.
func WithVerify(on bool) OpenOption { return func(c *openConfig) { c.verify = on } }
