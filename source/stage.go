package source

// A Stage names one step of compilation whose text Code returns.
type Stage int

// The stages, in order. A function has every stage but StageIR; a formula
// has every stage but StageSSA.
const (
	StageSource  Stage = iota // the Go source (a function's declaration, or the formula)
	StageSSA                  // golang.org/x/tools/go/ssa form of the function and its callees
	StageIR                   // gojit's tensor IR (formulas only)
	StageLLVM                 // LLVM IR as generated, before optimization
	StageLLVMOpt              // LLVM IR after optimization
	StageAsm                  // the host assembly
)

var stageNames = [...]string{"source", "ssa", "ir", "llvm", "llvm-opt", "asm"}

func (s Stage) String() string {
	if s >= 0 && int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "Stage(?)"
}

// ParseStage returns the Stage named s (as printed by Stage.String).
func ParseStage(s string) (Stage, bool) {
	for i, n := range stageNames {
		if n == s {
			return Stage(i), true
		}
	}
	return 0, false
}
