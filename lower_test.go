package gojit_test

import (
	"strings"
	"testing"

	"github.com/gojit/gojit"
)

// TestLowerSharesTheCallCache: Lower compiles the signature once, as Call
// would, and both reuse it.
func TestLowerSharesTheCallCache(t *testing.T) {
	f, err := gojit.Compile(func(a *gojit.Tensor) *gojit.Tensor { return a.Sqrt().Add(a) })
	if err != nil {
		t.Fatal(err)
	}
	x := gojit.FromFloat64([]float64{1, 4, 9})
	l, err := f.Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.Traced, "sqrt") || !strings.Contains(l.Traced, "lower_test.go:") {
		t.Errorf("traced IR lacks the op or its position:\n%s", l.Traced)
	}
	if gojit.LLVMVersion() != "" && (!strings.Contains(l.LLVM, "@llvm.sqrt.f64") || l.Assembly == "" || l.Optimized == "") {
		t.Errorf("LLVM stages missing:\n%s", l.LLVM)
	}
	out, err := f.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Float64(); got[0] != 2 || got[1] != 6 || got[2] != 12 {
		t.Errorf("result %v, want [2 6 12]", got)
	}
	if _, err := f.Lower(x); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Traces != 1 {
		t.Errorf("Lower, Call, Lower traced %d times, want 1", s.Traces)
	}
	if _, err := f.Lower(x, 3); err == nil {
		t.Error("Lower with an extra argument succeeded")
	}
}
