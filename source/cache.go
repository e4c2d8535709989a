package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/host"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/runtime"
)

// The compile cache. A compiled function is keyed by its unit's key (the
// exact source text and types of the function and its callees), the LLVM
// module generated from it, and the engine's signature parts: the code
// generator's version, the optimization level, the host CPU, the LLVM
// version. The object goes to the process's memory cache (loaded kernels,
// never freed) and to gojit's disk cache (internal/diskcache through
// internal/runtime.Disk), so a new process loads it without running LLVM.

// srcVersion names this lowering in signatures and disk entries; bump it
// when the generated code changes meaning.
const srcVersion = "gojit-source-1"

const optLevel = 3

type loaded struct {
	kernel *llvm.Kernel
	obj    []byte
}

var memCache struct {
	sync.Mutex
	m map[[32]byte]*loaded
}

// hostID names the host in signatures without loading LLVM.
var hostID = sync.OnceValue(func() string {
	if cpu := host.HostCPU(); cpu.Known() {
		return cpu.String()
	}
	name, features := llvm.HostCPU()
	return name + "\x00" + features
})

func signature(u *unit, ir string) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00O%d\x00%s\x00llvm %s\x00%s\x00", srcVersion, runtime.Version, optLevel, hostID(), llvm.Version(), u.key)
	h.Write([]byte(ir))
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// symbolFor is the entry symbol of the module with signature sig.
func symbolFor(u *unit) string {
	h := sha256.Sum256([]byte(u.key))
	var b strings.Builder
	b.WriteString("gojit_src_")
	for _, r := range u.fn.Name() {
		if r < 128 && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	b.WriteString("_" + hex.EncodeToString(h[:6]))
	return b.String()
}

// compileUnit lowers u and returns its loaded code, from the memory or
// disk cache when possible.
func compileUnit(u *unit, c *config) (n *native, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("source: internal error compiling %s: %v (please report it)", u.fn.Name(), r)
		}
	}()
	start := time.Now()
	sym := symbolFor(u)
	m, ir, err := lowerUnit(u, sym)
	if err != nil {
		return nil, err
	}
	n = newNative(u, m, ir)
	n.threads = c.threads
	sig := signature(u, ir)
	if !c.noCache {
		memCache.Lock()
		l := memCache.m[sig]
		memCache.Unlock()
		if l != nil {
			n.kernel, n.obj = l.kernel, l.obj
			n.how = "memory cache"
			return n, n.resolve()
		}
	}
	if !llvm.Available() {
		return nil, fmt.Errorf("source: compiling %s: %w", u.fn.Name(), llvm.ErrUnavailable)
	}
	modHash := sha256.Sum256([]byte(ir))
	var disk *diskcache.Store
	if !c.noCache {
		disk = diskStore(c)
	}
	var obj []byte
	if disk != nil {
		if ent, err := disk.Get(sig); err == nil {
			if ent.Meta.Version == srcVersion && ent.Meta.Symbol == sym && ent.Meta.ModuleHash == hex.EncodeToString(modHash[:]) {
				obj = ent.Object
				n.how = "disk cache"
			}
		} else if !errors.Is(err, diskcache.ErrNotFound) {
			c.logger.Warn("source: ignoring a disk cache entry", "func", u.fn.Name(), "err", err)
		}
	}
	if obj == nil {
		o, err := llvm.Compile(sym+".ll", ir, llvm.Options{OptLevel: optLevel})
		if err != nil {
			return nil, fmt.Errorf("source: compiling %s: %w", u.fn.Name(), err)
		}
		obj = o.Object
		n.how = "compiled"
		if disk != nil {
			err := disk.Put(&diskcache.Entry{Key: sig, Object: obj, Meta: diskcache.Meta{
				Version: srcVersion, Name: u.fn.String(), Symbol: sym,
				ModuleHash: hex.EncodeToString(modHash[:]), Created: time.Now().UTC(),
			}})
			if err != nil {
				c.logger.Warn("source: cannot write the disk cache", "func", u.fn.Name(), "err", err)
			}
		}
	}
	k, err := llvm.Load(obj, sym)
	if err != nil {
		return nil, fmt.Errorf("source: loading %s: %w", u.fn.Name(), err)
	}
	n.kernel, n.obj = k, obj
	if c.noCache {
		// Nothing else holds this kernel: free it with its native (Bind's
		// functions hold the native, so none can be running then).
		goruntime.SetFinalizer(n, func(n *native) { n.kernel.Free() })
	} else {
		memCache.Lock()
		if memCache.m == nil {
			memCache.m = map[[32]byte]*loaded{}
		}
		if l := memCache.m[sig]; l != nil {
			// Another goroutine won the race: use its kernel, drop ours.
			k.Free()
			n.kernel = l.kernel
		} else {
			memCache.m[sig] = &loaded{kernel: k, obj: obj}
		}
		memCache.Unlock()
	}
	n.compileTime = time.Since(start)
	if err := n.resolve(); err != nil {
		return nil, err
	}
	logStages(c, n)
	return n, nil
}

// newNative describes the compiled function of module m.
func newNative(u *unit, m *module, ir string) *native {
	sig := u.fn.Signature
	n := &native{name: u.fn.Name(), sites: m.sites, code: &codeText{u: u, llvm: ir}}
	if m.par != nil {
		n.par = &parInfo{loops: m.ploops, words: m.par.words, slots: m.par.slots}
	}
	n.pslots, n.rslots, n.words = frameLayout(sig)
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		k, _ := paramKind(p.Type())
		n.params = append(n.params, k)
		n.pnames = append(n.pnames, p.Name())
		n.ptypes = append(n.ptypes, types2string(p.Type()))
	}
	for i := 0; i < sig.Results().Len(); i++ {
		k, _ := paramKind(sig.Results().At(i).Type())
		n.results = append(n.results, k)
	}
	return n
}

// resolve finds the chunk entry points of parallel loops in the kernel.
func (n *native) resolve() error {
	if n.par == nil {
		return nil
	}
	if err := n.par.resolve(n.kernel); err != nil {
		return fmt.Errorf("source: loading %s: %w", n.name, err)
	}
	return nil
}

var ownDisk struct {
	once  sync.Once
	store *diskcache.Store
}

// diskStore is the disk cache: the one gojit's compiled graphs use when it
// has been set up (by gojit.ConfigureCache or a first gojit.Compile), else
// the same default directory (GOJIT_CACHE_DIR, or gojit under the user's
// cache directory; none with GOJIT_CACHE=off). Stores are safe to share
// between processes, and so between two in one process.
func diskStore(c *config) *diskcache.Store {
	if d := runtime.Disk(); d != nil {
		return d
	}
	ownDisk.once.Do(func() {
		if strings.EqualFold(os.Getenv(gojit.EnvCache), "off") {
			return
		}
		dir, err := gojit.DefaultCacheDir()
		if err == nil {
			ownDisk.store, err = diskcache.Open(dir, runtime.DefaultDiskMaxBytes)
		}
		if err != nil {
			c.logger.Warn("source: disk cache disabled; compiled code stays in memory", "err", err)
		}
	})
	return ownDisk.store
}
