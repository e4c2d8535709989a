package kernels

// The constructs of the functions F calls are reported at their own lines;
// unrelated has errors of every kind, and none is reported.

import "math"

func F(x []float64) float64 {
	s := 0.0
	for i := range x {
		s += step(x[i])
	}
	return s
}

func step(v float64) float64 {
	if v < 0 {
		return inner(-v)
	}
	return math.Abs(v)
}

func inner(v float64) float64 {
	names := map[float64]string{1: "one"}
	return float64(len(names[v]))
}

func unrelated() {
	m := map[string]int{}
	go func() { m["x"] = undefinedName }()
}
