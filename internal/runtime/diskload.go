package runtime

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// compile loads g's kernel from disk when a valid entry exists, or
// generates its module, compiles it with LLVM and stores the object.
func compile(g *ir.Graph, plan *passes.Plan, sig [32]byte, opt Options, disk *diskcache.Store) (*Executable, error) {
	start := time.Now()
	var ent *diskcache.Entry
	if disk != nil {
		ent = readEntry(sig, disk, opt)
		if e := loadTrusted(g, plan, sig, ent, opt); e != nil {
			e.CompileTime = time.Since(start)
			stats.loadNanos.Add(int64(e.CompileTime))
			return e, nil
		}
	}
	mod, modHash, err := opt.module(plan, SymbolName(sig))
	if err != nil {
		return nil, err
	}
	if ent != nil {
		if e := loadChecked(g, plan, mod, sig, modHash, ent, disk, opt); e != nil {
			e.CompileTime = time.Since(start)
			stats.loadNanos.Add(int64(e.CompileTime))
			return e, nil
		}
	}
	obj, err := llvm.Compile(mod.Entry+".ll", mod.Text, llvm.Options{OptLevel: opt.OptLevel, Flat: mod.Flat, QuickBackend: mod.Tiny})
	if err != nil {
		return nil, err
	}
	e, err := newExecutable(g, plan, mod, sig, obj.Object)
	if err != nil {
		return nil, err
	}
	e.CompileTime = time.Since(start)
	recordCompile(e.CompileTime)
	if disk != nil {
		if err := disk.Put(newEntry(sig, obj.Object, mod, modHash, opt)); err != nil {
			stats.diskErrors.Add(1)
			kernels.logger().Warn("gojit: cannot write the disk cache", "func", opt.Name, "err", err)
		} else {
			stats.diskWrites.Add(1)
		}
	}
	return e, nil
}

// module generates the module for plan and the hash disk entries record.
func (opt Options) module(plan *passes.Plan, entry string) (*codegen.Module, [32]byte, error) {
	mod, err := opt.generate(plan, entry)
	if err != nil {
		return nil, [32]byte{}, err
	}
	if opt.FastMath {
		mod.Text = fastMath(mod.Text)
	}
	switch opt.Backend {
	case BackendQuick:
		mod.Tiny = true
	case BackendFull:
		mod.Tiny = false
	}
	// A module compiled with another pipeline (llvm.Options.Flat) or
	// backend level (QuickBackend) hashes differently.
	suffix := ""
	if mod.Flat {
		suffix += "\x00flat"
	}
	if mod.Tiny {
		suffix += "\x00quick"
	}
	modHash := sha256.Sum256([]byte(mod.Text + suffix))
	return mod, modHash, nil
}

// newEntry is the disk entry for obj, compiled from mod.
func newEntry(sig [32]byte, obj []byte, mod *codegen.Module, modHash [32]byte, opt Options) *diskcache.Entry {
	m := diskcache.Meta{Version: Version, Name: opt.Name, Symbol: mod.Entry,
		ModuleHash: hex.EncodeToString(modHash[:]), Created: time.Now().UTC()}
	if m.Generator = generatorID(); m.Generator != "" {
		m.Layout = encodeLayout(mod)
	}
	return &diskcache.Entry{Key: sig, Object: obj, Meta: m}
}

// readEntry returns the disk entry for sig, or nil if there is none or it
// is unusable (counted and logged).
func readEntry(sig [32]byte, disk *diskcache.Store, opt Options) *diskcache.Entry {
	ent, err := disk.Get(sig)
	if errors.Is(err, diskcache.ErrNotFound) {
		return nil
	}
	if err != nil {
		stats.diskErrors.Add(1)
		kernels.logger().Warn("gojit: ignoring a disk cache entry", "func", opt.Name, "err", err)
		return nil
	}
	if ent.Meta.Version != Version || ent.Meta.Symbol != SymbolName(sig) {
		stats.diskStale.Add(1)
		kernels.logger().Debug("gojit: disk cache entry from another code generator; recompiling", "func", opt.Name,
			"version", ent.Meta.Version, "symbol", ent.Meta.Symbol)
		return nil
	}
	return ent
}

