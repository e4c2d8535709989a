package runtime

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gojit/gojit/internal/codegen"
	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/host"
	"github.com/gojit/gojit/internal/interp"
	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/passes"
)

// Version is gojit's code-generation version. It is part of every
// signature, so changing the generated code must change it.
const Version = "gojit-codegen-28"

// Options select how a graph is built.
type Options struct {
	// Interpret runs the graph in the pure-Go interpreter instead of
	// compiling it. Builds without LLVM always interpret.
	Interpret bool
	// OptLevel is LLVM's optimization level, 0..3.
	OptLevel int
	// FastMath lets LLVM treat floating point as real arithmetic: it may
	// reassociate, contract into FMAs, use approximations and assume no
	// NaN, infinity or signed zero occurs. Results then differ from the
	// interpreter's by rounding, and are undefined for NaN or infinite
	// values. The default is IEEE-exact code.
	FastMath bool
	// Passes controls the graph optimizer: verification after each pass
	// and an observer (for IR dumps). It does not change the result, so
	// it is not part of the signature.
	Passes passes.Options
	// Name labels the kernel in logs and disk cache listings, such as
	// the traced function's name. It is not part of the signature.
	Name string
	// Portable generates code without host-specific intrinsics (see
	// codegen.Target), as on a host without AVX-512. Tests use it to
	// check both forms of the code on one machine.
	Portable bool
	// Backend overrides the module's choice of backend level
	// (codegen.Module.Tiny): BackendQuick or BackendFull; the zero value
	// lets the module choose. Tests use it to compare both on one graph.
	Backend int

	// streamBytes overrides the host's streaming-store threshold
	// (codegen.Target.StreamBytes) when nonzero; benchmarks set it.
	streamBytes int64

	// dynamic describes a dynamic executable's graph
	// (codegen.GenerateDynamic); nil for static graphs. BuildDynamic
	// sets it.
	dynamic *codegen.Dynamic
}

// Backend levels for Options.Backend.
const (
	BackendQuick = 1 // the backend at its O0 level (llvm.Options.QuickBackend)
	BackendFull  = 2 // the backend at the optimization level's own
)

// target is the code generator's target for opt on this host.
func (opt Options) target() codegen.Target {
	return codegen.Target{
		AVX512:      !opt.Portable && hostHas("avx512f", "avx512vl"),
		StreamBytes: cmp.Or(opt.streamBytes, StreamThreshold()),
	}
}

// StreamThreshold returns the streaming-store threshold of this host's
// kernels (codegen.Target.StreamBytes): a flat elementwise group moving at
// least this many bytes writes its output with non-temporal stores.
// GOJIT_STREAM_BYTES (EnvStreamBytes), a positive number of bytes,
// overrides it.
func StreamThreshold() int64 {
	if v := os.Getenv(EnvStreamBytes); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			return n
		}
		streamEnvOnce.Do(func() {
			kernels.logger().Warn("gojit: ignoring "+EnvStreamBytes+": want a positive number of bytes", "value", v)
		})
	}
	return streamBytes(host.CacheSizes(), host.HostCPU().Vendor)
}

// EnvStreamBytes names the environment variable that overrides
// StreamThreshold.
const EnvStreamBytes = "GOJIT_STREAM_BYTES"

var streamEnvOnce sync.Once

