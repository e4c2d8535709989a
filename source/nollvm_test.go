package source

import (
	"errors"
	"strings"
	"testing"

	"github.com/gojit/gojit/internal/llvm"
)

// TestWithoutLLVM: in builds without LLVM (CGO_ENABLED=0), CompileFunc
// fails with an error wrapping llvm.ErrUnavailable; with it, it succeeds.
func TestWithoutLLVM(t *testing.T) {
	_, err := CompileFunc(saxpy, WithoutCache())
	if llvm.Available() {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if !errors.Is(err, llvm.ErrUnavailable) {
		t.Fatalf("without LLVM: got %v, want an error wrapping llvm.ErrUnavailable", err)
	}
}

// TestLowerText checks the generated LLVM IR (pure Go, no LLVM needed):
// the entry point, the internal function, a hoistable bounds check and
// the branch weights.
func TestLowerText(t *testing.T) {
	u, err := loadFunc(saxpy, newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, ir, err := lowerUnit(u, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"define void @k(ptr %args)",
		"define internal void @\"go.saxpy.0\"(ptr %st, float %p0, {ptr, i64, i64} %p1, {ptr, i64, i64} %p2)",
		"icmp sle i128", // the loop-invariant proof of the bounds check
		"!0 = !{!\"branch_weights\", i32 1048575, i32 1}",
	} {
		if !strings.Contains(ir, want) {
			t.Errorf("missing %q in\n%s", want, ir)
		}
	}
}

// TestUnsupported: constructs the lowering cannot compile are errors at
// their line (the checker, on the loader's branch, reports them all at
// once beforehand).
func TestUnsupported(t *testing.T) {
	_, err := Compile(`package p

func F(x []float64) float64 {
	m := map[int]float64{}
	m[1] = x[0]
	return m[1]
}
`, "F")
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "<source>:4:") || !strings.Contains(err.Error(), "map") {
		t.Fatalf("got %v", err)
	}
}
