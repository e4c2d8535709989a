package gojit

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gojit/gojit/internal/runtime"
)

// Environment variables read by gojit. See docs/cache.md.
const (
	// EnvCache set to "off" disables the disk cache, whatever
	// ConfigureCache says.
	EnvCache = "GOJIT_CACHE"
	// EnvCacheDir overrides the default disk cache directory.
	EnvCacheDir = "GOJIT_CACHE_DIR"
	// EnvLog is a comma-separated list of event kinds to log to standard
	// error; "cache" logs every compile cache miss with its reason, and
	// "debug" logs those and everything else gojit reports at debug level,
	// such as the whole stack of a panic while tracing; "lazy" logs
	// every flush of package lazy with its reason and the user's line.
	EnvLog = "GOJIT_LOG"
	// EnvDisableJIT set to 1 or true runs every Func in the interpreter,
	// like JAX_DISABLE_JIT.
	EnvDisableJIT = "GOJIT_DISABLE_JIT"
	// EnvStreamBytes overrides the host-derived threshold (twice the
	// share of the L3 cache this process's CPUs can count on, at most half
	// the L3) from which a large elementwise loop writes its output with
	// non-temporal stores: a size in bytes, such as 2097152. Kernels
	// compiled with another threshold have another signature.
	EnvStreamBytes = runtime.EnvStreamBytes
)

// CacheConfig configures the process-wide compile cache. Zero fields take
// their defaults.
type CacheConfig struct {
	// MaxEntries bounds how many compiled kernels stay loaded (default
	// 1000). The least recently used is evicted and its code freed once
	// no call runs it; a Func whose kernel was evicted rebuilds it on its
	// next call, from the disk cache when possible. Eviction is never an
	// error: a small limit costs rebuilds, not failed calls.
	MaxEntries int
	// MaxBytes bounds the loaded kernels' total object size (default 256
	// MiB).
	MaxBytes int64
	// Dir is the disk cache's directory. The default is $GOJIT_CACHE_DIR
	// or, if that is unset, the gojit directory under os.UserCacheDir().
	Dir string
	// DisableDisk keeps compiled code in memory only.
	DisableDisk bool
	// DiskMaxBytes caps the disk cache (default 1 GiB); the least
	// recently used entries are removed first.
	DiskMaxBytes int64
	// Logger receives cache events at debug level and disk cache problems
	// as warnings. The default is the logger GOJIT_LOG=cache enables, or
	// slog.Default() for warnings only.
	Logger *slog.Logger
}

var cacheSetup struct {
	once sync.Once
	err  error
}

// ConfigureCache replaces the compile cache configuration; call it before
// the first Call to choose where the disk cache lives. Lower limits evict
// at once. It is safe while other goroutines call Funcs: calls running an
// evicted kernel finish with it, and later calls rebuild it; none fails
// because of the eviction. If the disk directory is unusable (for example, another user
// owns it or others may write it, since its entries are code gojit will
// execute), the cache stays in memory and ConfigureCache returns why.
// GOJIT_CACHE=off overrides the configuration and disables the disk cache.
//
// Negative limits are errors, and change nothing.
func ConfigureCache(c CacheConfig) error {
	if c.MaxEntries < 0 || c.MaxBytes < 0 || c.DiskMaxBytes < 0 {
		return fmt.Errorf("gojit: ConfigureCache: negative limit (MaxEntries %d, MaxBytes %d, DiskMaxBytes %d); zero means the default",
			c.MaxEntries, c.MaxBytes, c.DiskMaxBytes)
	}
	var err error
	cacheSetup.once.Do(func() {}) // the environment's defaults no longer apply
	rc := runtime.Config{MaxEntries: c.MaxEntries, MaxBytes: c.MaxBytes, DiskMaxBytes: c.DiskMaxBytes, Logger: c.Logger}
	if rc.Logger == nil {
		rc.Logger = envLogger()
	}
	if !c.DisableDisk && !strings.EqualFold(os.Getenv(EnvCache), "off") {
		rc.DiskDir = c.Dir
		if rc.DiskDir == "" {
			if rc.DiskDir, err = DefaultCacheDir(); err != nil {
				return fmt.Errorf("gojit: disk cache disabled: %w", err)
			}
		}
	}
	if err := runtime.Configure(rc); err != nil {
		return fmt.Errorf("gojit: disk cache disabled: %w", err)
	}
	return nil
}