// streamBytes is the streaming-store threshold for a host with caches c
// from the given vendor: twice the share of the last-level cache that the
// CPUs this process sees can count on, capped at half the L3 (the part a
// call's buffers can expect to keep on a machine whose other cores use
// the rest). Without a known L3 it is the L2 times 2, or codegen's default.
//
// The share is the L3 times the CPUs seen sharing it (Caches.L3Shared)
// over the physical cores behind it. On a bare-metal machine CPUID (or
// sysfs) names all the CPUs sharing the L3, so the share is the whole L3
// and the cap decides. A virtual machine sees the L3's full size but only
// its own vCPUs as sharing it; the cores behind it are then estimated from
// the size, as each vendor's L3 holds about a fixed amount per core
// (l3PerCore). Measured (the 5-op chain, moving 12 bytes an element):
//
//   - a 2-vCPU Zen 4 VM, 32 MiB L3 (8 cores): at n=1e6 (12 MB) ordinary
//     stores were 1.8x faster, at n=4e6 (48 MB) streaming 1.6x. Share
//     8 MiB, threshold 16 MiB.
//   - a 2-vCPU Sapphire Rapids VM, 105 MiB L3 (about 52 cores of
//     2 MiB), whose neighbours keep the L3 busy: out=a+b on one thread
//     falls from 44 GB/s at a 2 MiB working set to 14-23 GB/s from
//     4 MiB, and streaming took 9-19% less CPU from n=5e5 (6 MB) on
//     (docs/benchmarks.md, "Streaming stores and the host's caches").
//     Share 4 MiB, threshold 8.1 MiB (n=7e5); half the L3 (52 MiB, the
//     previous rule) streamed only from n=4.6e6.
func streamBytes(c host.Caches, vendor string) int64 {
	switch {
	case c.L3 > 0:
		limit := c.L3 / 2
		if per := l3PerCore(vendor); per > 0 {
			cores := c.L3 / per
			if seen := int64(max(c.L3Shared, 1)); cores > seen {
				limit = min(limit, 2*c.L3*seen/cores)
			}
		}
		return max(limit, codegen.DefaultStreamBytes)
	case c.L2 > 0:
		return max(c.L2*2, codegen.DefaultStreamBytes)
	}
	return codegen.DefaultStreamBytes
}

// l3PerCore is the L3 a vendor's processors have per physical core, from
// which streamBytes estimates how many cores share an L3 of a given size:
// 4 MiB on AMD's (and Hygon's) Zen 2-4 core complexes, about 2 MiB
// (1.375-1.875) on Intel's server parts since Skylake-SP. 0 when unknown:
// the L3 is then taken to be this process's alone.
func l3PerCore(vendor string) int64 {
	switch vendor {
	case "AuthenticAMD", "HygonGenuine":
		return 4 << 20
	case "GenuineIntel":
		return 2 << 20
	}
	return 0
}

// generate lowers plan to a module with the given entry symbol.
func (opt Options) generate(plan *passes.Plan, entry string) (*codegen.Module, error) {
	if opt.dynamic != nil {
		return codegen.GenerateDynamic(plan, entry, opt.target(), opt.dynamic)
	}
	// Only nests large enough to be split get a variable-bounds entry
	// (codegen.Group.Split); the others compile for their one extent.
	weights := nestWeights(plan)
	return codegen.GenerateSplit(plan, entry, opt.target(), func(nest int, g codegen.Group) bool {
		return g.Work*weights[nest] >= parallelWork
	})
}

// hostHas reports whether the host has every one of the features want
// (LLVM's names), from CPUID where the host package reads it, so that
// neither a signature nor the code generator's target loads LLVM; on
// other architectures from LLVM's host feature string.
func hostHas(want ...string) bool {
	cpu := host.HostCPU()
	var have []string
	if !cpu.Known() {
		_, features := llvm.HostCPU()
		have = strings.Split(features, ",")
	}
	for _, w := range want {
		if cpu.Known() && !cpu.Has(w) || !cpu.Known() && !slices.Contains(have, "+"+w) {
			return false
		}
	}
	return true
}

// hostIdentity names the host's processor in signatures: everything
// LLVM's host CPU name and features are derived from (vendor, family,
// model and the usable feature bits; see host.CPU), read with CPUID
// without loading LLVM. On architectures the host package does not read,
// it is LLVM's name and feature string. It is computed once per process.
var hostIdentity = sync.OnceValue(func() string {
	if cpu := host.HostCPU(); cpu.Known() {
		return cpu.String()
	}
	name, features := llvm.HostCPU()
	return name + "\x00" + features
})

