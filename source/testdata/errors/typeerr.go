package kernels

// Type errors in F are reported (as the type checker words them); those in
// broken, which F does not call, are not.

func F(x []float64) float64 {
	var s float32
	for _, v := range x {
		s += v
	}
	return s + undefinedThing
}

func broken() int {
	return "not an int" + nothing
}
