package source

// STUB (to be replaced by the loader/checker work).

import (
	"errors"
	"os"
	"reflect"
)

// goFunc runs the original Go function through reflection: the fallback of
// WithFallback and the debug mode GOJIT_DISABLE_JIT=1.
type goFunc struct{ v reflect.Value }

func newGoFunc(fn any) *goFunc { return &goFunc{v: reflect.ValueOf(fn)} }

// call converts and checks args against the function's parameters, calls it
// and returns its results; a panic in the function becomes an error.
func (g *goFunc) call(args []any) ([]any, error) {
	return nil, errors.New("source: running the Go function: not implemented yet")
}

// jitDisabled reports whether GOJIT_DISABLE_JIT asks to run Go functions
// (and interpret formulas) instead of compiling them.
func jitDisabled() bool { return os.Getenv("GOJIT_DISABLE_JIT") == "1" }

// warnFallback logs, once per function, that name runs as plain Go because
// of err.
func warnFallback(c *config, name string, err error) {
	c.logger.Warn("source: running the Go function instead of compiled code", "func", name, "err", err)
}
