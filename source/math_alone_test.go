package source

import (
	"fmt"
	"math"
	"testing"
)

// TestMathEachAlone compiles every unary math function of the table in a
// unit of its own, so nothing else of math is loaded: Go's source of
// Log10, Cosh, Pow... calls the ported Log and Exp, which must then be
// built too (a unit calling only Log10 once reached Go's assembly stub of
// Log). Results must be Go's bit for bit.
func TestMathEachAlone(t *testing.T) {
	needLLVM(t)
	unary := map[string]func(float64) float64{
		"Abs": math.Abs, "Ceil": math.Ceil, "Floor": math.Floor, "Round": math.Round,
		"RoundToEven": math.RoundToEven, "Sqrt": math.Sqrt, "Trunc": math.Trunc,
		"Exp": math.Exp, "Log": math.Log, "Acos": math.Acos, "Asin": math.Asin, "Atan": math.Atan,
		"Cbrt": math.Cbrt, "Cos": math.Cos, "Cosh": math.Cosh, "Exp2": math.Exp2, "Expm1": math.Expm1,
		"Log10": math.Log10, "Log1p": math.Log1p, "Log2": math.Log2, "Sin": math.Sin, "Sinh": math.Sinh,
		"Tan": math.Tan, "Tanh": math.Tanh,
	}
	binary := map[string]func(float64, float64) float64{
		"Pow": math.Pow, "Atan2": math.Atan2, "Mod": math.Mod, "Hypot": math.Hypot,
		"Max": math.Max, "Min": math.Min, "Copysign": math.Copysign,
	}
	for name := range mathFuncs {
		if _, ok := unary[name]; !ok {
			if _, ok := binary[name]; !ok && name != "FMA" && name != "Inf" && name != "NaN" &&
				name != "IsNaN" && name != "IsInf" && name != "Signbit" && name[:5] != "Float" {
				t.Errorf("math.%s is in the table but not tested here", name)
			}
		}
	}
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.75, 1, 2.5, 100, -3e5, 1e-310, 710, math.Inf(1), math.Inf(-1), math.NaN()}
	for name, g := range unary {
		f, err := Compile(fmt.Sprintf("package p\nimport \"math\"\nfunc F(x float64) float64 { return math.%s(x) }\n", name), "F")
		if err != nil {
			t.Errorf("math.%s alone: %v", name, err)
			continue
		}
		for _, x := range xs {
			out, err := f.Call(x)
			if err != nil {
				t.Fatalf("math.%s(%v): %v", name, x, err)
			}
			if got, want := out[0].(float64), g(x); ulps(got, want) != 0 {
				t.Errorf("math.%s(%v): compiled %v, Go %v", name, x, got, want)
			}
		}
	}
	for name, g := range binary {
		f, err := Compile(fmt.Sprintf("package p\nimport \"math\"\nfunc F(x, y float64) float64 { return math.%s(x, y) }\n", name), "F")
		if err != nil {
			t.Errorf("math.%s alone: %v", name, err)
			continue
		}
		for _, x := range xs {
			for _, y := range xs {
				out, err := f.Call(x, y)
				if err != nil {
					t.Fatalf("math.%s(%v, %v): %v", name, x, y, err)
				}
				if got, want := out[0].(float64), g(x, y); ulps(got, want) != 0 {
					t.Errorf("math.%s(%v, %v): compiled %v, Go %v", name, x, y, got, want)
				}
			}
		}
	}
}