// Executable runs one graph: compiled native code, or the interpreter.
// It is immutable once built and safe for concurrent use.
type Executable struct {
	Graph *ir.Graph    // the graph that runs: compacted, parameters kept
	Plan  *passes.Plan // how it is fused
	// Module is the LLVM IR; nil when interpreted. Its Text is empty
	// when the kernel came from the disk cache without generating it
	// (diskload.go); Modules fills it in.
	Module    *codegen.Module
	Signature [32]byte // identity of the compiled code
	// CompileTime is how long code generation, LLVM and loading took when
	// the executable was built (zero when interpreted). Executables found
	// in the compile cache are shared, so it reports the original build.
	CompileTime time.Duration
	// FromDisk reports that the kernel was loaded from the disk cache
	// instead of compiled; CompileTime is then the time it took to load.
	FromDisk bool
	// Bytes is the size of the kernel's object code (zero when
	// interpreted); the cache's byte limit counts it.
	Bytes int
	// TempBytes is the total size of the intermediates that live in
	// memory; ArenaBytes is the arena they share with the module's
	// scratch buffers (a matmul's packed B), smaller than their sum when
	// some are never live at the same time (see memplan.go).
	TempBytes, ArenaBytes int

	kernel    *llvm.Kernel
	rangeAddr uintptr  // the module's RangeEntry
	parallel  bool     // some group is worth splitting across threads
	slots     []source // where each module slot's pointer comes from
	copies    []outCopy
	tempBytes []int
	// arenaOffsets[i] is temporary i's offset in the frame's arena.
	arenaOffsets []int
	// weights[i] is what an element of nest i costs, for the split
	// decision (see ParallelWork).
	weights []int
	frames  sync.Pool
	// text generates Module.Text, once, when it was not (loadTrusted).
	text     func() string
	textOnce sync.Once

	// Dynamic is set on executables that serve every size of a dynamic
	// dimension; see BuildDynamic and RunSized.
	Dynamic *Dynamic

	// staged is set on executables of graphs with control flow, which
	// run as steps (control.go).
	staged *staged

	// Eviction state; see Acquire.
	inflight       atomic.Int64
	retired, freed atomic.Bool
	gone           chan struct{} // closed when an evicted kernel's code is freed
}

type sourceKind uint8

const (
	fromInput sourceKind = iota
	fromOutput
	fromTemp
	fromError // the frame's error slot (indexerr.go)
)

type source struct {
	kind sourceKind
	i    int
}

// outCopy fills an output that no group writes: a parameter returned as
// is, or a value returned twice.
type outCopy struct {
	out   int
	src   source
	bytes int
}

type frame struct {
	args  []unsafe.Pointer
	temps [][]uint64
	arena []uint64 // the temporaries' one allocation, when they share it
	pin   runtime.Pinner
	errs  []uint64 // the error slot of kernels that check indices (indexerr.go)
}

// Interpreted reports whether e runs in the interpreter.
func (e *Executable) Interpreted() bool { return e.kernel == nil && e.staged == nil }

// Run executes the graph. ins[i] points to the data of parameter i and
// outs[j] to the buffer of output j, each holding exactly as many elements
// as the graph says. No output may overlap an input or another output; the
// caller guarantees it (the kernels are compiled with noalias). Run fails
// with ErrEvicted if the cache has evicted e's kernel; RunAcquired cannot.
func (e *Executable) Run(ins, outs []unsafe.Pointer) error {
	return e.RunWith(ins, outs, RunOptions{})
}

// RunOptions adjust one run.
type RunOptions struct {
	// Size is the dynamic dimension's size, for executables built by
	// BuildDynamic (ins and outs then hold the sizes the graph has at
	// Size); other executables ignore it.
	Size int
	// Threads caps the threads a loop nest may be split across; zero
	// means the process-wide setting (SetThreads).
	Threads int
}

// RunWith is Run with options.
func (e *Executable) RunWith(ins, outs []unsafe.Pointer, o RunOptions) error {
	if !e.Acquire() {
		return ErrEvicted
	}
	defer e.Release()
	return e.RunAcquired(ins, outs, o)
}

