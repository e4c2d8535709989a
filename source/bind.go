package source

import (
	"fmt"
	"go/types"
	"reflect"
	"runtime"
	"unsafe"
)

// Typed bindings. Call takes and returns []any, which costs an allocation
// or more per call; a bound function is an ordinary Go func value of the
// compiled function's own parameter types plus a trailing error result:
//
//	func Saxpy(a float32, x, y []float32)          // the Go function
//	var saxpy func(float32, []float32, []float32) error
//	source.Bind3(f, &saxpy)                         // or Bind(f, &saxpy)
//
// The error reports what Go would have panicked with (a *RuntimeError: an
// index out of range, a division by zero) at the user's file:line; the
// results of a call that returns an error are zero.
//
// Bind1..Bind4 (no results) and Bind1R..Bind3R (one result) are generic:
// their call path has no reflection and no allocation. Bind accepts any
// signature through reflect.MakeFunc, which allocates on every call.
//
// A Func that runs the Go function (WithFallback, GOJIT_DISABLE_JIT=1)
// binds too, through reflection: a bound call runs the Go function, and a
// panic in it comes back as the error (wrapping ErrPanic).

// maxBindWords bounds the frame of a generically bound function (it lives
// on the caller's stack).
const maxBindWords = 40

type frameBuf [maxBindWords]uint64

// binder checks f against the Go types of a binding and returns its
// native code.
func binder(f *Func, params []reflect.Type, results []reflect.Type) (*native, error) {
	if f == nil {
		return nil, fmt.Errorf("source: Bind of a nil *Func")
	}
	if f.nat == nil {
		return nil, fmt.Errorf("source: Bind: %s has no compiled code", f.name)
	}
	n := f.nat
	if n.words > maxBindWords {
		return nil, fmt.Errorf("source: Bind: %s has too many parameters for a typed binding", n.name)
	}
	if len(params) != len(n.params) {
		return nil, fmt.Errorf("source: Bind: %s takes %d parameters, the func type has %d", n.name, len(n.params), len(params))
	}
	if len(results) != len(n.results) {
		return nil, fmt.Errorf("source: Bind: %s returns %d results (plus the error), the func type has %d", n.name, len(n.results), len(results))
	}
	for i, t := range params {
		if !kindMatches(n.params[i], t) {
			return nil, fmt.Errorf("source: Bind: parameter %d (%s) of %s is %s, the func type has %s", i+1, n.pnames[i], n.name, n.ptypes[i], t)
		}
	}
	for i, t := range results {
		if !kindMatches(n.results[i], t) {
			return nil, fmt.Errorf("source: Bind: result %d of %s is not %s", i+1, n.name, t)
		}
	}
	return n, nil
}

// kindMatches reports whether values of Go type t have the frame
// representation of k.
func kindMatches(k pkind, t reflect.Type) bool {
	if k.slice {
		if t.Kind() != reflect.Slice {
			return false
		}
		t = t.Elem()
	}
	return t.Kind() == basicGoType(k.elem).Kind()
}

func basicGoType(k types.BasicKind) reflect.Type {
	return reflect.TypeOf(getResult(0, k))
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// put stores a at frame word i: scalars are stored in their own size (the
// kernel reads only those bytes), slices as the three words of their
// header, which is the frame's layout for a slice.
func put[T any](fr *frameBuf, i int, a T) {
	*(*T)(unsafe.Pointer(&fr[i])) = a
}

func get[T any](fr *frameBuf, i int) T {
	return *(*T)(unsafe.Pointer(&fr[i]))
}

// runBound calls the kernel on fr.
func (n *native) runBound(fr *frameBuf) error {
	err := n.run(fr[:n.words])
	return err
}

// Bind1 binds f, a compiled func(A), to *fn.
func Bind1[A any](f *Func, fn *func(A) error) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A]()}, nil)
	if err != nil {
		return err
	}
	s := n.pslots
	*fn = func(a A) error {
		var fr frameBuf
		put(&fr, s[0], a)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		return err
	}
	return nil
}

// Bind2 binds f, a compiled func(A, B), to *fn.
func Bind2[A, B any](f *Func, fn *func(A, B) error) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A](), typeOf[B]()}, nil)
	if err != nil {
		return err
	}
	s := n.pslots
	*fn = func(a A, b B) error {
		var fr frameBuf
		put(&fr, s[0], a)
		put(&fr, s[1], b)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		return err
	}
	return nil
}

// Bind3 binds f, a compiled func(A, B, C), to *fn.
func Bind3[A, B, C any](f *Func, fn *func(A, B, C) error) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C]()}, nil)
	if err != nil {
		return err
	}
	s := n.pslots
	*fn = func(a A, b B, c C) error {
		var fr frameBuf
		put(&fr, s[0], a)
		put(&fr, s[1], b)
		put(&fr, s[2], c)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		runtime.KeepAlive(c)
		return err
	}
	return nil
}

