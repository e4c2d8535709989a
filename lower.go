package gojit

import (
	"time"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
)

// Lowered shows what Compile makes of one signature at every stage, for
// reading and debugging (like JAX's lower(...).as_text()).
type Lowered struct {
	// Traced is the graph as recorded, each node with the user's file:line.
	Traced string
	// Fused is the graph that runs (after the graph passes: constants
	// folded, identities simplified, duplicates merged, dead code removed)
	// followed by its fusion plan: one line per group of ops compiled into
	// a single loop nest, naming the values it computes without touching
	// memory.
	Fused string
	// LLVM is the generated LLVM IR, before optimization.
	LLVM string
	// Optimized is the LLVM IR after the optimization pipeline.
	Optimized string
	// Assembly is the host machine code.
	Assembly string
	// CompileTime is how long generating, compiling and loading took when
	// the kernel was built (it may have been built by an earlier Call).
	CompileTime time.Duration
	// TempBytes is the size of the intermediates that must live in memory
	// (values the plan materializes that are neither inputs nor results);
	// ArenaBytes is the per-call arena they share, smaller when some are
	// never live at the same time.
	TempBytes, ArenaBytes int
	// FromDisk reports that the kernel was loaded from the disk cache.
	FromDisk bool
}

// Lower returns every stage's text for args' signature, tracing and
// compiling it first if no Call has (the result is cached as for Call).
// LLVM, Optimized and Assembly are empty for an interpreted function.
func (f *Func) Lower(args ...any) (*Lowered, error) {
	e, _, err := f.lookup(args)
	if err != nil {
		return nil, err
	}
	exe := e.exe.Load()
	l := &Lowered{
		Traced: ir.Print(e.traced, true),
		Fused:  ir.Print(exe.Graph, true) + "\n" + exe.Plan.String(),
	}
	// A function with control flow runs as several modules (its steps and
	// regions, control.go in internal/runtime), each shown after a
	// "; ==== label" line.
	mods := exe.Modules()
	if len(mods) == 0 {
		return l, nil
	}
	l.CompileTime = exe.CompileTime
	l.TempBytes, l.ArenaBytes, l.FromDisk = exe.TempBytes, exe.ArenaBytes, exe.FromDisk
	lo := llvm.Options{OptLevel: f.cfg.optLevel}
	for _, m := range mods {
		head := ""
		if m.Label != "" {
			head = "; ==== " + m.Label + "\n"
		}
		lo.Flat = m.Module.Flat // as the kernel was compiled
		lo.QuickBackend = m.Module.Tiny
		opt, err := llvm.OptimizedIR(m.Module.Entry+".ll", m.Module.Text, lo)
		if err != nil {
			return nil, err
		}
		asm, err := llvm.Assembly(m.Module.Entry+".ll", m.Module.Text, lo)
		if err != nil {
			return nil, err
		}
		l.LLVM += head + m.Module.Text
		l.Optimized += head + opt
		l.Assembly += head + asm
	}
	return l, nil
}

// LLVMVersion returns the version of the LLVM linked into this build, or ""
// in builds without LLVM (which run everything in the interpreter).
func LLVMVersion() string { return llvm.Version() }
