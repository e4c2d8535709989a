package gojit

import (
	"fmt"
	"time"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/llvm"
	"github.com/gojit/gojit/internal/runtime"
)

// Lowered shows what Compile makes of one signature at every stage, for
// reading and debugging (like JAX's lower(...).as_text()).
type Lowered struct {
	// Traced is the graph as recorded, each node with the user's file:line.
	Traced string
	// Fused is the graph that runs (dead code removed) followed by its
	// fusion plan: one line per group of ops compiled into a single loop
	// nest, naming the values it computes without touching memory.
	Fused string
	// LLVM is the generated LLVM IR, before optimization.
	LLVM string
	// Optimized is the LLVM IR after the optimization pipeline.
	Optimized string
	// Assembly is the host machine code.
	Assembly string
	// CompileTime is how long generating, compiling and loading took.
	CompileTime time.Duration
}

// Lower traces and compiles the function for args' signature and returns
// every stage's text. LLVM, Optimized and Assembly are empty for an
// interpreted function.
func (f *Func) Lower(args ...any) (*Lowered, error) {
	if len(args) != len(f.params) {
		return nil, fmt.Errorf("gojit: %s: %w: got %d arguments, want %d", f.name, ErrArgs, len(args), len(f.params))
	}
	if _, _, err := f.signature(args); err != nil {
		return nil, err
	}
	g, err := f.trace(args)
	if err != nil {
		return nil, err
	}
	l := &Lowered{Traced: ir.Print(g, true)}
	opt := runtime.Options{Interpret: f.cfg.interpret, OptLevel: f.cfg.optLevel}
	exe, err := runtime.Build(g, opt)
	if err != nil {
		return nil, fmt.Errorf("gojit: %s: compile: %w", f.name, err)
	}
	l.Fused = ir.Print(exe.Graph, true) + "\n" + exe.Plan.String()
	if exe.Module == nil {
		return l, nil
	}
	l.LLVM = exe.Module.Text
	l.CompileTime = exe.CompileTime
	lo := llvm.Options{OptLevel: opt.OptLevel}
	if l.Optimized, err = llvm.OptimizedIR(exe.Module.Entry+".ll", l.LLVM, lo); err != nil {
		return nil, err
	}
	if l.Assembly, err = llvm.Assembly(exe.Module.Entry+".ll", l.LLVM, lo); err != nil {
		return nil, err
	}
	return l, nil
}

// LLVMVersion returns the version of the LLVM linked into this build, or ""
// in builds without LLVM (which run everything in the interpreter).
func LLVMVersion() string { return llvm.Version() }