// RunAcquired is RunWith for a caller that holds e (from Acquire or
// BuildAcquired): e's code stays loaded until the caller releases it, so
// the run cannot fail with ErrEvicted, even if the cache evicts e during
// it. Chunks of a loop split across the worker pool all finish before
// RunAcquired returns, so they are covered by the caller's hold too.
func (e *Executable) RunAcquired(ins, outs []unsafe.Pointer, o RunOptions) error {
	if e.staged != nil {
		return e.runStaged(ins, outs, o) // control.go
	}
	if e.kernel == nil {
		return e.interpret(ins, outs)
	}
	if e.freed.Load() {
		panic("runtime: running a freed kernel (Executable run without Acquire)")
	}
	b := 0
	if e.Dynamic != nil {
		b = o.Size
	}
	threads := 1
	if e.parallel || e.Dynamic != nil {
		threads = Threads()
		if o.Threads > 0 {
			threads = min(threads, o.Threads)
		}
	}
	switch {
	case len(e.slots) == 0:
	case len(e.tempBytes) == 0 && e.Dynamic == nil && threads == 1 && len(e.slots) <= llvm.MaxDirect && e.Module.ErrorSlot < 0:
		// The common small call: no temporaries, so no frame.
		e.callDirect(nil, ins, outs)
	default:
		fr := e.frames.Get().(*frame)
		fr.clearErrs()
		switch {
		case e.Dynamic != nil:
			e.Dynamic.growTemps(fr, b)
			e.callRanges(fr, ins, outs, b, threads)
		case e.parallel && threads > 1:
			e.callRanges(fr, ins, outs, b, threads)
		case len(e.slots) <= llvm.MaxDirect:
			e.callDirect(fr, ins, outs)
		default:
			e.callPinned(fr, ins, outs)
		}
		err := e.indexError(fr)
		e.frames.Put(fr)
		if err != nil {
			return err
		}
	}
	for i, c := range e.copies {
		var src unsafe.Pointer
		if c.src.kind == fromInput {
			src = ins[c.src.i]
		} else {
			src = outs[c.src.i]
		}
		n := c.bytes
		if e.Dynamic != nil {
			n = e.Dynamic.copies[i].At(b)
		}
		if n > 0 {
			copy(unsafe.Slice((*byte)(outs[c.out]), n), unsafe.Slice((*byte)(src), n))
		}
	}
	return nil
}

func (e *Executable) slotPointer(fr *frame, s source, ins, outs []unsafe.Pointer) unsafe.Pointer {
	switch s.kind {
	case fromInput:
		return ins[s.i]
	case fromOutput:
		return outs[s.i]
	case fromError:
		return fr.errSlot()
	}
	if t := fr.temps[s.i]; len(t) > 0 {
		return unsafe.Pointer(&t[0])
	}
	return nil
}

// callDirect passes each buffer as its own C argument: no pinning needed.
func (e *Executable) callDirect(fr *frame, ins, outs []unsafe.Pointer) {
	var p [llvm.MaxDirect]unsafe.Pointer
	for i, s := range e.slots {
		p[i] = e.slotPointer(fr, s, ins, outs)
	}
	e.kernel.CallDirect(&p, len(e.slots))
}

// callPinned passes an array of pointers, which the cgo rules allow only
// once everything it points to is pinned.
func (e *Executable) callPinned(fr *frame, ins, outs []unsafe.Pointer) {
	e.kernel.Call(e.pinArgs(fr, ins, outs))
	fr.unpin()
}

// pinArgs fills the frame's pointer array and pins what it points to, so
// the array may be handed to C; fr.unpin undoes it.
//
// Temporaries (and the index-error slot) that share the frame's arena are
// pinned once, as the arena:
// a Pinner keeps its first few pins without allocating, so pinning every
// temporary allocated on each call of a kernel with many of them.
func (e *Executable) pinArgs(fr *frame, ins, outs []unsafe.Pointer) unsafe.Pointer {
	arena := false
	var lo, hi uintptr
	if len(fr.arena) > 0 {
		lo = uintptr(unsafe.Pointer(&fr.arena[0]))
		hi = lo + uintptr(len(fr.arena))*8
	}
	for i, s := range e.slots {
		p := e.slotPointer(fr, s, ins, outs)
		switch {
		case p == nil:
		case uintptr(p) >= lo && uintptr(p) < hi:
			if !arena {
				fr.pin.Pin(unsafe.Pointer(&fr.arena[0]))
				arena = true
			}
		default:
			fr.pin.Pin(p)
		}
		fr.args[i] = p
	}
	return unsafe.Pointer(&fr.args[0])
}

