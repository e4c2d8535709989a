package source

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestBind(t *testing.T) {
	f := compileT(t, saxpy)
	var g func(float32, []float32, []float32) error
	if err := Bind3(f, &g); err != nil {
		t.Fatal(err)
	}
	var r func(float32, []float32, []float32) error
	if err := Bind(f, &r); err != nil {
		t.Fatal(err)
	}
	x := []float32{1, 2, 3, 4, 5}
	y1 := []float32{1, 1, 1, 1, 1}
	y2 := append([]float32(nil), y1...)
	want := append([]float32(nil), y1...)
	saxpy(3, x, want)
	if err := g(3, x, y1); err != nil {
		t.Fatal(err)
	}
	if err := r(3, x, y2); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if y1[i] != want[i] || y2[i] != want[i] {
			t.Fatalf("Bind3 %v, Bind %v, Go %v", y1, y2, want)
		}
	}
	// The bounds error surfaces through the error result.
	err := g(3, x, y1[:2])
	var re *RuntimeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "index out of range [2] with length 2") {
		t.Fatalf("short y: got %v", err)
	}
	allocs := testing.AllocsPerRun(100, func() { g(3, x, y1) })
	if allocs != 0 {
		t.Errorf("Bind3 call allocates %v times", allocs)
	}
}

func TestBindResult(t *testing.T) {
	f := compileT(t, sumInts)
	var g func([]int64) (int64, error)
	if err := Bind1R(f, &g); err != nil {
		t.Fatal(err)
	}
	var r func([]int64) (int64, error)
	if err := Bind(f, &r); err != nil {
		t.Fatal(err)
	}
	x := []int64{1, -5, 1 << 40}
	a, err1 := g(x)
	b, err2 := r(x)
	if err1 != nil || err2 != nil || a != sumInts(x) || b != a {
		t.Fatalf("got %v %v, %v %v, want %v", a, err1, b, err2, sumInts(x))
	}
	if n := testing.AllocsPerRun(100, func() { g(x) }); n != 0 {
		t.Errorf("Bind1R call allocates %v times", n)
	}
}

func TestBindErrors(t *testing.T) {
	f := compileT(t, saxpy)
	var wrongElem func(float32, []float64, []float32) error
	var wrongCount func(float32, []float32) error
	var noErr func(float32, []float32, []float32)
	for _, tc := range []struct {
		bind func() error
		want string
	}{
		{func() error { return Bind3(f, &wrongElem) }, "parameter 2 (x) of saxpy is []float32, the func type has []float64"},
		{func() error { return Bind(f, &wrongCount) }, "saxpy takes 3 parameters, the func type has 2"},
		{func() error { return Bind(f, &noErr) }, "must end its results with error"},
		{func() error { return Bind(f, noErr) }, "needs a non-nil pointer to a func variable"},
	} {
		err := tc.bind()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// TestBindGoFunction: a Func running the Go function (GOJIT_DISABLE_JIT)
// binds through the same API, generic and reflective, and a panic in the
// Go function comes back as the bound call's error.
func TestBindGoFunction(t *testing.T) {
	t.Setenv("GOJIT_DISABLE_JIT", "1")
	f, err := CompileFunc(saxpy)
	if err != nil {
		t.Fatal(err)
	}
	var s3 func(float32, []float32, []float32) error
	if err := Bind3(f, &s3); err != nil {
		t.Fatal(err)
	}
	x, y := []float32{1, 2, 3}, []float32{1, 1, 1}
	if err := s3(2, x, y); err != nil || !reflect.DeepEqual(y, []float32{3, 5, 7}) {
		t.Fatalf("bound Go saxpy: %v, y = %v", err, y)
	}
	// y shorter than x: Go panics with an index out of range.
	if err := s3(2, x, y[:1]); !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "index out of range [1] with length 1") {
		t.Fatalf("bound Go saxpy out of range: %v", err)
	}
	var sr func(float32, []float32, []float32) error
	if err := Bind(f, &sr); err != nil {
		t.Fatal(err)
	}
	if err := sr(1, x, y); err != nil || !reflect.DeepEqual(y, []float32{6, 7, 10}) { // y[0] was written before the panic
		t.Fatalf("Bind of Go saxpy: %v, y = %v", err, y)
	}
	var wrong func(float64, []float32, []float32) error
	if err := Bind(f, &wrong); err == nil || !strings.Contains(err.Error(), "parameter 1") {
		t.Fatalf("Bind with a wrong parameter type: %v", err)
	}
}
