package runtime

import (
	"container/list"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gojit/gojit/internal/diskcache"
)

// Default limits of the in-memory and on-disk caches.
const (
	DefaultMaxEntries   = 1000
	DefaultMaxBytes     = 256 << 20
	DefaultDiskMaxBytes = 1 << 30
)

// Config sets the compile cache's limits and its disk store.
type Config struct {
	// MaxEntries bounds the number of compiled kernels kept in memory;
	// the least recently built or looked up is evicted first and its
	// code freed. Zero means DefaultMaxEntries.
	MaxEntries int
	// MaxBytes bounds the total size of their objects. Zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// DiskDir is the disk cache's directory; empty disables it.
	DiskDir string
	// DiskMaxBytes caps the disk cache's size. Zero means
	// DefaultDiskMaxBytes.
	DiskMaxBytes int64
	// Logger receives cache events (debug) and disk problems (warnings).
	// Nil means slog.Default().
	Logger *slog.Logger
}

// ErrEvicted is returned by Run on an executable whose kernel the cache has
// evicted and freed. Build returns a live one for the same graph, loading it
// from disk or compiling it again. Callers that must never see it acquire
// the executable they run (BuildAcquired, Acquire, RunAcquired).
var ErrEvicted = errors.New("runtime: kernel was evicted from the compile cache")

// cache holds compiled executables by signature, least recently used
// first out. Entries being built are in m but not yet in lru.
//
// Every executable get returns has been acquired for its caller while its
// entry was still in m, so no eviction can free its code before the caller
// releases it. An entry leaves m, and its executable is marked retired,
// under mu; so an executable acquired under mu from an entry in m cannot
// have been retired yet.
type cache struct {
	mu    sync.Mutex
	cfg   Config
	disk  *diskcache.Store
	m     map[[32]byte]*cacheEntry
	lru   list.List // of *cacheEntry, most recent at the front
	bytes int64
}

type cacheEntry struct {
	sig  [32]byte
	done chan struct{} // closed when exe or err is set
	exe  *Executable
	err  error
	elem *list.Element
	// ready (guarded by mu) is set when the build has finished; until
	// then, waiters counts the callers waiting on done, and the builder
	// acquires exe once for each of them before anything can evict it.
	ready   bool
	waiters int64
}

var kernels = &cache{m: map[[32]byte]*cacheEntry{}}

// Configure replaces the cache configuration. Lower limits evict at once.
// If the disk directory cannot be used (for example, it is writable by
// others), Configure keeps the in-memory cache, disables the disk cache and
// returns the reason.
func Configure(c Config) error {
	c = c.withDefaults()
	var disk *diskcache.Store
	var err error
	if c.DiskDir != "" {
		disk, err = diskcache.Open(c.DiskDir, c.DiskMaxBytes)
		if err != nil {
			c.DiskDir = ""
		}
	}
	k := kernels
	k.mu.Lock()
	k.cfg, k.disk = c, disk
	evicted := k.trimLocked(nil)
	k.mu.Unlock()
	retire(evicted)
	return err
}

// CurrentConfig returns the configuration in effect, with defaults filled
// in. DiskDir is empty when the disk cache is off.
func CurrentConfig() Config {
	k := kernels
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.configLocked()
}

func (k *cache) configLocked() Config { return k.cfg.withDefaults() }

// withDefaults fills c's zero limits with the defaults.
func (c Config) withDefaults() Config {
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.DiskMaxBytes <= 0 {
		c.DiskMaxBytes = DefaultDiskMaxBytes
	}
	return c
}

// Disk returns the disk store in use, or nil.
func Disk() *diskcache.Store {
	k := kernels
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.disk
}

func (k *cache) logger() *slog.Logger {
	k.mu.Lock()
	l := k.cfg.Logger
	k.mu.Unlock()
	if l == nil {
		l = slog.Default()
	}
	return l
}

