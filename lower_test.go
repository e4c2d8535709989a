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

func TestWithPassDump(t *testing.T) {
	var b strings.Builder
	f, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor {
		return x.Mul(gojit.Scalar(1)).Neg().Neg().Add(x.Mul(gojit.Scalar(1)))
	}, gojit.WithPassDump(&b, "simplify", "cse"), gojit.WithVerify())
	if err != nil {
		t.Fatal(err)
	}
	x := gojit.FromFloat32([]float32{1, -2, 3}, 3)
	out, err := f.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Float32(); got[0] != 2 || got[1] != -4 || got[2] != 6 {
		t.Errorf("out = %v, want [2 -4 6]", got)
	}
	dump := b.String()
	if !strings.Contains(dump, "== after simplify") || !strings.Contains(dump, "== after cse") || strings.Contains(dump, "== after fold") {
		t.Errorf("dump has the wrong passes:\n%s", dump)
	}
	// After cse, x*1 is x, the double negation is x, and the result is
	// x + x (the replaced nodes stay, dead, until dce).
	after := dump[strings.Index(dump, "== after cse"):]
	if !strings.Contains(after, "add %0, %0") || !strings.Contains(after, "return %9") {
		t.Errorf("IR after cse:\n%s", after)
	}
	if _, err := gojit.Compile(func(x *gojit.Tensor) *gojit.Tensor { return x }, gojit.WithPassDump(&b, "nope")); err == nil ||
		!strings.Contains(err.Error(), `unknown pass "nope"`) {
		t.Errorf("unknown pass: %v", err)
	}
}