func (fr *frame) unpin() {
	fr.pin.Unpin()
	clear(fr.args)
}

// ParallelWork is the weighted work (elements visited times the cost of an
// element, see opWeight) a nest must reach before it is split across
// threads: below it, handing work to another core costs more than it saves.
// BenchmarkParallelThreshold measures the crossover: on the development VM
// (2 vCPUs, quiet), since each thread runs the same chunk of a loop from
// one call to the next (Pool.run), a streaming add ties at 16,384 elements
// (2.38 against 2.37 µs) and gains 35% at 32,768 (4.79 against 3.54 µs);
// an exp-tanh chain gains 39% at 4,096. (When the chunks moved between
// threads from call to call, the crossover was about 80,000 elements.)
const ParallelWork = 32 << 10

// parallelWork is ParallelWork, lowered by benchmarks to force splits.
var parallelWork = ParallelWork

// chunkWorkVar is chunkWork, changed by benchmarks to try other chunkings.
var chunkWorkVar int64 = chunkWork

// callRanges runs the nests one after another through the range entry,
// splitting each large one into a chunk per thread. Dynamic executables
// always come here, with each nest's extent at size b.
func (e *Executable) callRanges(fr *frame, ins, outs []unsafe.Pointer, b, threads int) {
	direct := len(e.slots) <= llvm.MaxDirect
	var ptrs [llvm.MaxDirect]unsafe.Pointer
	var args unsafe.Pointer
	if direct {
		for i, s := range e.slots {
			ptrs[i] = e.slotPointer(fr, s, ins, outs)
		}
	}
	for gi, g := range e.Module.Groups {
		extent, work := g.Extent, g.Work
		if d := e.Dynamic; d != nil {
			extent, work = d.extents[gi].At(b), d.works[gi].At(b)
		}
		work *= e.weights[g.Nest]
		// A chunk per thread, or more for long loops, so that a thread the
		// host slows down (these are shared virtual machines) leaves its
		// unclaimed chunks to the others: chunks of at least chunkWork.
		// No chunk smaller than the nest's grain; when that bounds the
		// chunks, a multiple of the threads, so that each thread gets as
		// many.
		most := extent
		if g.Grain > 1 {
			if most = (extent + g.Grain - 1) / g.Grain; most > threads {
				most = most / threads * threads
			}
		}
		chunks := max(min(max(threads, work/int(chunkWorkVar)), most), 1)
		if work < parallelWork || !g.Split {
			chunks = 1
		}
		if chunks == 1 && direct {
			llvm.CallRangeDirect(e.rangeAddr, &ptrs, int64(gi), 0, int64(extent), int64(b))
			continue
		}
		rc := &RangeCall{Addr: e.rangeAddr, Group: int64(gi), Extent: int64(extent), Size: int64(b)}
		if direct {
			rc.Direct, rc.Ptrs = true, ptrs
		} else {
			if args == nil {
				args = e.pinArgs(fr, ins, outs)
			}
			rc.Args = args
		}
		pool().RunRange(chunks, rc)
	}
	if args != nil {
		fr.unpin()
	}
}

var threadLimit atomic.Int64

// SetThreads sets how many threads a loop nest may be split across, for
// the whole process: n <= 0 restores the default, GOMAXPROCS at first use.
// It returns the previous setting.
func SetThreads(n int) int {
	return int(threadLimit.Swap(int64(max(n, 0))))
}

// Threads returns the number of threads a loop nest may be split across.
func Threads() int {
	t := pool().Threads()
	if n := int(threadLimit.Load()); n > 0 {
		t = min(t, n)
	}
	return t
}

var (
	poolOnce   sync.Once
	sharedPool *Pool
)

// pool is the process-wide worker pool: one goroutine per CPU besides the
// caller's.
func pool() *Pool {
	poolOnce.Do(func() { sharedPool = NewPool(runtime.GOMAXPROCS(0) - 1) })
	return sharedPool
}

