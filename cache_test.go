package gojit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gojit/gojit"
)

// baseCache is the cache configuration the tests run under, which the
// tests that configure their own restore. GOJIT_CACHE=off in the
// environment (usual for fuzzing: no disk writes) becomes DisableDisk
// here, so the disk cache's own tests and ExampleConfigureCache, which
// configure a directory, still get one.
var baseCache gojit.CacheConfig

// TestMain keeps the tests' disk cache out of the user's cache directory
// and fixes the streaming-store threshold.
func TestMain(m *testing.M) {
	if strings.EqualFold(os.Getenv(gojit.EnvCache), "off") {
		os.Unsetenv(gojit.EnvCache)
		baseCache.DisableDisk = true
		if err := gojit.ConfigureCache(baseCache); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "gojit-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if os.Getenv(gojit.EnvCacheDir) == "" {
		os.Setenv(gojit.EnvCacheDir, dir)
	}
	// The streaming-store tests (diff_stream_test.go) use sizes around
	// 2 MiB, below the host-derived threshold of most machines.
	if os.Getenv(gojit.EnvStreamBytes) == "" {
		os.Setenv(gojit.EnvStreamBytes, "2097152")
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func scale(x *gojit.Tensor, k float64) *gojit.Tensor {
	return x.Mul(gojit.Scalar(k)).Add(gojit.Scalar(1))
}

// checkScale calls f (scale) on 0, 1, 2, ... and checks x*k+1 with a Go
// loop.
func checkScale(t *testing.T, f *gojit.Func, n int, k float64) {
	t.Helper()
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	out, err := f.Call(gojit.FromFloat32(in, n), k)
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].Float32()
	for i, x := range in {
		if want := x*float32(k) + 1; got[i] != want {
			t.Fatalf("k=%v n=%d: out[%d] = %v, want %v", k, n, i, got[i], want)
		}
	}
}

// capture is a logger whose records a test can read.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func TestMissExplanations(t *testing.T) {
	var logs capture
	f, err := gojit.Compile(scale, gojit.WithLogger(logs.logger()))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		arg  *gojit.Array
		k    float64
		want string
	}{
		{gojit.New(gojit.Float32, 32, 128), 2, "first call"},
		{gojit.New(gojit.Float32, 64, 128), 2, "arg 0 shape [32,128] → [64,128]"},
		{gojit.New(gojit.Float64, 64, 128), 2, "arg 0 dtype f32 → f64"},
		{gojit.New(gojit.Float32, 32, 128), 3, "arg 1 static value 2 → 3"},
		{gojit.New(gojit.Float64, 8), 3, "arg 0 f32[32,128] → f64[8]"},
	}
	for _, s := range steps {
		if _, err := f.Call(s.arg, s.k); err != nil {
			t.Fatal(err)
		}
		if got := f.Stats().LastMiss; got != s.want {
			t.Errorf("LastMiss = %q, want %q", got, s.want)
		}
		if !strings.Contains(logs.String(), "reason=\""+s.want+"\"") {
			t.Errorf("log lacks reason %q:\n%s", s.want, logs.String())
		}
	}
	// A repeated signature is a hit: no new trace, no new reason.
	traces := f.Stats().Traces
	if _, err := f.Call(gojit.New(gojit.Float32, 64, 128), 2.0); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Traces != traces || s.Signatures != len(steps) {
		t.Errorf("after a repeated signature: %+v, want %d traces and %d signatures", s, traces, len(steps))
	}
}

func TestRecompileWarning(t *testing.T) {
	var logs capture
	f, err := gojit.Compile(scale, gojit.WithLogger(logs.logger()), gojit.WithRecompileLimit(3))
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 5; n++ {
		checkScale(t, f, n, 2)
	}
	out := logs.String()
	if c := strings.Count(out, "function keeps recompiling"); c != 1 {
		t.Fatalf("%d recompile warnings, want 1:\n%s", c, out)
	}
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, `varying="arg 0 axis 0 (1, 2, 3, 4)"`) ||
		!strings.Contains(out, "compile with WithDynamicDim(0, 0)") {
		t.Errorf("warning does not name the varying axis:\n%s", out)
	}
}

