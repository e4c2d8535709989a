package kernels

// Maps: the parameter, an index, a range and a make, all reported at once.
func F(m map[string]float64, keys []int) float64 {
	s := 0.0
	for k, v := range m {
		s += v * float64(len(k))
	}
	s += m["x"]
	counts := make(map[int]int)
	for _, k := range keys {
		counts[k]++
	}
	return s
}