func (e *Executable) interpret(ins, outs []unsafe.Pointer) error {
	g := e.Graph
	in := make([]any, len(ins))
	for i, v := range g.Params {
		n := g.Node(v)
		in[i] = Typed(n.DType, ins[i], n.Shape.Size())
	}
	out := make([]any, len(outs))
	for j, v := range g.Outputs {
		n := g.Node(v)
		out[j] = Typed(n.DType, outs[j], n.Shape.Size())
	}
	return interp.RunInto(g, in, out)
}

// Typed views n elements of dtype dt at p as the Go slice type the
// interpreter uses ([]float32 for Float32, []bool for Bool, ...).
func Typed(dt ir.DType, p unsafe.Pointer, n int) any {
	if n == 0 || p == nil {
		return interp.NewSlice(dt, 0)
	}
	switch dt {
	case ir.Bool:
		return unsafe.Slice((*bool)(p), n)
	case ir.Uint8:
		return unsafe.Slice((*uint8)(p), n)
	case ir.Int32:
		return unsafe.Slice((*int32)(p), n)
	case ir.Int64:
		return unsafe.Slice((*int64)(p), n)
	case ir.Float32:
		return unsafe.Slice((*float32)(p), n)
	case ir.Float64:
		return unsafe.Slice((*float64)(p), n)
	case ir.Float16:
		return unsafe.Slice((*half.Float16)(p), n)
	case ir.BFloat16:
		return unsafe.Slice((*half.BFloat16)(p), n)
	}
	panic(fmt.Sprintf("runtime: no slice type for %s", dt))
}

// Build verifies g, fuses it and compiles it (or prepares it for the
// interpreter). Identical graphs built with identical options share one
// compiled kernel while it stays in the cache; concurrent builds of the
// same graph compile once. With a disk cache configured, a kernel compiled
// by an earlier process is loaded instead of compiled.
//
// The cache may evict the executable as soon as Build returns it, and Run
// then fails with ErrEvicted; BuildAcquired returns one that cannot be
// freed before the caller is done with it.
func Build(g *ir.Graph, opt Options) (*Executable, error) {
	e, err := BuildAcquired(g, opt)
	if err != nil {
		return nil, err
	}
	e.Release()
	return e, nil
}

// BuildAcquired is Build returning an executable already acquired for the
// caller (see Acquire), taken while the cache still held it: its code
// stays loaded until the caller's Release, however many kernels other
// goroutines build or evict meanwhile, and RunAcquired runs it.
func BuildAcquired(g *ir.Graph, opt Options) (*Executable, error) {
	if err := ir.Verify(g); err != nil {
		return nil, err
	}
	cg, err := passes.Optimize(g, opt.Passes)
	if err != nil {
		return nil, err
	}
	plan := passes.Fuse(cg)
	if opt.Interpret || !llvm.Available() {
		return &Executable{Graph: cg, Plan: plan}, nil
	}
	if ir.HasControl(cg) {
		e, err := buildStaged(cg, opt)
		if e != nil {
			e.Plan = plan
		}
		return e, err
	}
	sig := Signature(cg, opt)
	return kernels.get(sig, func(disk *diskcache.Store) (*Executable, error) {
		return compile(cg, plan, sig, opt, disk)
	})
}

// Signature hashes everything that changes the generated code: the graph's
// canonical text (structure, wiring, attributes, dtypes, shapes), the
// options, the host CPU and its features, the LLVM version and gojit's.
// Computing it loads no LLVM (hostIdentity, llvm.Version).
func Signature(g *ir.Graph, opt Options) [32]byte {
	h := sha256.New()
	// As fmt's "%s\x00O%d\x00fast-math=%t\x00%s\x00%s\x00llvm %s\x00",
	// without fmt on a fresh process's first kernel.
	h.Write([]byte(Version + "\x00O" + strconv.Itoa(opt.OptLevel) + "\x00fast-math=" + strconv.FormatBool(opt.FastMath) +
		"\x00" + opt.target().String() + "\x00" + hostIdentity() + "\x00llvm " + llvmVersion() + "\x00"))
	if opt.Backend != 0 {
		h.Write([]byte("backend=" + strconv.Itoa(opt.Backend) + "\x00"))
	}
	h.Write([]byte(ir.Print(g, false)))
	var sig [32]byte
	h.Sum(sig[:0])
	return sig
}

