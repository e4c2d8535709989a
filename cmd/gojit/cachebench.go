package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/bench"
	"github.com/gojit/gojit/internal/llvm"
)

// The cache benchmark measures the three cache targets:
//   - a fresh process loading a compiled function from the disk cache,
//     against one compiling it (child processes of this binary, so each
//     starts cold);
//   - what a cache hit adds to a call (bench.CallOverhead's function, with
//     the lookup measured by the root package's BenchmarkLookupHit);
//   - resident memory across many distinct compiles under a small
//     in-memory limit.

// childAction is the hidden `gojit cache` action a child process runs.
const childAction = "_child"

// childReport is what a child prints: how its first call went.
type childReport struct {
	JITInitNs   int64 `json:"jit_init_ns"`   // creating the process-wide ORC JIT
	FirstCallNs int64 `json:"first_call_ns"` // trace + compile or load + run
	BuildNs     int64 `json:"build_ns"`      // trace + compile or load
	LoadNs      int64 `json:"load_ns"`       // codegen + disk read + ORC load (disk hits only)
	Compiles    int64 `json:"compiles"`
	DiskHits    int64 `json:"disk_hits"`
}

// cacheChild compiles (or loads) bench.Chain5 once in dir and reports.
func cacheChild(dir string, stdout, stderr io.Writer) int {
	if err := gojit.ConfigureCache(gojit.CacheConfig{Dir: dir}); err != nil {
		return fail(stderr, "cache", err)
	}
	f, err := gojit.Compile(bench.Chain5)
	if err != nil {
		return fail(stderr, "cache", err)
	}
	// The JIT is created once per process, on first use; time it apart
	// from the function's load.
	jitStart := time.Now()
	if err := llvm.Init(); err != nil {
		return fail(stderr, "cache", err)
	}
	jitInit := time.Since(jitStart)
	a, b := gojit.FromFloat32(bench.RandFloat32(1024, 1), 1024), gojit.FromFloat32(bench.RandFloat32(1024, 2), 1024)
	start := time.Now()
	if _, err := f.Call(a, b); err != nil {
		return fail(stderr, "cache", err)
	}
	first := time.Since(start)
	c := gojit.CacheStats()
	return writeJSON(stdout, stderr, childReport{
		JITInitNs: int64(jitInit), FirstCallNs: int64(first), BuildNs: int64(f.Stats().BuildTime), LoadNs: int64(c.DiskLoadTime),
		Compiles: c.Compiles, DiskHits: c.DiskHits,
	})
}

// cacheBench runs the three measurements and prints a report.
func cacheBench(ctx context.Context, rounds, churn int, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, "cache", err)
	}
	dir, err := os.MkdirTemp("", "gojit-cache-bench-")
	if err != nil {
		return fail(stderr, "cache", err)
	}
	defer os.RemoveAll(dir)
	child := func() (childReport, error) {
		var r childReport
		cmd := exec.CommandContext(ctx, exe, "cache", "-dir", dir, childAction)
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return r, fmt.Errorf("child process: %w", err)
		}
		return r, json.Unmarshal(out, &r)
	}
	section(stdout, "Disk cache: first call of bench.Chain5 (n=1024) in a fresh process")
	var cold, warm []childReport
	for range rounds {
		if err := os.RemoveAll(dir); err != nil {
			return fail(stderr, "cache", err)
		}
		c, err := child()
		if err == nil && (c.Compiles != 1 || c.DiskHits != 0) {
			err = fmt.Errorf("cold child compiled %d and loaded %d kernels, want 1 and 0", c.Compiles, c.DiskHits)
		}
		if err != nil {
			return fail(stderr, "cache", err)
		}
		w, err := child()
		if err == nil && (w.Compiles != 0 || w.DiskHits != 1) {
			err = fmt.Errorf("warm child compiled %d and loaded %d kernels, want 0 and 1", w.Compiles, w.DiskHits)
		}
		if err != nil {
			return fail(stderr, "cache", err)
		}
		cold, warm = append(cold, c), append(warm, w)
	}
	best := func(rs []childReport, get func(childReport) int64) time.Duration {
		m := get(rs[0])
		for _, r := range rs[1:] {
			m = min(m, get(r))
		}
		return time.Duration(m)
	}
	first := func(r childReport) int64 { return r.FirstCallNs }
	build := func(r childReport) int64 { return r.BuildNs }
	load := func(r childReport) int64 { return r.LoadNs }
	fmt.Fprintf(stdout, "  best of %d fresh processes each\n", rounds)
	fmt.Fprintf(stdout, "  compiling:  first call %s (trace + compile %s)\n", fmtDur(best(cold, first)), fmtDur(best(cold, build)))
	fmt.Fprintf(stdout, "  from disk:  first call %s (trace + load %s; codegen + read + ORC load %s)\n",
		fmtDur(best(warm, first)), fmtDur(best(warm, build)), fmtDur(best(warm, load)))
	fmt.Fprintf(stdout, "  once per process: creating the ORC JIT %s (not included above)\n", fmtDur(best(warm, func(r childReport) int64 { return r.JITInitNs })))
	fmt.Fprintf(stdout, "  loading is %s faster than compiling (target: load ≤ 1 ms)\n",
		fmtRatio(float64(best(cold, build))/float64(best(warm, build))))

	section(stdout, "Cache hit: cost of finding the kernel on a repeated call")
	fmt.Fprintln(stdout, "  measured by: go test -run '^$' -bench 'LookupHit|CallIntoHit|RunDirect' .")
	fmt.Fprintln(stdout, "  (BenchmarkLookupHit is the lookup alone; target ≤ 50 ns)")

	if churn > 0 {
		return cacheChurn(churn, stdout, stderr)
	}
	return exitOK
}

// cacheChurn compiles n distinct kernels with a 100-entry in-memory limit
// and reports resident memory along the way.
func cacheChurn(n int, stdout, stderr io.Writer) int {
	section(stdout, fmt.Sprintf("Churn: %d distinct compiles, in-memory limit 100 kernels, disk cache off", n))
	if err := gojit.ConfigureCache(gojit.CacheConfig{MaxEntries: 100, DisableDisk: true, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		return fail(stderr, "cache", err)
	}
	scale := func(x *gojit.Tensor, k int) *gojit.Tensor {
		return x.Mul(gojit.Scalar(float64(k))).Add(gojit.Scalar(1))
	}
	f, err := gojit.Compile(scale, gojit.WithRecompileLimit(0))
	if err != nil {
		return fail(stderr, "cache", err)
	}
	x := gojit.FromFloat32(bench.RandFloat32(256, 3), 256)
	start := time.Now()
	fmt.Fprintf(stdout, "  %8s %10s %9s %9s %10s\n", "compiles", "RSS", "kernels", "evicted", "elapsed")
	step := max(n/10, 1)
	report := func(i int) {
		c := gojit.CacheStats()
		fmt.Fprintf(stdout, "  %8d %10s %9d %9d %10s\n", i, fmtBytes(rss()), c.Kernels, c.Evictions, time.Since(start).Round(time.Second))
	}
	report(0)
	for i := 1; i <= n; i++ {
		out, err := f.Call(x, i)
		if err != nil {
			return fail(stderr, "cache", err)
		}
		if got, want := out[0].Float32()[7], x.Float32()[7]*float32(i)+1; got != want {
			return fail(stderr, "cache", fmt.Errorf("kernel %d computed %v, want %v", i, got, want))
		}
		if i%step == 0 {
			report(i)
		}
	}
	return exitOK
}

// rss returns the process's resident set size in bytes (Linux), or 0.
func rss() int64 {
	fh, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
