package source

import (
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

func needLLVM(t testing.TB) {
	t.Helper()
	if !llvm.Available() {
		t.Skip("LLVM not available in this build")
	}
}

func compileT(t testing.TB, fn any) *Func {
	t.Helper()
	needLLVM(t)
	f, err := CompileFunc(fn, WithoutCache())
	if err != nil {
		t.Fatalf("CompileFunc: %v", err)
	}
	return f
}

func TestSmoke(t *testing.T) {
	f := compileT(t, saxpy)
	x := []float32{1, 2, 3}
	y := []float32{1, 1, 1}
	if _, err := f.Call(float32(2), x, y); err != nil {
		t.Fatal(err)
	}
	t.Log(y)
}
