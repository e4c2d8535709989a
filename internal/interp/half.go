package interp

import (
	"github.com/gojit/gojit/internal/half"
	"github.com/gojit/gojit/internal/ir"
)

// castHalf converts to or from Float16 and BFloat16, always through
// Float32: a half is widened to Float32 exactly and then cast like a
// Float32; a value is cast to Float32 first and then rounded to the half
// (so a Float64 rounds twice, as the compiled code does). It reports false
// when neither side is a half.
func castHalf(dt ir.DType, a any) (any, bool) {
	switch s := a.(type) {
	case []half.Float16:
		f := make([]float32, len(s))
		for i, h := range s {
			f[i] = h.Float32()
		}
		return cast(dt, f), true
	case []half.BFloat16:
		f := make([]float32, len(s))
		for i, h := range s {
			f[i] = h.Float32()
		}
		return cast(dt, f), true
	}
	if !dt.IsHalf() {
		return nil, false
	}
	f := cast(ir.Float32, a).([]float32)
	if dt == ir.Float16 {
		out := make([]half.Float16, len(f))
		for i, x := range f {
			out[i] = half.Float16From(x)
		}
		return out, true
	}
	out := make([]half.BFloat16, len(f))
	for i, x := range f {
		out[i] = half.BFloat16From(x)
	}
	return out, true
}
