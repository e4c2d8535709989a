package lazy

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/lazycore"
)

// Every method of gojit.Tensor exists on lazy.Tensor with the same
// parameters (*gojit.Tensor read as *lazy.Tensor); the only exception
// allowed is an op taking Go callbacks, which genops lists with why.
func TestMethodSetCoversGojitTensor(t *testing.T) {
	gt, lt := reflect.TypeFor[*gojit.Tensor](), reflect.TypeFor[*Tensor]()
	lazyOf := func(x reflect.Type) reflect.Type {
		switch x {
		case gt:
			return lt
		case reflect.TypeFor[[]*gojit.Tensor]():
			return reflect.TypeFor[[]*Tensor]()
		}
		return x
	}
	for i := range gt.NumMethod() {
		m := gt.Method(i)
		if why, ok := unwrapped[m.Name]; ok {
			// Only ops that take Go callbacks (control flow, whose
			// functions trace regions) may be missing, and they are
			// listed with the reason.
			if !strings.HasPrefix(why, "callback parameter") {
				t.Errorf("gojit.Tensor.%s has no lazy wrapper: %s", m.Name, why)
			} else {
				t.Logf("%s not wrapped: %s", m.Name, why)
			}
			continue
		}
		l, ok := lt.MethodByName(m.Name)
		if !ok {
			t.Errorf("lazy.Tensor has no %s (run go generate ./lazy)", m.Name)
			continue
		}
		if l.Type.NumIn() != m.Type.NumIn() || l.Type.NumOut() != m.Type.NumOut() || l.Type.IsVariadic() != m.Type.IsVariadic() {
			t.Errorf("%s: lazy %s, gojit %s", m.Name, l.Type, m.Type)
			continue
		}
		for k := 1; k < m.Type.NumIn(); k++ {
			if lazyOf(m.Type.In(k)) != l.Type.In(k) {
				t.Errorf("%s parameter %d: lazy %s, gojit %s", m.Name, k, l.Type.In(k), m.Type.In(k))
			}
		}
		for k := range m.Type.NumOut() {
			want := lazyOf(m.Type.Out(k))
			if m.Type.Out(k) == reflect.TypeFor[gojit.DType]() || m.Type.Out(k).Kind() != reflect.Pointer && m.Type.Out(k).Kind() != reflect.Slice {
				want = m.Type.Out(k)
			}
			if want != l.Type.Out(k) {
				t.Errorf("%s result %d: lazy %s, gojit %s", m.Name, k, l.Type.Out(k), m.Type.Out(k))
			}
		}
	}
	// The package-level ops, checked by the compiler.
	var (
		_ func(*Tensor, *Tensor, *Tensor) *Tensor    = Where
		_ func(int, ...*Tensor) *Tensor              = Concat
		_ func(gojit.DType, float64, ...int) *Tensor = Full
		_ func(gojit.DType, int, ...int) *Tensor     = Iota
		_ func(float64) *Tensor                      = Scalar
	)
}

// The position recorded for a lazy op (through lazy's wrapper, one frame
// deeper than gojit's) resolves to the user's line and call: what the
// engine's run-time errors and dumps print.
func TestRecordedSiteIsTheUsersLine(t *testing.T) {
	c := newCtx(t)
	x := c.FromFloat32([]float32{1, 2, 3, 4}, 2, 2)
	y := x.Add(x).MatMul(x).Relu()
	_, _, l, _ := runtime.Caller(0)
	pos, call := lazycore.H.Site(y.gen.tr, y.v)
	if want := "methods_test.go:" + strconv.Itoa(l-1); !strings.HasSuffix(pos, want) || call != "Relu" {
		t.Errorf("site = %q, %q; want %q, Relu", pos, call, want)
	}
}
