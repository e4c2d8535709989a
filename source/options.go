package source

import "log/slog"

// An Option changes how a function or formula is compiled.
type Option func(*config)

type config struct {
	fallback bool         // run the original Go function when compiling fails
	logger   *slog.Logger // nil: slog.Default()
	threads  int          // 0: the engine's default worker count
	noCache  bool         // skip the memory and disk caches
	filename string       // Compile: the file name in positions ("" means "<source>")
}

// WithFallback makes CompileFunc return a Func that runs the original Go
// function, with one warning logged, when the function cannot be compiled
// (unsupported constructs, or no LLVM on this machine), instead of an error.
func WithFallback() Option { return func(c *config) { c.fallback = true } }

// WithLogger sends the package's log records (warnings, GOJIT_LOG=source
// stage dumps) to l instead of slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithThreads sets how many threads parallel loops and formulas may use
// (0 or less: the engine's default).
func WithThreads(n int) Option { return func(c *config) { c.threads = n } }

// WithoutCache compiles afresh, bypassing the memory and disk caches.
func WithoutCache() Option { return func(c *config) { c.noCache = true } }

// WithFilename names the source text given to Compile in positions and
// error messages (by default "<source>").
func WithFilename(name string) Option { return func(c *config) { c.filename = name } }

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c
}