// get returns the executable for sig, calling build once for all
// concurrent callers of a signature not yet cached. Failures are not
// cached: the next caller tries again. The executable is acquired for the
// caller, who must release it.
func (k *cache) get(sig [32]byte, build func(*diskcache.Store) (*Executable, error)) (*Executable, error) {
	k.mu.Lock()
	if ce, ok := k.m[sig]; ok {
		if ce.ready {
			ce.exe.hold(1)
			if ce.elem != nil {
				k.lru.MoveToFront(ce.elem)
			}
			k.mu.Unlock()
			stats.hits.Add(1)
			return ce.exe, nil
		}
		ce.waiters++ // the builder acquires exe for us
		k.mu.Unlock()
		<-ce.done
		stats.hits.Add(1)
		return ce.exe, ce.err
	}
	ce := &cacheEntry{sig: sig, done: make(chan struct{})}
	k.m[sig] = ce
	disk := k.disk
	k.mu.Unlock()
	stats.misses.Add(1)

	ce.exe, ce.err = build(disk)
	k.mu.Lock()
	ce.ready = true
	var evicted []*Executable
	if ce.err != nil {
		delete(k.m, sig)
	} else {
		ce.exe.hold(1 + ce.waiters) // before anything can evict it
		if ce.exe.kernel != nil {
			ce.elem = k.lru.PushFront(ce)
			k.bytes += int64(ce.exe.Bytes)
			evicted = k.trimLocked(ce)
		}
	}
	k.mu.Unlock()
	close(ce.done)
	retire(evicted)
	return ce.exe, ce.err
}

// trimLocked evicts least recently used entries, never keep, until the
// cache is within its limits, and returns their executables for retiring
// outside the lock.
func (k *cache) trimLocked(keep *cacheEntry) []*Executable {
	c := k.configLocked()
	var out []*Executable
	for k.lru.Len() > 0 && (k.lru.Len() > c.MaxEntries || k.bytes > c.MaxBytes) {
		ce := k.lru.Back().Value.(*cacheEntry)
		if ce == keep {
			if k.lru.Len() == 1 {
				break // a single kernel larger than MaxBytes stays
			}
			k.lru.MoveToFront(ce.elem)
			continue
		}
		out = append(out, k.evictLocked(ce))
	}
	return out
}

// evictLocked removes ce from the cache and marks its executable retired,
// so that no call acquires it any more; retire then frees it unless calls
// hold it. Both happen under mu, so nothing can acquire an executable
// from the cache after it has been retired, and the kernel's symbol is
// recorded as taken (see awaitSymbol) before anyone can start building
// the signature again.
func (k *cache) evictLocked(ce *cacheEntry) *Executable {
	k.lru.Remove(ce.elem)
	delete(k.m, ce.sig)
	k.bytes -= int64(ce.exe.Bytes)
	ce.exe.markRetired()
	return ce.exe
}

// retire frees the code of executables evicted by evictLocked that no call
// holds; the last call holding one frees it otherwise.
func retire(exes []*Executable) {
	for _, e := range exes {
		stats.evictions.Add(1)
		if e.inflight.Load() == 0 {
			e.free()
		}
	}
}

// Purge evicts every compiled kernel from memory (the disk cache is
// untouched) and returns how many it evicted. An executable that calls hold
// (see Acquire) stays loaded until the last of them releases it.
func Purge() int {
	k := kernels
	k.mu.Lock()
	var out []*Executable
	for k.lru.Len() > 0 {
		out = append(out, k.evictLocked(k.lru.Front().Value.(*cacheEntry)))
	}
	k.mu.Unlock()
	retire(out)
	return len(out)
}

// Acquire registers a call into e's code: until the matching Release, the
// code stays loaded, even if the cache evicts e meanwhile. It reports false,
// holding nothing, once e has been evicted; BuildAcquired then returns a
// live executable for the same graph. Interpreted executables are always
// acquired.
//
// Hold an executable only while running it. Until an evicted kernel's
// code is freed, its symbol is taken, and a build of the same graph waits
// for the last Release (see awaitSymbol): a goroutine that builds a graph
// while it holds that graph's evicted executable waits forever.
//
// Together with Release and retire it frees the kernel exactly once, after
// the last call holding it: a caller increments inflight before it checks
// retired, and markRetired sets retired before retire checks inflight, so
// one of the two always sees the other.
func (e *Executable) Acquire() bool {
	if e.kernel == nil {
		return true
	}
	e.inflight.Add(1)
	if e.retired.Load() {
		e.release()
		return false
	}
	return true
}

// Release ends a call registered by Acquire or BuildAcquired; the last one
// to end frees an evicted kernel's code.
func (e *Executable) Release() {
	if e.kernel != nil {
		e.release()
	}
}

// hold acquires e n times for callers of get. The cache holds e, or is
// about to, under its lock: e cannot have been retired.
func (e *Executable) hold(n int64) {
	if e.kernel != nil {
		e.inflight.Add(n)
	}
}

