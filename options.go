package gojit

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/passes"

	"github.com/gojit/gojit/internal/runtime"
)

// Option configures Compile.
type Option func(*config)

type config struct {
	interpret bool
	optLevel  int
	logger    *slog.Logger
	fastMath  bool
	dynamic   []dynDim
	threads   int
	passes    passes.Options
	// err is an invalid option's error, returned by Compile.
	err error
	// recompileLimit is how many signatures a Func traces before it
	// warns; <= 0 never warns.
	recompileLimit int
	// backend overrides the modules' backend level (runtime.Options.Backend);
	// only tests set it (export_test.go).
	backend int
}

// DefaultRecompileLimit is how many signatures a Func may trace before it
// logs a warning naming what varies between them.
const DefaultRecompileLimit = 8

func defaultConfig() config {
	return config{optLevel: 3, interpret: envDisableJIT(), recompileLimit: DefaultRecompileLimit}
}

// WithInterpreter runs the function in gojit's pure-Go interpreter instead
// of compiling it: slower, but useful for debugging and as a reference.
// Builds without LLVM (CGO_ENABLED=0 or the nollvm tag) always interpret,
// and so does every Func when GOJIT_DISABLE_JIT=1 is set.
func WithInterpreter() Option { return func(c *config) { c.interpret = true } }

// WithOptLevel sets LLVM's optimization level, 0 to 3 (default 3). O0
// compiles fastest and is easiest to read in Lower's output; O2 and O3
// vectorize. The level is part of the kernel's signature. Other levels
// make Compile fail.
func WithOptLevel(level int) Option {
	return func(c *config) {
		if level < 0 || level > 3 {
			c.fail("WithOptLevel: level %d is not 0, 1, 2 or 3", level)
			return
		}
		c.optLevel = level
	}
}

// fail records an invalid option's error for Compile to return; the first
// one wins.
func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("gojit: "+format, args...)
	}
}

// WithFastMath lets LLVM treat floating point as real arithmetic:
// reassociate sums, contract multiply-adds, use approximate functions and
// assume no NaN, infinity or signed zero occurs. It can be faster; results
// then differ from the interpreter's by rounding and are undefined for
// inputs or intermediates that are NaN or infinite. The default is
// IEEE-exact code. Fast-math kernels have their own signatures.
func WithFastMath() Option { return func(c *config) { c.fastMath = true } }

// WithThreads caps how many threads the Func's large loop nests are split
// across (n <= 0: the process-wide setting, see SetThreads). Loops that
// visit fewer than about 65,536 elements always run on the calling
// goroutine, where handing work to another core costs more than it saves.
// The thread count does not change the compiled code.
func WithThreads(n int) Option { return func(c *config) { c.threads = max(n, 0) } }

// SetThreads sets how many threads any Func's large loop nests may be split
// across, process-wide: n <= 0 restores the default, GOMAXPROCS when gojit
// first runs a loop. It returns the previous setting (0 for the default).
// Loops run on a pool of goroutines that spin briefly before parking,
// because waking a parked goroutine costs more than a small loop.
func SetThreads(n int) int { return runtime.SetThreads(n) }

// WithPassDump writes the graph after each named optimizer pass (every
// pass if none is named) to w, each time the Func traces a new signature:
// the library form of `gojit dump -pass NAME`. Pass names are those of
// `gojit dump -passes`: fold, simplify, cse, hoist and dce. Writes to w are
// serialized.
func WithPassDump(w io.Writer, names ...string) Option {
	return func(c *config) {
		if w == nil {
			c.fail("WithPassDump: nil io.Writer")
			return
		}
		want := map[string]bool{}
		for _, n := range names {
			if _, ok := passes.Lookup(n); !ok {
				c.fail("WithPassDump: unknown pass %q (passes: %s)", n, strings.Join(passes.Names(), ", "))
				return
			}
			want[n] = true
		}
		var mu sync.Mutex
		c.passes.Observe = func(p passes.Pass, g *ir.Graph, took time.Duration) {
			if len(want) > 0 && !want[p.Name] {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "== after %s (%v) ==\n%s\n", p.Name, took.Round(time.Microsecond), ir.Print(g, true))
		}
	}
}

// WithVerify checks the graph's invariants (ir.Verify) after every
// optimizer pass, so a pass that breaks the graph is named in the error
// instead of the damage surfacing later. It is a debugging aid; gojit's
// own tests always verify.
func WithVerify() Option { return func(c *config) { c.passes.Verify = true } }

// WithRecompileLimit sets how many signatures the Func may trace before it
// logs a warning (once) naming the arguments whose shapes, dtypes or static
// values keep changing. Zero or less disables the warning. The default is
// DefaultRecompileLimit.
func WithRecompileLimit(n int) Option { return func(c *config) { c.recompileLimit = n } }

// WithLogger sends the Func's cache events to logger: each cache miss with
// its reason at info level, compiles and their durations at debug level,
// and recompile warnings. Without it they go to the GOJIT_LOG=cache logger
// if that is set (warnings to slog.Default() otherwise). A nil logger makes
// Compile fail.
func WithLogger(logger *slog.Logger) Option {
	return func(c *config) {
		if logger == nil {
			c.fail("WithLogger: nil *slog.Logger")
			return
		}
		c.logger = logger
	}
}
