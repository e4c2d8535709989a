package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/dataset"
)

// writeRawFile writes n samples of one fixed-size u8 field of size bytes
// (and an Int label), with the given page size.
func writeRawFile(tb testing.TB, dir string, n, size, pageSize int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("raw-%d-%d.gojit", n, size))
	schema := dataset.Schema{Fields: []dataset.Field{dataset.NDArray("x", gojit.Uint8, size), dataset.Int("label")}}
	w, err := dataset.Create(path, schema, dataset.WithPageSize(pageSize), dataset.WithProgress(false))
	if err != nil {
		tb.Fatal(err)
	}
	err = w.Write(context.Background(), func(yield func(int, dataset.Sample) bool) {
		for i := range n {
			x := make([]uint8, size) // the writer may still encode it after yield returns
			for k := range x {
				x[k] = uint8(i + k)
			}
			if !yield(i, dataset.Sample{"x": gojit.FromUint8(x), "label": int64(i)}) {
				return
			}
		}
	})
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkLoaderRaw reads raw 64x64x3 samples (no decoding beyond the
// copy into batch memory) from a file in the page cache; b.SetBytes makes
// the MB/s column the sample bytes per second, and MB/cpu-s is the same
// per second of the process's CPU time. Compare 1 and 2 workers.
func BenchmarkLoaderRaw(b *testing.B) {
	const n, size = 8192, 64 * 64 * 3
	path := writeRawFile(b, b.TempDir(), n, size, 1<<20)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l, err := NewLoader(path, Config{BatchSize: 256, Workers: workers, BatchesAhead: 2, Order: Random, Fields: map[string][]Op{"x": nil}})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			for range l.Epoch(context.Background(), 0) { // page cache and buffers warm
			}
			b.SetBytes(int64(n * size))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, epochs := cpuTime(), 0
			for e := 0; b.Loop(); e++ {
				for _, err := range l.Epoch(context.Background(), e) {
					if err != nil {
						b.Fatal(err)
					}
				}
				epochs++
			}
			// On a shared machine the wall-clock MB/s depends on the CPU the
			// process got; sample bytes per CPU second does not.
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(epochs*n*size)/1e6/cpu.Seconds(), "MB/cpu-s")
			}
		})
	}
}

// rss returns the process's resident set size in bytes (Linux).
func rss(tb testing.TB) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// epochRSS loads epochs of a loader and returns the resident set size
// after each, in bytes.
func epochRSS(t *testing.T, l *Loader, epochs int) []int64 {
	var out []int64
	for e := range epochs {
		for _, err := range l.Epoch(context.Background(), e) {
			if err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		debug.FreeOSMemory()
		out = append(out, rss(t))
	}
	return out
}

// TestQuasiRandomMemory: QuasiRandom with 2 pages per window reading
// through a bounded page cache (the page budget) keeps the resident set
// independent of the file's size: a file 4x and one 16x the budget give
// the same growth. It also checks that memory stays flat over 20 epochs.
func TestQuasiRandomMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 80 MB of test files")
	}
	const size, pageSize, budgetPages = 12288, 256 << 10, 16
	const budget = budgetPages * pageSize // 4 MiB
	dir := t.TempDir()
	perPage := pageSize / size
	growth := map[int]int64{}
	for _, times := range []int{4, 16} {
		n := times * budgetPages * perPage
		path := writeRawFile(t, dir, n, size, pageSize)
		runtime.GC()
		debug.FreeOSMemory()
		before := rss(t)
		l, err := NewLoader(path, Config{BatchSize: 32, Workers: 2, Order: QuasiRandom, OpenPages: 2,
			Fields: map[string][]Op{"x": nil}, Open: []dataset.OpenOption{dataset.WithPread(budget)}})
		if err != nil {
			t.Fatal(err)
		}
		epochs := 3
		if times == 4 {
			epochs = 20
		}
		r := epochRSS(t, l, epochs)
		slots := len(l.slots) * l.SlotBytes()
		l.Close()
		growth[times] = r[len(r)-1] - before
		fi, _ := os.Stat(path)
		t.Logf("file %5.1f MiB (%2dx the %d MiB page budget), slots %.1f MiB: RSS growth %.1f MiB after epoch 1, %.1f MiB after epoch %d",
			float64(fi.Size())/(1<<20), times, budget>>20, float64(slots)/(1<<20),
			float64(r[0]-before)/(1<<20), float64(r[len(r)-1]-before)/(1<<20), epochs)
		if times == 4 && r[19]-r[1] > 2<<20 {
			t.Errorf("RSS grew by %.1f MiB from epoch 2 to epoch 20", float64(r[19]-r[1])/(1<<20))
		}
	}
	// The 16x file is 4x the 4x file (48 MiB more); the growth must not
	// follow it.
	if d := growth[16] - growth[4]; d > 8<<20 {
		t.Errorf("RSS growth %.1f MiB for the 16x file vs %.1f MiB for the 4x one: it follows the file size", float64(growth[16])/(1<<20), float64(growth[4])/(1<<20))
	}
}

// BenchmarkLoaderPread reads a file 16x larger than a bounded pread page
// cache, in Random and in QuasiRandom order (2 pages per window): the
// ratio shows what page-aware shuffling saves when the file does not fit.
func BenchmarkLoaderPread(b *testing.B) {
	const size, pageSize, budgetPages = 12288, 256 << 10, 16
	n := 16 * budgetPages * (pageSize / size)
	path := writeRawFile(b, b.TempDir(), n, size, pageSize)
	for _, order := range []Order{Random, QuasiRandom} {
		b.Run(order.String(), func(b *testing.B) {
			l, err := NewLoader(path, Config{BatchSize: 32, Workers: 2, Order: order, OpenPages: 2,
				Fields: map[string][]Op{"x": nil}, Open: []dataset.OpenOption{dataset.WithPread(budgetPages * pageSize)}})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			b.SetBytes(int64(n * size))
			b.ResetTimer()
			for e := 0; b.Loop(); e++ {
				for _, err := range l.Epoch(context.Background(), e) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestMemoryFlatMapped: with the default memory map and Random order, the
// resident set grows by the file's pages during the first epoch (the page
// cache, mapped) and then stays flat for 20 epochs: the loader itself
// keeps nothing per epoch.
func TestMemoryFlatMapped(t *testing.T) {
	path := writeRawFile(t, t.TempDir(), 1344, 12288, 256<<10) // 16 MiB of samples
	runtime.GC()
	debug.FreeOSMemory()
	before := rss(t)
	l, err := NewLoader(path, Config{BatchSize: 32, Workers: 2, Order: Random, Fields: map[string][]Op{"x": nil, "label": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := epochRSS(t, l, 20)
	t.Logf("RSS growth after epoch 1: %.1f MiB, epoch 2: %.1f MiB, epoch 20: %.1f MiB",
		float64(r[0]-before)/(1<<20), float64(r[1]-before)/(1<<20), float64(r[19]-before)/(1<<20))
	if r[19]-r[1] > 1<<20 {
		t.Errorf("RSS grew by %.1f MiB from epoch 2 to epoch 20", float64(r[19]-r[1])/(1<<20))
	}
}
