package kernels

// F calls a function implemented elsewhere (assembly): it has no Go body to
// compile.
func F(x float64) float64 {
	return archExp(x) + 1
}

func archExp(x float64) float64
