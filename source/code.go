package source

import (
	"bytes"
	"fmt"
	"go/format"
	"go/types"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"

	"github.com/gojit/gojit/internal/llvm"
)

// codeText produces the text of each stage of a compiled function. The
// optimized IR and the assembly are computed on request (they run LLVM
// again, which a function loaded from a cache has not done).
type codeText struct {
	u    *unit
	llvm string

	mu      sync.Mutex
	opt, as string
}

// Code returns the text of stage s for f: StageSource (the declaration),
// StageSSA (go/ssa form of the function and its same-package callees),
// StageLLVM (LLVM IR as generated), StageLLVMOpt (after optimization) or
// StageAsm (host assembly). A function running as plain Go (WithFallback,
// GOJIT_DISABLE_JIT=1) has only StageSource.
func (f *Func) Code(s Stage) (string, error) {
	if f.nat == nil {
		if s == StageSource && f.u != nil {
			return sourceText(f.u), nil
		}
		return "", fmt.Errorf("source: %s runs as Go code and has no %s stage", f.name, s)
	}
	return f.nat.code.stage(s)
}

func (c *codeText) stage(s Stage) (string, error) {
	switch s {
	case StageSource:
		return sourceText(c.u), nil
	case StageSSA:
		return ssaText(c.u), nil
	case StageLLVM:
		return c.llvm, nil
	case StageLLVMOpt, StageAsm:
		c.mu.Lock()
		defer c.mu.Unlock()
		var err error
		if s == StageLLVMOpt {
			if c.opt == "" {
				c.opt, err = llvm.OptimizedIR("source.ll", c.llvm, llvm.Options{OptLevel: optLevel})
			}
			return c.opt, err
		}
		if c.as == "" {
			c.as, err = llvm.Assembly("source.ll", c.llvm, llvm.Options{OptLevel: optLevel})
		}
		return c.as, err
	}
	return "", fmt.Errorf("source: a compiled function has no %s stage", s)
}

// sourceText is the declaration of the compiled function and of the
// same-package functions it calls, as written.
func sourceText(u *unit) string {
	var parts []string
	for _, f := range unitFuncs(u) {
		if f.Syntax() == nil {
			continue
		}
		start, end := u.fset.Position(f.Syntax().Pos()), u.fset.Position(f.Syntax().End())
		text := u.src[start.Filename]
		if start.Offset >= 0 && end.Offset <= len(text) && start.Offset < end.Offset {
			// Include the doc comment, if any.
			parts = append(parts, fmt.Sprintf("// %s\n%s", start, text[start.Offset:end.Offset]))
			continue
		}
		var b bytes.Buffer
		format.Node(&b, u.fset, f.Syntax())
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// ssaText prints the function and its same-package callees in go/ssa form.
func ssaText(u *unit) string {
	var b bytes.Buffer
	for _, f := range unitFuncs(u) {
		f.WriteTo(&b)
		b.WriteByte('\n')
	}
	return b.String()
}

// unitFuncs lists u's function and the same-package functions it reaches
// by static calls, the function first.
func unitFuncs(u *unit) []*ssa.Function {
	seen := map[*ssa.Function]bool{u.fn: true}
	list := []*ssa.Function{u.fn}
	for i := 0; i < len(list); i++ {
		var callees []*ssa.Function
		for _, b := range list[i].Blocks {
			for _, in := range b.Instrs {
				if c, ok := in.(ssa.CallInstruction); ok {
					if g := c.Common().StaticCallee(); g != nil && g.Pkg == u.pkg && !seen[g] {
						seen[g] = true
						callees = append(callees, g)
					}
				}
			}
		}
		sort.Slice(callees, func(a, b int) bool { return callees[a].Pos() < callees[b].Pos() })
		list = append(list, callees...)
	}
	return list
}

func types2string(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// envLogSource reports whether GOJIT_LOG names "source" (or "debug").
var envLogSource = sync.OnceValue(func() bool {
	for _, kind := range strings.Split(os.Getenv("GOJIT_LOG"), ",") {
		if k := strings.TrimSpace(kind); k == "source" || k == "debug" {
			return true
		}
	}
	return false
})

var envLogger = sync.OnceValue(func() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
})

// logStages logs every stage of a newly compiled function when GOJIT_LOG
// names source: to WithLogger's logger if given, else to standard error.
func logStages(c *config, n *native) {
	if !envLogSource() {
		return
	}
	l := envLogger()
	if c.logger != slog.Default() {
		l = c.logger
	}
	l.Info("source: compiled", "func", n.name, "how", n.how, "time", n.compileTime)
	for _, s := range []Stage{StageSource, StageSSA, StageLLVM, StageLLVMOpt, StageAsm} {
		text, err := n.code.stage(s)
		if err != nil {
			l.Warn("source: stage", "func", n.name, "stage", s.String(), "err", err)
			continue
		}
		l.Info("source: stage", "func", n.name, "stage", s.String(), "text", text)
	}
}
