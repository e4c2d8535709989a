package source

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// kernelLine returns "kernels_test.go:N" for the first line of
// kernels_test.go containing text.
func kernelLine(t *testing.T, f *Func, text string) string {
	t.Helper()
	for name, src := range f.u.src {
		for i, l := range strings.Split(string(src), "\n") {
			if strings.Contains(l, text) {
				return fmt.Sprintf("%s:%d", filepath.Base(name), i+1)
			}
		}
	}
	t.Fatalf("no line with %q", text)
	return ""
}

func TestRuntimeErrors(t *testing.T) {
	for _, tc := range []struct {
		fn   any
		args []any
		line string // text of the failing line
		msg  string
	}{
		{index, []any{[]float32{1, 2, 3}, 5}, "return x[i]", "index out of range [5] with length 3"},
		{index, []any{[]float32{1, 2, 3}, -1}, "return x[i]", "index out of range [-1]"},
		{sliceSum, []any{[]float64{1, 2}, 0, 3}, "range x[lo:hi]", "slice bounds out of range [:3] with capacity 2"},
		{sliceSum, []any{[]float64{1, 2}, 2, 1}, "range x[lo:hi]", "slice bounds out of range [2:1]"},
		{divmod, []any{int64(1), int64(0)}, "func divmod(a", "integer divide by zero"},
		{sumAt, []any{[]int{1, 2}, []int{0, 2}}, "func getAt(", "index out of range [2] with length 2"},
		{threeIndex, []any{[]int32{1, 2}, 0, 1, 3}, "y := x[a:b:c]", "slice bounds out of range [:3] with capacity 2"},
		{saxpy, []any{float32(1), []float32{1, 2, 3}, []float32{1}}, "y[i] += a * x[i]", "index out of range [1] with length 1"},
	} {
		f := compileT(t, tc.fn)
		_, err := f.Call(tc.args...)
		var re *RuntimeError
		if !errors.As(err, &re) {
			t.Fatalf("%s%v: want a *RuntimeError, got %v", f.name, tc.args, err)
		}
		want := kernelLine(t, f, tc.line) + ":"
		if !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), ": "+f.name+": "+tc.msg) {
			t.Errorf("%s%v: got %q, want %s...: %s", f.name, tc.args, err, want, tc.msg)
		}
	}
}

func TestCallArgumentErrors(t *testing.T) {
	f := compileT(t, saxpy)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{float32(1), []float32{}}, "saxpy takes 3 arguments, got 2"},
		{[]any{1.1, []float32{}, []float32{}}, "argument 1 (a): want float32, float64 1.1 does not convert exactly"},
		{[]any{"2", []float32{}, []float32{}}, "argument 1 (a): want float32, got string"},
		{[]any{float32(1), []float64{}, []float32{}}, "argument 2 (x): want []float32, got []float64"},
		{[]any{float32(1), []float32{}, nil}, "argument 3 (y): want []float32, got <nil>"},
	} {
		_, err := f.Call(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Call%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestCallConvertsLikeGo: compiled Call accepts the same arguments as the
// Go function behind WithFallback or GOJIT_DISABLE_JIT — a number of
// another type when it converts exactly — so code that works in debug mode
// works compiled, and refuses the same ones.
func TestCallConvertsLikeGo(t *testing.T) {
	f := compileT(t, saxpy)
	g := newGoFunc(saxpy)
	for _, a := range []any{float32(2), 2, int8(-3), uint64(7), 2.0, 0.5, 1.1, 1 << 30, int64(1<<24 + 1), "2", true, nil} {
		x := []float32{1, 2, 3}
		yc, yg := []float32{4, 5, 6}, []float32{4, 5, 6}
		_, errC := f.Call(a, x, yc)
		_, errG := g.call([]any{a, x, yg})
		if (errC == nil) != (errG == nil) {
			t.Errorf("argument %T(%v): compiled error %v, Go error %v", a, a, errC, errG)
			continue
		}
		if errC == nil && !reflect.DeepEqual(yc, yg) {
			t.Errorf("argument %T(%v): compiled %v, Go %v", a, a, yc, yg)
		}
	}
}
