package kernels

func F(x []float64) []float64 {
	out := make([]float64, len(x))
	p := new(float64)
	var acc []float64
	for i, v := range x {
		out[i] = v * 2
		acc = append(acc, v)
	}
	w := []float64{1, 2, 3}
	*p = w[0]
	copy(out, acc)
	return out
}
