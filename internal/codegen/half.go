package codegen

import (
	"github.com/gojit/gojit/internal/ir"
)

// Float16 and BFloat16 (storage dtypes) only ever meet casts, layout ops
// and selects: the front ends compute in Float32. Float16 is LLVM's half,
// converted with fpext/fptrunc (F16C instructions on x86, round to nearest
// even). BFloat16 is kept as its i16 bits and converted with integer code,
// so no target support or library call is needed: widening shifts the bits
// into the top of a float32; narrowing rounds to nearest even by adding
// 0x7FFF plus the lowest kept bit, and makes a NaN a quiet NaN with the top
// of its payload (internal/half does the same for the interpreter).
// Conversions go through Float32 in both directions.
func (f *fn) castHalf(from, to ir.DType, x string) string {
	if from.IsHalf() {
		var x32 string
		if from == ir.Float16 {
			x32 = f.ins("fpext half %s to float", x)
		} else {
			w := f.ins("zext i16 %s to i32", x)
			s := f.ins("shl i32 %s, 16", w)
			x32 = f.ins("bitcast i32 %s to float", s)
		}
		if to.IsHalf() {
			return f.castHalf(ir.Float32, to, x32)
		}
		return f.cast(ir.Float32, to, x32)
	}
	x32 := f.cast(from, ir.Float32, x)
	if to == ir.Float16 {
		return f.ins("fptrunc float %s to half", x32)
	}
	b := f.ins("bitcast float %s to i32", x32)
	hi := f.ins("lshr i32 %s, 16", b)
	odd := f.ins("and i32 %s, 1", hi)
	bias := f.ins("add i32 %s, 32767", odd)
	r := f.ins("add i32 %s, %s", b, bias)
	rh := f.ins("lshr i32 %s, 16", r)
	qn := f.ins("or i32 %s, 64", hi)
	nan := f.ins("fcmp uno float %s, %s", x32, x32)
	v := f.ins("select i1 %s, i32 %s, i32 %s", nan, qn, rh)
	return f.ins("trunc i32 %s to i16", v)
}