// llvmVersion is llvm.Version, formatted once.
var llvmVersion = sync.OnceValue(llvm.Version)

// SymbolName is the entry symbol of the kernel with signature sig.
func SymbolName(sig [32]byte) string { return "gojit_" + hex.EncodeToString(sig[:8]) }

// newExecutable loads obj, the compiled mod, and prepares its call frames.
func newExecutable(g *ir.Graph, plan *passes.Plan, mod *codegen.Module, sig [32]byte, obj []byte) (*Executable, error) {
	awaitSymbol(mod.Entry)
	k, err := llvm.Load(obj, mod.Entry)
	if err != nil {
		return nil, err
	}
	e := &Executable{Graph: g, Plan: plan, Module: mod, Signature: sig, kernel: k, Bytes: len(obj)}
	if mod.RangeEntry != "" {
		if e.rangeAddr, err = k.Lookup(mod.RangeEntry); err != nil {
			k.Free()
			return nil, err
		}
	}
	e.weights = nestWeights(plan)
	for _, gr := range mod.Groups {
		e.parallel = e.parallel || gr.Split && gr.Work*e.weights[gr.Nest] >= parallelWork
	}
	if e.rangeAddr == 0 && (e.parallel || e.Dynamic != nil) {
		k.Free()
		return nil, fmt.Errorf("runtime: module %s has nests to split but no range entry", mod.Entry)
	}
	e.layout()
	stats.live.Add(1)
	stats.bytes.Add(int64(e.Bytes))
	return e, nil
}

// layout decides where each slot's memory comes from and prepares the
// pool of per-call frames.
func (e *Executable) layout() {
	e.slots, e.tempBytes, e.copies = planLayout(e.Graph, e.Module)
	e.arenaOffsets, e.ArenaBytes = e.arenaLayout()
	for _, b := range e.tempBytes[:len(e.tempBytes)-len(e.Module.Scratch)] {
		e.TempBytes += b
	}
	e.frames.New = func() any { return e.newFrame() }
}

// planLayout says where each of mod's slots points: caller inputs, caller
// outputs (a value's first appearance among the outputs), or temporaries
// owned by a per-call frame (with their sizes in bytes); and which outputs
// no group writes, to be copied.
func planLayout(g *ir.Graph, mod *codegen.Module) (slots []source, tempBytes []int, copies []outCopy) {
	paramIndex := map[ir.Value]int{}
	for i, v := range g.Params {
		paramIndex[v] = i
	}
	firstOut := map[ir.Value]int{}
	for j, v := range g.Outputs {
		if _, seen := firstOut[v]; !seen {
			firstOut[v] = j
		}
	}
	for _, v := range mod.Slots {
		if i, ok := paramIndex[v]; ok {
			slots = append(slots, source{fromInput, i})
			continue
		}
		if j, ok := firstOut[v]; ok {
			slots = append(slots, source{fromOutput, j})
			continue
		}
		n := g.Node(v)
		slots = append(slots, source{fromTemp, len(tempBytes)})
		tempBytes = append(tempBytes, n.Shape.Size()*n.DType.Size())
	}
	if mod.ErrorSlot >= 0 {
		slots = append(slots, source{kind: fromError})
	}
	for _, sc := range mod.Scratch {
		slots = append(slots, source{fromTemp, len(tempBytes)})
		tempBytes = append(tempBytes, sc.Bytes)
	}
	for j, v := range g.Outputs {
		n := g.Node(v)
		bytes := n.Shape.Size() * n.DType.Size()
		if i, ok := paramIndex[v]; ok {
			copies = append(copies, outCopy{j, source{fromInput, i}, bytes})
		} else if first := firstOut[v]; first != j {
			copies = append(copies, outCopy{j, source{fromOutput, first}, bytes})
		}
	}
	return slots, tempBytes, copies
}