// withCache installs c for one test and restores the default after it.
func withCache(t *testing.T, c gojit.CacheConfig) {
	t.Helper()
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	gojit.PurgeCache()
	if err := gojit.ConfigureCache(c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gojit.PurgeCache()
		if err := gojit.ConfigureCache(baseCache); err != nil {
			t.Error(err)
		}
	})
}

func TestEvictedKernelIsRebuilt(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: nothing is compiled or evicted")
	}
	withCache(t, gojit.CacheConfig{MaxEntries: 1, DisableDisk: true})
	f, err := gojit.Compile(scale)
	if err != nil {
		t.Fatal(err)
	}
	before := gojit.CacheStats()
	for i := range 6 {
		// Alternating statics give two kernels fighting for one slot.
		checkScale(t, f, 16, float64(2+i%2))
	}
	s, c := f.Stats(), gojit.CacheStats()
	if s.Traces != 2 || s.Rebuilds != 4 {
		t.Errorf("Func stats %+v; want 2 traces and 4 rebuilds", s)
	}
	if c.Evictions-before.Evictions != 5 || c.Compiles-before.Compiles != 6 || c.Kernels > 1+before.Kernels {
		t.Errorf("cache stats %+v (before %+v); want 5 evictions, 6 compiles, at most one kernel more", c, before)
	}
}

func TestDiskCacheWarmStartInProcess(t *testing.T) {
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: nothing is compiled")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	withCache(t, gojit.CacheConfig{Dir: dir})
	f, _ := gojit.Compile(scale)
	before := gojit.CacheStats()
	checkScale(t, f, 64, 5)
	gojit.PurgeCache()
	g, _ := gojit.Compile(scale) // a new Func traces again; the kernel comes from disk
	checkScale(t, g, 64, 5)
	c := gojit.CacheStats()
	if c.Compiles-before.Compiles != 1 || c.DiskWrites-before.DiskWrites != 1 || c.DiskHits-before.DiskHits != 1 {
		t.Errorf("compiles +%d, disk writes +%d, disk hits +%d; want 1 each",
			c.Compiles-before.Compiles, c.DiskWrites-before.DiskWrites, c.DiskHits-before.DiskHits)
	}
	if c.DiskDir != dir {
		t.Errorf("DiskDir = %q, want %q", c.DiskDir, dir)
	}
}

// TestDiskCacheFreshProcess runs this test binary twice as a child process
// sharing a cache directory: the first compiles, the second loads.
func TestDiskCacheFreshProcess(t *testing.T) {
	if os.Getenv("GOJIT_TEST_CHILD") == "1" {
		f, _ := gojit.Compile(scale)
		checkScale(t, f, 100, 7)
		json.NewEncoder(os.Stdout).Encode(gojit.CacheStats())
		return
	}
	if gojit.LLVMVersion() == "" {
		t.Skip("no LLVM in this build: nothing is compiled")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	var logs []string
	run := func() gojit.CacheCounters {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiskCacheFreshProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOJIT_TEST_CHILD=1", gojit.EnvCacheDir+"="+dir, gojit.EnvCache+"=on", gojit.EnvLog+"=cache")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v\n%s%s", err, out, stderr.String())
		}
		logs = append(logs, stderr.String())
		var c gojit.CacheCounters
		line, _, _ := bytes.Cut(out, []byte("\n"))
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("child output %q: %v", out, err)
		}
		return c
	}
	first, second := run(), run()
	if first.Compiles != 1 || first.DiskWrites != 1 || first.DiskHits != 0 {
		t.Errorf("first process: %+v; want one compile and one disk write", first)
	}
	if second.Compiles != 0 || second.DiskHits != 1 {
		t.Errorf("second process: %+v; want no compile and one disk hit", second)
	}
	// GOJIT_LOG=cache logs each miss with its reason, and where the
	// kernel came from.
	for i, want := range []string{"from_disk=false", "from_disk=true"} {
		if !strings.Contains(logs[i], `msg="gojit: cache miss" func=gojit_test.scale reason="first call"`) || !strings.Contains(logs[i], want) {
			t.Errorf("process %d's GOJIT_LOG=cache output lacks the miss or %s:\n%s", i+1, want, logs[i])
		}
	}
}