func (e *Executable) release() {
	switch n := e.inflight.Add(-1); {
	case n == 0 && e.retired.Load():
		e.free()
	case n < 0:
		panic("runtime: Executable released more often than acquired")
	}
}

// markRetired marks e evicted: new calls fail to acquire it. Until its
// code is freed, the kernel's symbol stays defined in the JIT, and loading
// the same graph again would clash with it: record it so such a load waits
// (see awaitSymbol). Calls are short, and the last running one frees the
// code.
func (e *Executable) markRetired() {
	zombies.Lock()
	e.gone = make(chan struct{})
	zombies.m[e.Module.Entry] = e.gone
	zombies.Unlock()
	e.retired.Store(true)
}

func (e *Executable) free() {
	if e.freed.CompareAndSwap(false, true) {
		if err := e.kernel.Free(); err != nil {
			kernels.logger().Warn("gojit: freeing an evicted kernel", "symbol", e.Module.Entry, "err", err)
		}
		stats.bytes.Add(-int64(e.Bytes))
		stats.live.Add(-1)
		zombies.Lock()
		if zombies.m[e.Module.Entry] == e.gone {
			delete(zombies.m, e.Module.Entry)
		}
		zombies.Unlock()
		close(e.gone)
	}
}

// zombies maps the symbols of evicted kernels that calls still run to a
// channel closed when their code is freed.
var zombies = struct {
	sync.Mutex
	m map[string]chan struct{}
}{m: map[string]chan struct{}{}}

// awaitSymbol waits until no evicted kernel still defines symbol.
func awaitSymbol(symbol string) {
	for {
		zombies.Lock()
		gone, ok := zombies.m[symbol]
		zombies.Unlock()
		if !ok {
			return
		}
		<-gone
	}
}

// Evicted reports whether the cache has evicted e; Run and Acquire then
// fail. Calls that acquired e before still run it.
func (e *Executable) Evicted() bool { return e.retired.Load() }

var stats struct {
	hits, misses, compiles, compileNanos, maxCompileNanos  atomic.Int64
	diskHits, diskWrites, diskErrors, diskStale, loadNanos atomic.Int64
	evictions, bytes, live                                 atomic.Int64
}

// Stats are process-wide compile cache counters.
type Stats struct {
	Hits, Misses   int64         // in-memory lookups by signature
	Compiles       int64         // kernels compiled by LLVM
	CompileTime    time.Duration // total time spent compiling
	MaxCompileTime time.Duration // the slowest compile
	DiskHits       int64         // kernels loaded from the disk cache
	DiskLoadTime   time.Duration // total time spent loading them
	DiskWrites     int64         // kernels written to the disk cache
	DiskErrors     int64         // unreadable, corrupt or insecure entries, failed writes
	DiskStale      int64         // valid entries from another code generator, replaced
	Evictions      int64         // kernels evicted from memory and freed
	Kernels        int64         // kernels currently loaded
	Bytes          int64         // their object bytes
}

// ReadStats returns the process-wide counters.
func ReadStats() Stats {
	return Stats{
		Hits:           stats.hits.Load(),
		Misses:         stats.misses.Load(),
		Compiles:       stats.compiles.Load(),
		CompileTime:    time.Duration(stats.compileNanos.Load()),
		MaxCompileTime: time.Duration(stats.maxCompileNanos.Load()),
		DiskHits:       stats.diskHits.Load(),
		DiskLoadTime:   time.Duration(stats.loadNanos.Load()),
		DiskWrites:     stats.diskWrites.Load(),
		DiskErrors:     stats.diskErrors.Load(),
		DiskStale:      stats.diskStale.Load(),
		Evictions:      stats.evictions.Load(),
		Kernels:        stats.live.Load(),
		Bytes:          stats.bytes.Load(),
	}
}

func recordCompile(d time.Duration) {
	stats.compiles.Add(1)
	stats.compileNanos.Add(int64(d))
	for {
		m := stats.maxCompileNanos.Load()
		if int64(d) <= m || stats.maxCompileNanos.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

func (s Stats) String() string {
	return fmt.Sprintf("hits %d, misses %d, compiles %d (%v, max %v), disk hits %d, disk writes %d, disk errors %d, evictions %d, %d kernels in %d bytes",
		s.Hits, s.Misses, s.Compiles, s.CompileTime.Round(time.Microsecond), s.MaxCompileTime.Round(time.Microsecond),
		s.DiskHits, s.DiskWrites, s.DiskErrors, s.Evictions, s.Kernels, s.Bytes)
}