// loadTrusted returns the executable for ent without generating its
// module, when this build wrote it (see generatorID), or nil.
func loadTrusted(g *ir.Graph, plan *passes.Plan, sig [32]byte, ent *diskcache.Entry, opt Options) *Executable {
	gen := generatorID()
	if ent == nil || gen == "" || ent.Meta.Generator != gen || len(ent.Meta.Layout) == 0 {
		return nil
	}
	log := kernels.logger()
	mod, err := decodeLayout(ent.Meta.Layout, g, plan)
	if err == nil && mod.Entry != ent.Meta.Symbol {
		err = fmt.Errorf("layout names entry %q, not %q", mod.Entry, ent.Meta.Symbol)
	}
	if err != nil {
		stats.diskErrors.Add(1)
		log.Warn("gojit: ignoring a disk cache entry's layout", "func", opt.Name, "err", err)
		return nil
	}
	e, err := newExecutable(g, plan, mod, sig, ent.Object)
	if err != nil {
		stats.diskErrors.Add(1)
		log.Warn("gojit: cannot load a disk cache entry; recompiling", "func", opt.Name, "err", err)
		return nil
	}
	e.text = func() string {
		m, _, err := opt.module(plan, mod.Entry)
		if err != nil {
			return fmt.Sprintf("; generating the module again failed: %v\n", err)
		}
		return m.Text
	}
	e.FromDisk = true
	stats.diskHits.Add(1)
	return e
}

// loadChecked returns the executable for ent if its module hash is
// modHash, or nil. An entry whose module hash differs was compiled by
// another code generator (a forgotten Version bump must not run stale
// code): it is not loaded, and the caller compiles and overwrites it. An
// entry that loads but lacks this build's generator identity is rewritten
// with it, so the next process can skip generating the module.
func loadChecked(g *ir.Graph, plan *passes.Plan, mod *codegen.Module, sig, modHash [32]byte, ent *diskcache.Entry, disk *diskcache.Store, opt Options) *Executable {
	log := kernels.logger()
	if ent.Meta.ModuleHash != hex.EncodeToString(modHash[:]) {
		stats.diskStale.Add(1)
		log.Debug("gojit: disk cache entry from another code generator; recompiling", "func", opt.Name,
			"version", ent.Meta.Version, "symbol", ent.Meta.Symbol)
		return nil
	}
	e, err := newExecutable(g, plan, mod, sig, ent.Object)
	if err != nil {
		stats.diskErrors.Add(1)
		log.Warn("gojit: cannot load a disk cache entry; recompiling", "func", opt.Name, "err", err)
		return nil
	}
	e.FromDisk = true
	stats.diskHits.Add(1)
	if gen := generatorID(); gen != "" && ent.Meta.Generator != gen {
		if err := disk.Put(newEntry(sig, ent.Object, mod, modHash, opt)); err != nil {
			log.Debug("gojit: cannot rewrite a disk cache entry", "func", opt.Name, "err", err)
		}
	}
	return e
}

// A kernel read from the disk cache is checked against the module this
// build would generate (diskcache.Meta.ModuleHash), so that a code
// generator changed without a Version bump never runs stale code. But
// generating the module only to hash it was 0.16 of the 0.81 ms a fresh
// process spent on its first cached kernel. When the entry was written by
// this very build of gojit (generatorID: the same module version and
// go.sum hash, or the same clean VCS revision), the module would be the
// same text, since code generation is deterministic and the signature
// covers all its inputs; the runtime then takes the module's layout
// (everything but the text: slots, nests, scratch buffers) from the entry
// and generates the text only if someone asks for it (Modules). Builds
// that cannot be identified (a modified work tree, go test) always check.

// generatorID identifies the build of gojit's code generator in this
// process, or is "" when it cannot be identified; tests replace it.
var generatorID = sync.OnceValue(buildGenerator)

// BuildIdentity returns what identifies this build of gojit's code
// generator in disk cache entries, or "" when it cannot be identified
// and every cached kernel's module is generated again to check it.
func BuildIdentity() string { return generatorID() }

// gojitModule is the module path whose code generates kernels.
const gojitModule = "github.com/gojit/gojit"