func TestCacheOffByEnvironment(t *testing.T) {
	t.Setenv(gojit.EnvCache, "off")
	dir := filepath.Join(t.TempDir(), "cache")
	withCache(t, gojit.CacheConfig{Dir: dir})
	if d := gojit.CacheStats().DiskDir; d != "" {
		t.Errorf("GOJIT_CACHE=off: disk cache in %q", d)
	}
	f, _ := gojit.Compile(scale)
	checkScale(t, f, 8, 11)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("GOJIT_CACHE=off created %s (%v)", dir, err)
	}
}

func TestInsecureCacheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	err := gojit.ConfigureCache(gojit.CacheConfig{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { gojit.ConfigureCache(baseCache) })
	if err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("ConfigureCache(world-writable dir) = %v", err)
	}
	if d := gojit.CacheStats().DiskDir; d != "" {
		t.Errorf("disk cache still on in %q", d)
	}
	f, _ := gojit.Compile(scale)
	checkScale(t, f, 8, 13) // in memory only
}

func TestDisableJITEnvironment(t *testing.T) {
	t.Setenv(gojit.EnvDisableJIT, "1")
	f, err := gojit.Compile(scale)
	if err != nil {
		t.Fatal(err)
	}
	checkScale(t, f, 8, 3)
	l, err := f.Lower(gojit.New(gojit.Float32, 8), 3.0)
	if err != nil {
		t.Fatal(err)
	}
	if l.LLVM != "" {
		t.Error("GOJIT_DISABLE_JIT=1 still compiled the function")
	}
}

// TestCompileModes runs one function at every optimization level, with and
// without fast-math: each mode is its own kernel, and all agree with a Go
// loop (exactly, except fast-math, which may round differently).
func TestCompileModes(t *testing.T) {
	fn := func(x, y *gojit.Tensor) *gojit.Tensor { return x.Mul(y).Add(x).Sub(y.Mul(gojit.Scalar(0.5))) }
	n := 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i)*0.25-7, float32(i%13)*1.5
	}
	before := gojit.CacheStats()
	for _, fast := range []bool{false, true} {
		for level := range 4 {
			opts := []gojit.Option{gojit.WithOptLevel(level)}
			if fast {
				opts = append(opts, gojit.WithFastMath())
			}
			f, _ := gojit.Compile(fn, opts...)
			out, err := f.Call(gojit.FromFloat32(xs, n), gojit.FromFloat32(ys, n))
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range out[0].Float32() {
				want := xs[i]*ys[i] + xs[i] - ys[i]*0.5
				if d := got - want; (!fast && d != 0) || d > 1e-3 || d < -1e-3 {
					t.Fatalf("O%d fast=%v: out[%d] = %v, want %v", level, fast, i, got, want)
				}
			}
			l, err := f.Lower(gojit.FromFloat32(xs, n), gojit.FromFloat32(ys, n))
			if err != nil {
				t.Fatal(err)
			}
			if fast != strings.Contains(l.LLVM, "fmul fast") && gojit.LLVMVersion() != "" {
				t.Errorf("O%d fast=%v: LLVM IR flags do not match the mode", level, fast)
			}
		}
	}
	if gojit.LLVMVersion() != "" {
		if c := gojit.CacheStats(); c.Compiles+c.DiskHits-before.Compiles-before.DiskHits != 8 {
			t.Errorf("%d kernels built for 8 modes", c.Compiles+c.DiskHits-before.Compiles-before.DiskHits)
		}
	}
}
