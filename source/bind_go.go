package source

import (
	"fmt"
	"reflect"
)

// bindGo binds the Go function behind f (WithFallback, GOJIT_DISABLE_JIT)
// to a func of type ft, so that code using Bind runs unchanged in debug
// mode. ft has the Go function's parameter and result types followed by an
// error, which carries a panic of the function (wrapping ErrPanic), as
// Call does. Calls go through reflection and allocate: this path is for
// debugging and fallback, not speed.
func bindGo(f *Func, ft reflect.Type) (reflect.Value, error) {
	g := f.gofn
	gt := g.v.Type()
	errType := reflect.TypeFor[error]()
	if ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != errType {
		return reflect.Value{}, fmt.Errorf("source: Bind: the func type %s must end its results with error", ft)
	}
	if gt.IsVariadic() || gt.NumIn() != ft.NumIn() || gt.NumOut() != ft.NumOut()-1 {
		return reflect.Value{}, fmt.Errorf("source: Bind: %s is %s, which does not match the func type %s (its results plus error)", f.name, gt, ft)
	}
	for i := range gt.NumIn() {
		if gt.In(i) != ft.In(i) {
			return reflect.Value{}, fmt.Errorf("source: Bind: parameter %d of %s is %s, the func type has %s", i+1, f.name, gt.In(i), ft.In(i))
		}
	}
	for i := range gt.NumOut() {
		if gt.Out(i) != ft.Out(i) {
			return reflect.Value{}, fmt.Errorf("source: Bind: result %d of %s is %s, the func type has %s", i+1, f.name, gt.Out(i), ft.Out(i))
		}
	}
	return reflect.MakeFunc(ft, func(in []reflect.Value) (out []reflect.Value) {
		out = make([]reflect.Value, ft.NumOut())
		for i := range out {
			out[i] = reflect.Zero(ft.Out(i))
		}
		defer func() {
			if r := recover(); r != nil {
				for i := range out {
					out[i] = reflect.Zero(ft.Out(i))
				}
				var err error
				if e, ok := r.(error); ok {
					err = fmt.Errorf("source: %s: %w: %w", f.name, ErrPanic, e)
				} else {
					err = fmt.Errorf("source: %s: %w: %v", f.name, ErrPanic, r)
				}
				out[len(out)-1] = reflect.ValueOf(&err).Elem()
			}
		}()
		copy(out, g.v.Call(in))
		return out
	}), nil
}

// bindGoTyped sets *fn to the Go function behind f, for the generic BindN.
func bindGoTyped[F any](f *Func, fn *F) error {
	v, err := bindGo(f, reflect.TypeFor[F]())
	if err != nil {
		return err
	}
	*fn = v.Interface().(F)
	return nil
}
