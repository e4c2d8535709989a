package source

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/gojit/gojit"
)

// A Formula is a Go expression over named columns, compiled into one
// fused, vectorized, multi-threaded kernel by the tensor engine. It is
// safe for concurrent use.
type Formula struct {
	src    string
	cols   []string      // the columns used, in order of first use
	dtypes []gojit.DType // their dtypes, from the schema
	dt     gojit.DType   // the result's dtype
	fn     *gojit.Func   // one *Tensor parameter per column, dynamic rows
	cfg    *config

	bufs sync.Pool // *formulaCall: argument slices reused by EvalInto

	lowerMu sync.Mutex
	lowered *gojit.Lowered // Code's stages, made on first request
}

// formulaCall holds one EvalInto's argument slices, so that the steady
// state allocates nothing.
type formulaCall struct {
	args []any
	outs []*gojit.Array
	// oneDim remembers the arrays last found one-dimensional (columns,
	// then the result): Array.Shape allocates a copy, and an Array's
	// shape never changes, so a repeated call skips the check.
	oneDim []*gojit.Array
}

// ErrColumns is wrapped by the errors Eval and EvalInto return for columns
// that do not fit the formula: missing, nil, of the wrong dtype or rank, or
// of different lengths. The message names the column.
var ErrColumns = errors.New("bad formula columns")

// CompileFormula compiles expr, a Go expression over the columns of
// schema (column name to dtype), into a Formula. See docs/formulas.md for
// the syntax: arithmetic, comparisons, &&, ||, !, conversions, math
// functions, min, max and where(cond, a, b), type-checked with Go's rules.
//
// Problems in expr are returned as an *Error listing every one with its
// position (file "formula", line 1, column N) and a caret. The kernel is
// compiled before CompileFormula returns (or taken from gojit's memory or
// disk cache, which a formula with the same text and column dtypes hits).
func CompileFormula(expr string, schema map[string]gojit.DType, opts ...Option) (f *Formula, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("source: CompileFormula(%q): internal error: %v\n%s", expr, r, debug.Stack())
		}
	}()
	cfg := newConfig(opts)
	e, cols, err := parseFormula(expr, schema)
	if err != nil {
		return nil, err
	}
	f = &Formula{src: expr, cols: cols, dt: e.typ, cfg: cfg}
	for _, name := range cols {
		f.dtypes = append(f.dtypes, schema[name])
	}
	if f.fn, err = compileFormulaFunc(e, len(cols), cfg); err != nil {
		return nil, fmt.Errorf("source: formula %q: %w", expr, err)
	}
	n := len(cols)
	f.bufs.New = func() any {
		return &formulaCall{args: make([]any, n), outs: make([]*gojit.Array, 1), oneDim: make([]*gojit.Array, n+1)}
	}
	if err := f.warm(); err != nil {
		return nil, fmt.Errorf("source: formula %q: %w", expr, err)
	}
	if formulaLogEnabled() {
		f.logStages()
	}
	return f, nil
}

// compileFormulaFunc wraps the lowering of e in a gojit function of n
// *Tensor parameters (one per column, each with a dynamic length, so one
// kernel serves every row count).
func compileFormulaFunc(e *fExpr, n int, cfg *config) (*gojit.Func, error) {
	tensorT := reflect.TypeFor[*gojit.Tensor]()
	in := make([]reflect.Type, n)
	for i := range in {
		in[i] = tensorT
	}
	ft := reflect.FuncOf(in, []reflect.Type{tensorT, reflect.TypeFor[error]()}, false)
	fn := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		cols := make([]*gojit.Tensor, len(args))
		for i, a := range args {
			cols[i] = a.Interface().(*gojit.Tensor)
		}
		t, err := lowerFormula(e, cols)
		return []reflect.Value{reflect.ValueOf(t), reflect.ValueOf(&err).Elem()}
	})
	opts := []gojit.Option{gojit.WithThreads(cfg.threads)}
	for i := range n {
		opts = append(opts, gojit.WithDynamicDim(i, 0))
	}
	return gojit.Compile(fn.Interface(), opts...)
}

