package source

import (
	"regexp"
	"strings"
	"testing"
)

// packed matches x86 packed single/double arithmetic on vector registers.
var packed = regexp.MustCompile(`\bv?(mulps|addps|fmadd\d*ps|mulpd|addpd|fmadd\d*pd|subps)\b.*[xyz]mm`)

// TestSaxpyVectorizes checks the assembly of compiled loops for packed
// vector arithmetic: the bounds checks left the loop, which LLVM then
// vectorized. rangeInt's second loop, y[i+1] += x[i], vectorizes only
// thanks to the lowering's loop-invariant bounds condition (measured: 164
// vector-register operands in rangeInt's assembly with it, 56 without);
// saxpy's LLVM vectorizes either way.
func TestSaxpyVectorizes(t *testing.T) {
	for _, fn := range []any{saxpy, rangeInt} {
		f := compileT(t, fn)
		asm, err := f.Code(StageAsm)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(packed.FindAllString(asm, -1)); n < 4 {
			t.Fatalf("%d packed vector instructions in %s's assembly:\n%s", n, f.name, asm)
		}
	}
}

func TestCodeStages(t *testing.T) {
	f := compileT(t, callsHelpers)
	for _, tc := range []struct {
		s    Stage
		want []string
	}{
		{StageSource, []string{"func callsHelpers(x []float64) float64", "func twoResults(", "func helper("}},
		{StageSSA, []string{"func callsHelpers(x []float64) float64:", "func helper(a float64, b float64) float64:"}},
		{StageLLVM, []string{"define internal double @\"go.callsHelpers.0\"", "define void @gojit_src_callsHelpers_"}},
		{StageLLVMOpt, []string{"define void @gojit_src_callsHelpers_"}},
		{StageAsm, []string{"gojit_src_callsHelpers_"}},
	} {
		text, err := f.Code(tc.s)
		if err != nil {
			t.Fatalf("%s: %v", tc.s, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: missing %q in\n%s", tc.s, w, text)
			}
		}
	}
	if _, err := f.Code(StageIR); err == nil {
		t.Error("StageIR of a function: want an error")
	}
}
