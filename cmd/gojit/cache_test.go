package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestMain keeps the commands' disk cache out of the user's cache
// directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gojit-cmd-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(gojit.EnvCacheDir, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestCacheCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	if code, out, errs := gojitRun(t, "cache", "-dir", dir, "stats"); code != 0 || !strings.Contains(out, "does not exist yet") {
		t.Fatalf("stats on a missing directory: %d\n%s%s", code, out, errs)
	}
	if !hasLLVM() {
		return // nothing can be compiled into the cache
	}
	if err := gojit.ConfigureCache(gojit.CacheConfig{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer gojit.ConfigureCache(gojit.CacheConfig{})
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x.Exp() })
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 4} {
		if _, err := f.Call(gojit.New(gojit.Float32, n)); err != nil {
			t.Fatal(err)
		}
	}
	// One unusable file among the two good entries.
	if err := os.WriteFile(filepath.Join(dir, strings.Repeat("ab", 32)+".gjo"), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := gojitRun(t, "cache", "-dir", dir, "stats")
	wantContains(t, "stats", out, dir, "entries    3 (1 unusable)")
	if code != 0 {
		t.Errorf("stats exit %d", code)
	}
	code, out, _ = gojitRun(t, "cache", "-dir", dir, "list")
	wantContains(t, "list", out, "KEY", "TestCacheCommand.func1", "unusable: corrupt entry")
	if code != 0 || strings.Count(out, "\n") != 4 {
		t.Errorf("list exit %d, want a header and 3 rows:\n%s", code, out)
	}
	_, out, _ = gojitRun(t, "cache", "list", "-dir", dir, "-json")
	var entries []cacheEntryJSON
	if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) != 3 {
		t.Fatalf("list -json: %v, %d entries:\n%s", err, len(entries), out)
	}
	code, out, _ = gojitRun(t, "cache", "-dir", dir, "clear")
	wantContains(t, "clear", out, "removed 3 entries")
	if n, _ := os.ReadDir(dir); code != 0 || len(n) != 0 {
		t.Errorf("clear exit %d left %d files", code, len(n))
	}
}

func TestCacheCommandErrors(t *testing.T) {
	for _, args := range [][]string{{"cache"}, {"cache", "bogus"}, {"cache", "list", "extra"}} {
		if code, _, errs := gojitRun(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	code, _, errs := gojitRun(t, "cache", "-dir", dir, "clear")
	if code != exitFail || !strings.Contains(errs, "writable by group or others") {
		t.Errorf("clear on an insecure directory: exit %d, %q", code, errs)
	}
}

// TestCacheBenchParts runs the cache benchmark's pieces in process (its
// fresh-process part re-executes the gojit binary, which a test binary is
// not): a cold child compiles, a warm one loads, and the churn stays
// within its 100-kernel limit while checking every kernel's result.
func TestCacheBenchParts(t *testing.T) {
	if !hasLLVM() {
		return
	}
	defer gojit.ConfigureCache(gojit.CacheConfig{})
	dir := filepath.Join(t.TempDir(), "c")
	var reports []childReport
	for range 2 {
		gojit.PurgeCache()
		before := gojit.CacheStats()
		var out, errs strings.Builder
		if code := cacheChild(dir, &out, &errs); code != 0 {
			t.Fatalf("child: %d %s", code, errs.String())
		}
		var r childReport
		if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
			t.Fatal(err)
		}
		r.Compiles -= before.Compiles
		r.DiskHits -= before.DiskHits
		reports = append(reports, r)
	}
	if reports[0].Compiles != 1 || reports[1].Compiles != 0 || reports[1].DiskHits != 1 {
		t.Errorf("cold %+v, warm %+v; want a compile, then a disk hit", reports[0], reports[1])
	}
	var out, errs strings.Builder
	if code := cacheChurn(120, &out, &errs); code != 0 {
		t.Fatalf("churn: %d %s", code, errs.String())
	}
	if c := gojit.CacheStats(); c.Kernels > 100 {
		t.Errorf("%d kernels loaded under a 100-kernel limit", c.Kernels)
	}
	wantContains(t, "churn", out.String(), "compiles", "RSS", "120")
}
