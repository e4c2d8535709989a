package gojit

import "log/slog"

// Option configures Compile.
type Option func(*config)

type config struct {
	interpret bool
	optLevel  int
	logger    *slog.Logger
}

func defaultConfig() config { return config{optLevel: 3} }

// WithInterpreter runs the function in gojit's pure-Go interpreter instead
// of compiling it: slower, but useful for debugging and as a reference.
// Builds without LLVM (CGO_ENABLED=0 or the nollvm tag) always interpret.
func WithInterpreter() Option { return func(c *config) { c.interpret = true } }

// WithOptLevel sets LLVM's optimization level, 0 to 3 (default 3).
func WithOptLevel(level int) Option {
	return func(c *config) { c.optLevel = min(max(level, 0), 3) }
}

// WithLogger sends compile events (traces, compiles, their durations) to
// logger at debug level.
func WithLogger(logger *slog.Logger) Option { return func(c *config) { c.logger = logger } }