// DefaultCacheDir returns the disk cache directory used when
// CacheConfig.Dir is empty: $GOJIT_CACHE_DIR, or the gojit directory under
// os.UserCacheDir().
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "gojit"), nil
}

// setupCache applies the default configuration (and the environment) on
// the first build, unless ConfigureCache came first. A disk directory that
// cannot be used is reported once as a warning.
func setupCache() {
	cacheSetup.once.Do(func() {
		rc := runtime.Config{Logger: envLogger()}
		if !strings.EqualFold(os.Getenv(EnvCache), "off") {
			dir, err := DefaultCacheDir()
			if err == nil {
				rc.DiskDir = dir
			} else {
				cacheSetup.err = err
			}
		}
		if err := runtime.Configure(rc); err != nil {
			cacheSetup.err = err
		}
		if cacheSetup.err != nil {
			warnLogger(nil).Warn("gojit: disk cache disabled; compiled code stays in memory", "err", cacheSetup.err)
		}
	})
}

var envLog struct {
	once   sync.Once
	logger *slog.Logger
}

// envLogger returns the standard-error logger GOJIT_LOG=cache (or debug)
// enables, or nil.
func envLogger() *slog.Logger {
	envLog.once.Do(func() {
		for _, kind := range strings.Split(os.Getenv(EnvLog), ",") {
			if k := strings.TrimSpace(kind); k == "cache" || k == "debug" {
				envLog.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
			}
		}
	})
	return envLog.logger
}

// cacheLogger is where a Func's cache events go: its WithLogger logger,
// else the GOJIT_LOG=cache logger, else nowhere.
func cacheLogger(c *config) *slog.Logger {
	if c != nil && c.logger != nil {
		return c.logger
	}
	return envLogger()
}

// warnLogger is cacheLogger falling back to slog.Default(): warnings are
// shown even when nobody asked for cache events.
func warnLogger(c *config) *slog.Logger {
	if l := cacheLogger(c); l != nil {
		return l
	}
	return slog.Default()
}

func envDisableJIT() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvDisableJIT))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// CacheCounters are the process-wide compile cache counters. Kernels are
// shared by every Func whose traces produce the same graph.
type CacheCounters struct {
	Hits, Misses   int64         // lookups of a traced graph in memory
	Compiles       int64         // kernels compiled by LLVM
	CompileTime    time.Duration // total compile time
	MaxCompileTime time.Duration // the slowest compile
	DiskHits       int64         // kernels loaded from the disk cache instead
	DiskLoadTime   time.Duration // total time spent loading them
	DiskWrites     int64         // kernels written to the disk cache
	DiskErrors     int64         // corrupt, insecure or unloadable entries, failed writes
	Evictions      int64         // kernels evicted from memory and freed
	Kernels        int64         // kernels loaded now
	Bytes          int64         // their object code size
	// DiskDir is the disk cache directory, or "" if the disk cache is
	// off.
	DiskDir string
}

// CacheStats returns the process-wide compile cache counters.
func CacheStats() CacheCounters {
	s := runtime.ReadStats()
	return CacheCounters{
		Hits: s.Hits, Misses: s.Misses, Compiles: s.Compiles,
		CompileTime: s.CompileTime, MaxCompileTime: s.MaxCompileTime,
		DiskHits: s.DiskHits, DiskLoadTime: s.DiskLoadTime, DiskWrites: s.DiskWrites,
		DiskErrors: s.DiskErrors + s.DiskStale, Evictions: s.Evictions,
		Kernels: s.Kernels, Bytes: s.Bytes, DiskDir: runtime.CurrentConfig().DiskDir,
	}
}

// PurgeCache evicts every compiled kernel from memory, leaving the disk
// cache alone, and returns how many it evicted. A kernel's code is freed
// when the last call running it returns; Funcs rebuild (or reload) their
// kernels on their next call. It is safe while other goroutines call
// Funcs, and no call fails because of it. It is mostly useful to measure
// warm-start behavior and in tests.
func PurgeCache() int { return runtime.Purge() }
