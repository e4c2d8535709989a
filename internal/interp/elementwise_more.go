package interp

import (
	"math"

	"github.com/gojit/gojit/internal/ir"
)

// The elementwise ops added for issue 10 (log1p, expm1, erf, mod).

// unaryMore evaluates log1p, expm1 and erf with Go's float64 functions,
// rounded once to T (so Float32 gets the correctly rounded value of a
// float64 result that is itself within an ulp of the truth).
func unaryMore[T float](op ir.Op, s, out []T) {
	var f func(float64) float64
	switch op {
	case ir.OpLog1p:
		f = math.Log1p
	case ir.OpExpm1:
		f = math.Expm1
	case ir.OpErf:
		f = math.Erf
	}
	for i, x := range s {
		out[i] = T(f(float64(x)))
	}
}

// modInt is the remainder with the sign of the divisor, as Python's %
// and NumPy's mod: -7 mod 3 is 2, 7 mod -3 is -2. x mod 0 is 0 (NumPy
// gives 0 too, with a warning), matching Div's x/0 = 0, and MinInt mod -1
// is 0 (Go defines MinInt % -1 as 0).
func modInt[T integer](a, b, out []T) {
	for i := range out {
		y := b[i]
		if y == 0 {
			out[i] = 0
			continue
		}
		r := a[i] % y
		if r != 0 && (r < 0) != (y < 0) {
			r += y
		}
		out[i] = r
	}
}

// modFloat is NumPy's float mod (npy_divmod): r = fmod(x, y), exact;
// when r is non-zero and its sign differs from y's, r += y; a zero r takes
// y's sign. x mod 0 and mod of an infinite x are NaN; x mod ±Inf is x when
// the signs agree (or x is 0), else ±Inf.
func modFloat[T float](a, b, out []T) {
	for i := range out {
		out[i] = modOne(a[i], b[i])
	}
}

func modOne[T float](x, y T) T {
	r := T(math.Mod(float64(x), float64(y)))
	switch {
	case r != 0 && (r < 0) != (y < 0):
		r += y
	case r == 0:
		r = T(math.Copysign(0, float64(y)))
	}
	return r
}
