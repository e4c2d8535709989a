package source

// A Func is a Go function compiled to native code (or, with WithFallback or
// GOJIT_DISABLE_JIT=1, the original Go function behind the same API).
type Func struct {
	name string
	u    *unit
	cfg  *config
	gofn *goFunc // non-nil when the original Go function runs
	nat  *native // the compiled code; nil when gofn runs
}

// CompileFunc compiles fn, an ordinary Go function, from its own source.
func CompileFunc(fn any, opts ...Option) (*Func, error) {
	c := newConfig(opts)
	if jitDisabled() {
		return &Func{name: "fn", cfg: c, gofn: newGoFunc(fn)}, nil
	}
	u, err := loadFunc(fn, c)
	if err == nil {
		err = check(u)
	}
	var nat *native
	if err == nil {
		nat, err = compileUnit(u, c)
	}
	if err != nil {
		if c.fallback && u != nil {
			warnFallback(c, u.fn.Name(), err)
			return &Func{name: u.fn.Name(), u: u, cfg: c, gofn: newGoFunc(fn)}, nil
		}
		return nil, err
	}
	return &Func{name: u.fn.Name(), u: u, cfg: c, nat: nat}, nil
}

// Compile compiles the function name declared in src, the contents of a Go
// file, for programs that receive code at run time.
func Compile(src, name string, opts ...Option) (*Func, error) {
	c := newConfig(opts)
	u, err := loadSource(src, name, c)
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
	return &Func{name: name, u: u, cfg: c, nat: nat}, nil
}

// Call runs f with args (one per parameter, of the parameter's exact type)
// and returns its results.
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
	return &Func{name: name, u: u, cfg: c, nat: nat}, nil
}