// Bind4 binds f, a compiled func(A, B, C, D), to *fn.
func Bind4[A, B, C, D any](f *Func, fn *func(A, B, C, D) error) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C](), typeOf[D]()}, nil)
	if err != nil {
		return err
	}
	s := n.pslots
	*fn = func(a A, b B, c C, d D) error {
		var fr frameBuf
		put(&fr, s[0], a)
		put(&fr, s[1], b)
		put(&fr, s[2], c)
		put(&fr, s[3], d)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		runtime.KeepAlive(c)
		runtime.KeepAlive(d)
		return err
	}
	return nil
}

// Bind1R binds f, a compiled func(A) R, to *fn.
func Bind1R[A, R any](f *Func, fn *func(A) (R, error)) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A]()}, []reflect.Type{typeOf[R]()})
	if err != nil {
		return err
	}
	s, r := n.pslots, n.rslots[0]
	*fn = func(a A) (R, error) {
		var fr frameBuf
		put(&fr, s[0], a)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		if err != nil {
			var zero R
			return zero, err
		}
		return get[R](&fr, r), nil
	}
	return nil
}

// Bind2R binds f, a compiled func(A, B) R, to *fn.
func Bind2R[A, B, R any](f *Func, fn *func(A, B) (R, error)) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A](), typeOf[B]()}, []reflect.Type{typeOf[R]()})
	if err != nil {
		return err
	}
	s, r := n.pslots, n.rslots[0]
	*fn = func(a A, b B) (R, error) {
		var fr frameBuf
		put(&fr, s[0], a)
		put(&fr, s[1], b)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		if err != nil {
			var zero R
			return zero, err
		}
		return get[R](&fr, r), nil
	}
	return nil
}

// Bind3R binds f, a compiled func(A, B, C) R, to *fn.
func Bind3R[A, B, C, R any](f *Func, fn *func(A, B, C) (R, error)) error {
	if f != nil && f.gofn != nil {
		return bindGoTyped(f, fn)
	}
	n, err := binder(f, []reflect.Type{typeOf[A](), typeOf[B](), typeOf[C]()}, []reflect.Type{typeOf[R]()})
	if err != nil {
		return err
	}
	s, r := n.pslots, n.rslots[0]
	*fn = func(a A, b B, c C) (R, error) {
		var fr frameBuf
		put(&fr, s[0], a)
		put(&fr, s[1], b)
		put(&fr, s[2], c)
		err := n.runBound(&fr)
		runtime.KeepAlive(a)
		runtime.KeepAlive(b)
		runtime.KeepAlive(c)
		if err != nil {
			var zero R
			return zero, err
		}
		return get[R](&fr, r), nil
	}
	return nil
}

// Bind binds f to *fnPtr, a variable of func type with f's parameter types
// and f's results followed by an error. It accepts any signature by way of
// reflect.MakeFunc, whose calls allocate; the generic Bind1..Bind4 and
// Bind1R..Bind3R bind without reflection or allocation per call.
func Bind(f *Func, fnPtr any) error {
	pv := reflect.ValueOf(fnPtr)
	if pv.Kind() != reflect.Pointer || pv.IsNil() || pv.Elem().Kind() != reflect.Func {
		return fmt.Errorf("source: Bind needs a non-nil pointer to a func variable, got %T", fnPtr)
	}
	ft := pv.Elem().Type()
	errType := reflect.TypeFor[error]()
	if ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != errType {
		return fmt.Errorf("source: Bind: the func type %s must end its results with error (it reports index and division errors)", ft)
	}
	var params, results []reflect.Type
	for i := range ft.NumIn() {
		params = append(params, ft.In(i))
	}
	for i := range ft.NumOut() - 1 {
		results = append(results, ft.Out(i))
	}
	if f != nil && f.gofn != nil {
		v, err := bindGo(f, ft)
		if err != nil {
			return err
		}
		pv.Elem().Set(v)
		return nil
	}
	n, err := binder(f, params, results)
	if err != nil {
		return err
	}
	pv.Elem().Set(reflect.MakeFunc(ft, func(in []reflect.Value) []reflect.Value {
		out := make([]reflect.Value, ft.NumOut())
		for i := range results {
			out[i] = reflect.Zero(results[i])
		}
		out[len(out)-1] = reflect.Zero(errType)
		frame := make([]uint64, n.words)
		for i, a := range in {
			w := frame[n.pslots[i]:]
			if a.Kind() == reflect.Slice {
				w[0], w[1], w[2] = uint64(a.Pointer()), uint64(a.Len()), uint64(a.Cap())
				continue
			}
			w[0], _ = scalarBits(n.params[i].elem, a.Convert(basicGoType(n.params[i].elem)).Interface())
		}
		err := n.run(frame)
		runtime.KeepAlive(in)
		if err != nil {
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
			return out
		}
		for i, k := range n.results {
			out[i] = reflect.ValueOf(getResult(frame[n.rslots[i]], k.elem)).Convert(results[i])
		}
		return out
	}))
	return nil
}
