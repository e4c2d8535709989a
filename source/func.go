package source

import "strings"

// A Func is a Go function compiled to native code (or, with WithFallback or
// GOJIT_DISABLE_JIT=1, the original Go function behind the same API).
type Func struct {
	name string
	u    *unit
	cfg  *config
	gofn *goFunc // non-nil when the original Go function runs
	nat  *native // the compiled code; nil when gofn runs
}

// CompileFunc compiles fn, an ordinary Go function, from its own source:
// its parameters and results numeric scalars, bool, or (parameters only)
// slices of them, written in place. Functions of the same package it
// calls are compiled with it, math functions give Go's results bit for
// bit, and loops over source.Range run in parallel (see Range). The
// compiled code is cached in memory and on disk, keyed by the source text,
// the types, the host CPU and the LLVM and gojit versions. Without LLVM
// (CGO_ENABLED=0) it returns an error wrapping the LLVM package's
// unavailability, unless WithFallback asks for the Go function instead.
func CompileFunc(fn any, opts ...Option) (*Func, error) {
	c := newConfig(opts)
	if jitDisabled() {
		g := newGoFunc(fn)
		return &Func{name: g.name[strings.LastIndexByte(g.name, '.')+1:], cfg: c, gofn: g}, nil
	}
	u, err := loadFunc(fn, c)
	f, err := compileLoaded(u, err, c)
	if err != nil && c.fallback && u != nil {
		warnFallback(c, u.fn.Name(), err)
		return &Func{name: u.fn.Name(), u: u, cfg: c, gofn: newGoFunc(fn)}, nil
	}
	return f, err
}

// compileLoaded checks and compiles the unit a loader returned (with its
// error, which it passes on).
func compileLoaded(u *unit, err error, c *config) (*Func, error) {
	if err == nil {
		err = check(u)
	}
	if err != nil {
		return nil, err
	}
	nat, err := compileUnit(u, c)
	if err != nil {
		return nil, err
	}
	return &Func{name: u.fn.Name(), u: u, cfg: c, nat: nat}, nil
}

// Compile compiles the function name declared in src, the contents of a Go
// file, for programs that receive code at run time.
func Compile(src, name string, opts ...Option) (*Func, error) {
	c := newConfig(opts)
	u, err := loadSource(src, name, c)
	return compileLoaded(u, err, c)
}

// Call runs f with args (one per parameter, of the parameter's exact type)
// and returns its results. A wrong number or type of arguments is an error
// naming the parameter. Where Go would panic (an index out of range, an
// integer division by zero) Call returns a *RuntimeError at the user's
// line. Call boxes its arguments and results; Bind1..Bind4 and
// Bind1R..Bind3R give calls without reflection or allocation.
func (f *Func) Call(args ...any) ([]any, error) {
	if f.gofn != nil {
		return f.gofn.call(args)
	}
	return f.nat.call(args)
}

// CompileNamed compiles the function name of the package pkg (an import
// path or a directory), as `gojit dump -func pkg.Name` does.
func CompileNamed(pkg, name string, opts ...Option) (*Func, error) {
	c := newConfig(opts)
	u, err := loadNamed(pkg, name, c)
	return compileLoaded(u, err, c)
}
