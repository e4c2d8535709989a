package dataset

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// rawImageSamples returns n samples of a 64x64 RGB image and a label,
// cycling through 64 distinct images so the input does not dominate
// memory.
func rawImageSamples(n int) func(yield func(int, Sample) bool) {
	imgs := make([]image.Image, 64)
	for i := range imgs {
		imgs[i] = testImage("rgba", 64, 64, i)
	}
	return func(yield func(int, Sample) bool) {
		for i := range n {
			if !yield(i, Sample{"image": imgs[i%len(imgs)], "label": i % 1000}) {
				return
			}
		}
	}
}

// BenchmarkWriteRawImages writes 10,000 raw 64x64 RGB images with labels
// with 1 and with 2 workers, alternating, and reports the speed-up of 2
// workers over 1 measured in the same run (the target: 1.7x), and
// the CPU time each takes.
//
// "disk" writes to the test's temporary directory (the file system of
// record, whose fsync in Close waits for the disk); "tmpfs" writes to
// /dev/shm, where fsync has nothing to wait for (but whose writes cost
// more CPU than ext4's page cache on the machine measured, so it is a
// second case, not a disk-free baseline).
func BenchmarkWriteRawImages(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchWriteRaw(b, b.TempDir()) })
	b.Run("tmpfs", func(b *testing.B) {
		if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
			b.Skip("no /dev/shm")
		}
		dir, err := os.MkdirTemp("/dev/shm", "gojit-bench")
		if err != nil {
			b.Skip(err)
		}
		defer os.RemoveAll(dir)
		benchWriteRaw(b, dir)
	})
}

func benchWriteRaw(b *testing.B, dir string) {
	const n = 10000
	schema := Schema{Fields: []Field{Image("image", ImageOptions{Channels: 3}), Int("label")}}
	var cpu [3]time.Duration     // by worker count
	var closing [3]time.Duration // time in Close (tables, fsync, rename)
	write := func(workers int) time.Duration {
		var start time.Time
		var cpu0 time.Duration
		defer func() { cpu[workers] += cpuTime() - cpu0 }()
		// A new name each time, the previous file removed outside the
		// timing: renaming over an existing 120 MB file frees its pages
		// and blocks inside rename (30-35 ms here), a cost of deleting
		// the old dataset that both worker counts would pay alike.
		path := filepath.Join(dir, "bench.ds")
		os.Remove(path)
		start, cpu0 = time.Now(), cpuTime()
		w, err := Create(path, schema, WithWorkers(workers), WithProgress(false))
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(context.Background(), rawImageSamples(n)); err != nil {
			b.Fatal(err)
		}
		c0 := time.Now()
		defer func() { closing[workers] += time.Since(c0) }()
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	write(1) // warm up the page cache and the heap
	cpu[1], closing[1] = 0, 0
	st, err := os.Stat(filepath.Join(dir, "bench.ds"))
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	var t1, t2, tf time.Duration
	best1, best2 := time.Duration(1<<62), time.Duration(1<<62)
	for b.Loop() {
		d1, d2, df := write(1), write(2), writeFloor(b, dir, size)
		t1, t2, tf = t1+d1, t2+d2, tf+df
		best1, best2 = min(best1, d1), min(best2, d2)
	}
	// The floor: the same number of bytes, already in memory, written
	// and synced by a plain loop of 1 MiB writes. No writer can beat it
	// on this file system; on a disk it bounds 2 workers' time.
	b.ReportMetric(float64(tf.Nanoseconds())/float64(b.N)/1e6, "ms/floor")
	b.ReportMetric(float64(t1)/float64(tf), "1worker/floor")
	b.ReportMetric(float64(t1.Nanoseconds())/float64(b.N)/1e6, "ms/1worker")
	b.ReportMetric(float64(t2.Nanoseconds())/float64(b.N)/1e6, "ms/2workers")
	b.ReportMetric(float64(t1)/float64(t2), "speedup")
	// On a shared machine the mean mixes in other processes' load; the
	// best round of each is the closest to the machine to oneself.
	b.ReportMetric(float64(best1)/float64(best2), "speedup-best")
	// CPU time (user + system) per write: what 2 workers cost beyond 1
	// in coordination, whatever the machine's load.
	b.ReportMetric(float64(cpu[1].Nanoseconds())/float64(b.N)/1e6, "cpu-ms/1worker")
	b.ReportMetric(float64(cpu[2].Nanoseconds())/float64(b.N)/1e6, "cpu-ms/2workers")
	b.ReportMetric(float64(closing[1].Nanoseconds())/float64(b.N)/1e6, "close-ms/1worker")
	b.ReportMetric(float64(closing[2].Nanoseconds())/float64(b.N)/1e6, "close-ms/2workers")
}

// BenchmarkAppendRaw reads the raw image bytes of 10,000 64x64 RGB
// samples from a mapped file in the page cache, without decoding, into a
// reused buffer: the loader's inner read. Pages are verified on the first
// pass (before the timer), so this is the steady state.
func BenchmarkAppendRaw(b *testing.B) {
	const n = 10000
	schema := Schema{Fields: []Field{Image("image", ImageOptions{Channels: 3}), Int("label")}}
	path := filepath.Join(b.TempDir(), "read.ds")
	w, err := Create(path, schema, WithProgress(false))
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(context.Background(), rawImageSamples(n)); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"mmap", "pread"} {
		b.Run(mode, func(b *testing.B) {
			var opts []OpenOption
			if mode == "pread" {
				opts = append(opts, WithPread(256<<20))
			}
			r, err := Open(path, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			buf := make([]byte, 0, 64*64*3)
			m := FieldMeta{Shape: make([]int, 0, MaxDims)}
			pass := func() {
				for i := range n {
					if _, err := r.AppendRawInto(buf[:0], i, 0, &m); err != nil {
						b.Fatal(err)
					}
				}
			}
			pass()
			b.SetBytes(n * 64 * 64 * 3)
			b.ReportAllocs()
			for b.Loop() {
				pass()
			}
		})
	}
}

// writeFloor writes size bytes from a prepared buffer to a new file in
// dir in 1 MiB writes, starting writeback as it goes as the writer does,
// syncs, closes and renames it: the least any writer of that many bytes
// pays on this file system. It returns the time taken.
func writeFloor(b *testing.B, dir string, size int64) time.Duration {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	path := filepath.Join(dir, "floor.ds")
	os.Remove(path)
	start := time.Now()
	f, err := os.CreateTemp(dir, "floor-*.tmp")
	if err != nil {
		b.Fatal(err)
	}
	for off := int64(0); off < size; off += int64(len(buf)) {
		n := min(int64(len(buf)), size-off)
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			b.Fatal(err)
		}
		if off%(2<<20) == 0 {
			startWriteback(f, max(0, off-16<<20), n+16<<20)
		}
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
