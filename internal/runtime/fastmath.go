package runtime

import "regexp"

var (
	// fpInstr matches the floating-point instructions that take
	// fast-math flags, as codegen writes them: "%t = fadd float ...".
	fpInstr = regexp.MustCompile(`(= )(fadd|fsub|fmul|fdiv|frem|fneg|fcmp) `)
	// fpCall matches calls of floating-point intrinsics, such as
	// "= call float @llvm.exp.f32(" or "= call <8 x float> @llvm.fma".
	fpCall = regexp.MustCompile(`(= )call ((?:float|double|<\d+ x (?:float|double)>) @llvm\.)`)
)

// fastMath adds the "fast" flags to every floating-point operation of an
// LLVM module's text. The module is verified by LLVM before it is
// optimized, so a flag in a wrong place is an error, not wrong code.
func fastMath(text string) string {
	text = fpInstr.ReplaceAllString(text, "${1}${2} fast ")
	return fpCall.ReplaceAllString(text, "${1}call fast ${2}")
}