// buildGenerator reads the build's identity from its embedded build
// information: gojit's module version and go.sum hash when it is a
// dependency (not replaced by a directory), or the VCS revision when gojit
// is the main module and its work tree had no changes.
func buildGenerator() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if bi.Main.Path == gojitModule {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev == "" || modified != "false" {
			return ""
		}
		return "vcs " + rev
	}
	for _, m := range bi.Deps {
		if m.Path != gojitModule {
			continue
		}
		if r := m.Replace; r != nil {
			if r.Version == "" || r.Sum == "" { // a local directory
				return ""
			}
			return "module " + r.Path + " " + r.Version + " " + r.Sum
		}
		if m.Version == "" || m.Version == "(devel)" || m.Sum == "" {
			return ""
		}
		return "module " + m.Path + " " + m.Version + " " + m.Sum
	}
	return ""
}

// layoutFormat is the first byte of encodeLayout's output.
const layoutFormat = 1

// encodeLayout is m without its text, for diskcache.Meta.Layout.
// codegen.Module's fields are listed in TestLayoutCoversModule, which
// fails when one is added that this encoding does not carry.
func encodeLayout(m *codegen.Module) []byte {
	b := []byte{layoutFormat}
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(v int) { b = binary.AppendVarint(b, int64(v)) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str(m.Entry)
	str(m.RangeEntry)
	num(m.ErrorSlot)
	flag(m.Flat)
	flag(m.Tiny)
	num(len(m.Slots))
	for _, v := range m.Slots {
		num(int(v))
	}
	num(len(m.Groups))
	for _, g := range m.Groups {
		num(g.Extent)
		num(g.Work)
		num(g.Grain)
		num(g.Nest)
		flag(g.Split)
	}
	num(len(m.Scratch))
	for _, s := range m.Scratch {
		num(s.Bytes)
		num(s.Nest)
	}
	return b
}

// decodeLayout reads what encodeLayout wrote for a module of graph g and
// plan p, checking every count and index against them, so that a damaged
// layout is an error and never an out-of-range access later.
func decodeLayout(b []byte, g *ir.Graph, p *passes.Plan) (*codegen.Module, error) {
	if len(b) == 0 || b[0] != layoutFormat {
		return nil, errors.New("unknown layout format")
	}
	b = b[1:]
	bad := false
	str := func() string {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			bad = true
			return ""
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s
	}
	num := func(lo, hi int) int {
		v, k := binary.Varint(b)
		if k <= 0 || v < int64(lo) || v > int64(hi) {
			bad = true
			return lo
		}
		b = b[k:]
		return int(v)
	}
	flag := func() bool {
		if len(b) == 0 || b[0] > 1 {
			bad = true
			return false
		}
		v := b[0] == 1
		b = b[1:]
		return v
	}
	const maxInt = 1<<62 - 1
	nests := len(p.Nests)
	m := &codegen.Module{Entry: str(), RangeEntry: str()}
	m.ErrorSlot = num(-1, maxInt)
	m.Flat = flag()
	m.Tiny = flag()
	for range num(0, len(b)) {
		m.Slots = append(m.Slots, ir.Value(num(0, len(g.Nodes)-1)))
	}
	for range num(0, len(b)) {
		m.Groups = append(m.Groups, codegen.Group{Extent: num(0, maxInt), Work: num(0, maxInt),
			Grain: num(0, maxInt), Nest: num(0, nests-1), Split: flag()})
	}
	for range num(0, len(b)) {
		m.Scratch = append(m.Scratch, codegen.Scratch{Bytes: num(0, maxInt), Nest: num(0, nests-1)})
	}
	switch {
	case bad:
		return nil, errors.New("truncated or out-of-range layout")
	case len(b) != 0:
		return nil, fmt.Errorf("%d bytes after the layout", len(b))
	case m.ErrorSlot > len(m.Slots):
		return nil, fmt.Errorf("error slot %d of %d slots", m.ErrorSlot, len(m.Slots))
	}
	return m, nil
}

// Warm computes, once per process and in the background, what the first
// build's signature and cache lookup need and no configuration changes:
// the host's identity and cache sizes (CPUID, whose every instruction
// traps to the hypervisor in a virtual machine: about 30 µs in all), the
// build's identity, and whether libLLVM is there. The root package starts
// it when a function is compiled, so that it overlaps the first trace on
// another core; a build that gets there first waits for it or does the
// work itself, and gets the same answers either way.
func Warm() {
	warmOnce.Do(func() {
		go func() {
			hostIdentity()
			Options{}.target()
			generatorID()
			llvm.Available()
		}()
	})
}

var warmOnce sync.Once