// warm traces and compiles the kernel by evaluating the formula on one row
// of zeros.
func (f *Formula) warm() error {
	cols := make(map[string]*gojit.Array, len(f.cols))
	for i, name := range f.cols {
		cols[name] = gojit.New(f.dtypes[i], 1)
	}
	_, err := f.Eval(cols)
	return err
}

// Columns returns the names of the columns the formula uses, in the order
// they first appear in it.
func (f *Formula) Columns() []string { return append([]string(nil), f.cols...) }

// DType returns the dtype of the formula's result (Bool for a comparison).
func (f *Formula) DType() gojit.DType { return f.dt }

// String returns the formula's text.
func (f *Formula) String() string { return f.src }

// Eval evaluates the formula on cols, one-dimensional arrays of equal
// length keyed by column name, and returns a new array of the result's
// dtype with one element per row. Columns the formula does not use are
// ignored, so one map can serve several formulas.
func (f *Formula) Eval(cols map[string]*gojit.Array) (*gojit.Array, error) {
	n, err := f.rows(cols, nil)
	if err != nil {
		return nil, err
	}
	out := gojit.New(f.dt, n)
	if err := f.EvalInto(out, cols); err != nil {
		return nil, err
	}
	return out, nil
}

// EvalInto is Eval writing into dst, which must have the result's dtype
// and one element per row. It allocates nothing once the formula has run
// (with any row count). dst may be one of the columns (an in-place
// update).
func (f *Formula) EvalInto(dst *gojit.Array, cols map[string]*gojit.Array) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("source: formula %q: internal error: %v", f.src, r)
		}
	}()
	call := f.bufs.Get().(*formulaCall)
	n, err := f.rows(cols, call.oneDim)
	if err == nil && !f.fits(dst, n, &call.oneDim[len(f.cols)]) {
		err = fmt.Errorf("source: formula %q: %w: result array is %s, want %s[%d]", f.src, ErrColumns, fDescribeArray(dst), f.dt, n)
	}
	if err != nil || n == 0 {
		f.bufs.Put(call)
		return err
	}
	for i, name := range f.cols {
		call.args[i] = cols[name]
	}
	call.outs[0] = dst
	err = f.fn.CallInto(call.outs, call.args...)
	clear(call.args)
	call.outs[0] = nil
	f.bufs.Put(call)
	if err != nil {
		return fmt.Errorf("source: formula %q: %w", f.src, err)
	}
	return nil
}

// fits reports whether dst can hold the result of n rows; *known is an
// array already found one-dimensional, and becomes dst if it is.
func (f *Formula) fits(dst *gojit.Array, n int, known **gojit.Array) bool {
	if dst == nil || dst.Err() != nil || dst.DType() != f.dt || dst.Size() != n {
		return false
	}
	if *known != dst {
		if len(dst.Shape()) != 1 {
			return false
		}
		*known = dst
	}
	return true
}

// rows checks cols against the formula's columns and returns the row
// count. oneDim, if not nil, holds per column an array already found
// one-dimensional, and is updated.
func (f *Formula) rows(cols map[string]*gojit.Array, oneDim []*gojit.Array) (int, error) {
	n := -1
	first := ""
	for i, name := range f.cols {
		a, ok := cols[name]
		switch {
		case !ok:
			return 0, fmt.Errorf("source: formula %q: %w: column %s is missing", f.src, ErrColumns, name)
		case a == nil:
			return 0, fmt.Errorf("source: formula %q: %w: column %s is a nil array", f.src, ErrColumns, name)
		case a.Err() != nil:
			return 0, fmt.Errorf("source: formula %q: %w: column %s: %v", f.src, ErrColumns, name, a.Err())
		case a.DType() != f.dtypes[i]:
			return 0, fmt.Errorf("source: formula %q: %w: column %s has dtype %s, want %s", f.src, ErrColumns, name, a.DType(), f.dtypes[i])
		case (oneDim == nil || oneDim[i] != a) && len(a.Shape()) != 1:
			return 0, fmt.Errorf("source: formula %q: %w: column %s has shape %v, want one dimension", f.src, ErrColumns, name, a.Shape())
		}
		if oneDim != nil {
			oneDim[i] = a
		}
		if n < 0 {
			n, first = a.Size(), name
		} else if a.Size() != n {
			return 0, fmt.Errorf("source: formula %q: %w: column %s has %d rows, column %s has %d", f.src, ErrColumns, name, a.Size(), first, n)
		}
	}
	return n, nil
}

