package source

// The fallback: the original Go function behind the Func API, run through
// reflection, for WithFallback and the debug mode GOJIT_DISABLE_JIT=1.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// ErrPanic is wrapped by the error Call returns when the Go function run by
// the fallback panics.
var ErrPanic = errors.New("panic")

// goFunc runs the original Go function through reflection: the fallback of
// WithFallback and the debug mode GOJIT_DISABLE_JIT=1.
type goFunc struct {
	v    reflect.Value
	name string // runtime name, for errors
}

func newGoFunc(fn any) *goFunc {
	g := &goFunc{v: reflect.ValueOf(fn), name: fmt.Sprintf("%T", fn)}
	if g.v.Kind() == reflect.Func && !g.v.IsNil() {
		if rf := runtime.FuncForPC(g.v.Pointer()); rf != nil {
			g.name = rf.Name()
		}
	}
	return g
}

// call converts and checks args against the function's parameters, calls it
// and returns its results; a panic in the function becomes an error.
//
// An argument must be assignable to its parameter, or be a number that
// converts to the parameter's numeric type without loss (so Call(2) works
// for a float64 parameter, and Call(300) is refused for a uint8 one); nil
// stands for a nil slice.
func (g *goFunc) call(args []any) (res []any, err error) {
	if !g.v.IsValid() || g.v.Kind() != reflect.Func || g.v.IsNil() {
		return nil, fmt.Errorf("source: %s is not a function", g.name)
	}
	t := g.v.Type()
	n := t.NumIn()
	if t.IsVariadic() {
		if len(args) < n-1 {
			return nil, fmt.Errorf("source: %s takes at least %d arguments, got %d", g.name, n-1, len(args))
		}
	} else if len(args) != n {
		return nil, fmt.Errorf("source: %s takes %d argument%s, got %d", g.name, n, plural(n), len(args))
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		pt := paramType(t, i)
		v, err := convertArg(a, pt)
		if err != nil {
			return nil, fmt.Errorf("source: %s: argument %d (parameter type %s): %w", g.name, i+1, pt, err)
		}
		in[i] = v
	}
	defer func() {
		if r := recover(); r != nil {
			res = nil
			if e, ok := r.(error); ok {
				err = fmt.Errorf("source: %s: %w: %w", g.name, ErrPanic, e)
			} else {
				err = fmt.Errorf("source: %s: %w: %v", g.name, ErrPanic, r)
			}
		}
	}()
	out := g.v.Call(in)
	res = make([]any, len(out))
	for i, o := range out {
		res[i] = o.Interface()
	}
	return res, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// paramType is the type the i'th argument must have (the element type for
// the variadic part).
func paramType(t reflect.Type, i int) reflect.Type {
	if t.IsVariadic() && i >= t.NumIn()-1 {
		return t.In(t.NumIn() - 1).Elem()
	}
	return t.In(i)
}

// convertArg returns a as a value of type pt, or why it cannot be one.
func convertArg(a any, pt reflect.Type) (reflect.Value, error) {
	if a == nil {
		switch pt.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan:
			return reflect.Zero(pt), nil
		}
		return reflect.Value{}, fmt.Errorf("got nil")
	}
	v := reflect.ValueOf(a)
	if v.Type().AssignableTo(pt) {
		if pt.Kind() == reflect.Interface {
			return v.Convert(pt), nil
		}
		return v, nil
	}
	if isNumber(v.Kind()) && isNumber(pt.Kind()) {
		c := v.Convert(pt)
		if c.Convert(v.Type()).Equal(v) || bothNaN(v, c) {
			if signChanged(v, c) {
				return reflect.Value{}, fmt.Errorf("%s %v does not fit", v.Type(), a)
			}
			return c, nil
		}
		return reflect.Value{}, fmt.Errorf("%s %v does not convert exactly", v.Type(), a)
	}
	return reflect.Value{}, fmt.Errorf("got %s", v.Type())
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

func bothNaN(a, b reflect.Value) bool {
	return a.CanFloat() && b.CanFloat() && math.IsNaN(a.Float()) && math.IsNaN(b.Float())
}

// signChanged catches round trips that hide a change of sign, as int8(-1)
// through uint64.
func signChanged(a, b reflect.Value) bool {
	neg := func(v reflect.Value) bool {
		switch {
		case v.CanInt():
			return v.Int() < 0
		case v.CanFloat():
			return v.Float() < 0
		}
		return false
	}
	return neg(a) != neg(b)
}

// jitDisabled reports whether GOJIT_DISABLE_JIT (1 or true, any case) asks
// to run Go functions (and interpret formulas) instead of compiling them.
func jitDisabled() bool {
	v := strings.TrimSpace(os.Getenv("GOJIT_DISABLE_JIT"))
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// warned records the functions warnFallback has warned about. A function is
// named by its name and the error, so two functions of the same short name
// that fail differently are each reported once.
var warned sync.Map

// warnFallback logs, once per function, that name runs as plain Go because
// of err.
func warnFallback(c *config, name string, err error) {
	key := name + "\x00" + err.Error()
	if _, dup := warned.LoadOrStore(key, true); dup {
		return
	}
	c.logger.Warn("source: running the Go function instead of compiled code", "func", name, "err", err)
}