func fDescribeArray(a *gojit.Array) string {
	switch {
	case a == nil:
		return "nil"
	case a.Err() != nil:
		return a.Err().Error()
	}
	return fmt.Sprintf("%s%v", a.DType(), a.Shape())
}

// Code returns the formula's text at stage s: StageSource (the formula),
// StageIR (gojit's tensor IR as traced, then after the graph passes with
// its fusion plan), StageLLVM, StageLLVMOpt and StageAsm. Formulas have no
// StageSSA; the LLVM stages are errors when the formula runs in the
// interpreter (GOJIT_DISABLE_JIT=1, or a build without LLVM).
func (f *Formula) Code(s Stage) (string, error) {
	switch s {
	case StageSource:
		return f.src, nil
	case StageSSA:
		return "", fmt.Errorf("source: formula %q: formulas have no %s stage (they are lowered to gojit's tensor IR)", f.src, s)
	case StageIR, StageLLVM, StageLLVMOpt, StageAsm:
	default:
		return "", fmt.Errorf("source: formula %q: unknown stage %d", f.src, int(s))
	}
	l, err := f.lower()
	if err != nil {
		return "", err
	}
	var text string
	switch s {
	case StageIR:
		return "; traced\n" + l.Traced + "\n; after the graph passes, with the fusion plan\n" + l.Fused, nil
	case StageLLVM:
		text = l.LLVM
	case StageLLVMOpt:
		text = l.Optimized
	case StageAsm:
		text = l.Assembly
	}
	if text == "" {
		return "", fmt.Errorf("source: formula %q: no %s stage: the formula runs in gojit's interpreter (GOJIT_DISABLE_JIT, or a build without LLVM)", f.src, s)
	}
	return text, nil
}

// lower returns (and keeps) every stage's text from gojit's Lower.
func (f *Formula) lower() (*gojit.Lowered, error) {
	f.lowerMu.Lock()
	defer f.lowerMu.Unlock()
	if f.lowered != nil {
		return f.lowered, nil
	}
	args := make([]any, len(f.cols))
	for i, dt := range f.dtypes {
		args[i] = gojit.New(dt, 1)
	}
	l, err := f.fn.Lower(args...)
	if err != nil {
		return nil, fmt.Errorf("source: formula %q: %w", f.src, err)
	}
	f.lowered = l
	return l, nil
}

// formulaLogEnabled reports whether GOJIT_LOG names "source".
func formulaLogEnabled() bool {
	for _, k := range strings.Split(os.Getenv(gojit.EnvLog), ",") {
		if strings.TrimSpace(k) == "source" {
			return true
		}
	}
	return false
}

// logStages logs every stage of a newly compiled formula (GOJIT_LOG=source).
func (f *Formula) logStages() {
	for _, s := range []Stage{StageSource, StageIR, StageLLVM, StageLLVMOpt, StageAsm} {
		text, err := f.Code(s)
		if err != nil {
			f.cfg.logger.Info("source: formula stage unavailable", "formula", f.src, "stage", s.String(), "err", err)
			continue
		}
		f.cfg.logger.Info("source: formula", "formula", f.src, "stage", s.String(), "code", text)
	}
}
